"""Can a contract clause be compiled into an `expect`? If not, why (it is then listed as unchecked).

Not compilable: two-state and allocation forms (old, fresh, unchanged, allocated), calls of ghost
members (lemmas, ghost functions, least/greatest predicates), functions without a body, ghost fields and constants, statements in
expressions, let-such-that, and quantifiers or comprehensions whose bound variables have no bounds
Dafny could enumerate (`forall x: int :: ...`). Ghost is as the tests run: a declaration the test build
lifted (testbuild/) is compiled, one it kept ghost says Dafny's reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dspec2test.dafny import ast
from dspec2test.model.contracts import iter_members
from dspec2test.model.tuples import explicit_bounds, inline_calls, reduce_lets, split_tuple_vars, unbounded_vars
from dspec2test.model.types import TypeIndex
from dspec2test.model.walk import called_names, walk

_GHOST_FUNCTION_KINDS = {"least predicate", "greatest predicate", "twostate function", "twostate predicate"}


@dataclass(frozen=True)
class GhostIndex:
    names: frozenset[str]  # short names of ghost members anywhere in the program
    bodiless: frozenset[str] = frozenset()  # non-ghost functions without a body: nothing a test could call
    # ghost functions a check can use through their bodies: module-level, with a body, not recursive,
    # their short name unique in the program (lifted ones too: a body inlined may show Dafny the bounds of a
    # quantifier, `forall iv | valid(s, iv)` over the components valid's body bounds)
    inlinable: tuple[tuple[str, ast.Function], ...] = ()
    # parameter types of the functions whose short name is unique: an untyped bound variable passed to one
    # (`forall iv | valid(s, iv) :: ...`) has that parameter's type
    formals: tuple[tuple[str, tuple[ast.Type, ...]], ...] = ()
    types: TypeIndex = field(default_factory=lambda: TypeIndex({}), compare=False)
    # constructor name -> its datatype's, where that datatype has no compiled equality (it holds a function)
    no_equality: tuple[tuple[str, str], ...] = ()
    # ghost fields of datatype values (`datatype P = P(ghost start: int, ...)`) no compiled field shares a name
    # with: `p.start` is ghost, a variable named start is not
    ghost_fields: frozenset[str] = frozenset()
    # short name -> why the test build left it ghost (Dafny's words); lifted names are not ghost here at all
    kept: tuple[tuple[str, str], ...] = ()

    def ghost_reason(self, name: str) -> str:
        """Why a check cannot evaluate the ghost `name`: where the test build kept it ghost, Dafny's reason."""
        why = dict(self.kept).get(name.rsplit(".", 1)[-1])
        return f"{name} is ghost in the test build: {why}" if why else f"{name} is ghost"

    @staticmethod
    def of(program: ast.Program, kept: tuple[tuple[str, str], ...] = ()) -> "GhostIndex":
        """The program as the tests run it: a declaration the test build lifted (`lifted`) is compiled;
        `kept`: the reasons it kept others ghost, by short name."""
        ghosts, bodiless = set(), set()
        named: dict[str, list[tuple[object, ast.Decl]]] = {}
        for scope, d in iter_members(program.decls):
            named.setdefault(getattr(d, "name", ""), []).append((scope, d))
            # the tests' build makes a bodiless function ghost (run/stubs.py); a check cannot call it. Not
            # one an abstract module declares (its refinements give the body) or a trait does (its classes)
            owner = scope.owner
            if isinstance(d, ast.Function) and d.body is None and not scope.abstract \
                    and not (isinstance(owner, ast.ClassDecl) and owner.kind == "trait"):
                bodiless.add(d.name)
            if isinstance(d, ast.Method) and (d.kind != "method" or d.ghost):
                ghosts.add(d.name)
            elif isinstance(d, ast.Function) and (d.ghost_in_tests or d.kind in _GHOST_FUNCTION_KINDS):
                ghosts.add(d.name)
            elif isinstance(d, (ast.Field, ast.Const)) and d.ghost_in_tests:
                ghosts.add(d.name)
        inlinable = tuple((name, d) for name, [(scope, d)] in ((n, v) for n, v in named.items() if len(v) == 1)
                          if isinstance(d, ast.Function) and (name in ghosts or d.lifted) and d.body is not None
                          and getattr(scope, "owner", None) is None and name not in called_names(d.body))
        formals = tuple((name, tuple(p.type for p in d.params)) for name, [(_, d)] in
                        ((n, v) for n, v in named.items() if len(v) == 1)
                        if isinstance(d, ast.Function) and not d.type_params)
        types = TypeIndex.of(program)
        fields: dict[str, set[bool]] = {}  # field name -> whether each field of that name is ghost
        for n in ast.preorder(program):
            if isinstance(n, ast.Ctor):
                for p in n.params:
                    fields.setdefault(p.name, set()).add(p.ghost_in_tests)
            elif isinstance(n, (ast.Field, ast.Const)):
                fields.setdefault(n.name, set()).add(n.ghost_in_tests)
        ghost_fields = frozenset(name for name, kinds in fields.items() if name and kinds == {True})
        return GhostIndex(frozenset(ghosts), frozenset(bodiless - ghosts), inlinable, formals, types,
                          _without_equality(program, types), ghost_fields, tuple(kept))


def _without_equality(program: ast.Program, types: TypeIndex) -> tuple[tuple[str, str], ...]:
    """The constructors of datatypes whose values hold a function somewhere (by name, to a fixpoint):
    Dafny compiles no equality for them, so a set of them exists only in ghost code."""
    datatypes: list[tuple[str, ast.Datatype]] = []  # with their module's path ("A.B.")

    def collect(decls: tuple[ast.Decl, ...], prefix: str) -> None:
        for d in decls:
            if isinstance(d, ast.Module):
                collect(d.decls, prefix + d.name + ".")
            elif isinstance(d, ast.Datatype):
                datatypes.append((prefix, d))

    collect(program.decls, "")
    lacking: set[int] = set()  # ids of the datatypes found so far

    def holds_function(t: ast.Node, prefix: str, params: set[str]) -> bool:
        for n in ast.preorder(t):
            if isinstance(n, ast.ArrowType):
                return True
            if isinstance(n, ast.NamedType) and n.name not in params:
                # the module's own declaration first: a short name (`T`) is declared in many modules
                b = types.base(ast.NamedType(prefix + n.name, n.args)) if prefix + n.name in types.decls \
                    else types.base(n)
                decl = types.decls.get(b.name) if isinstance(b, ast.NamedType) else None
                if isinstance(b, ast.ArrowType) or id(decl) in lacking:
                    return True
        return False

    changed = True
    while changed:
        changed = False
        for prefix, d in datatypes:
            params = {tp.name for tp in d.type_params}
            if id(d) not in lacking and any(holds_function(p.type, prefix, params) for c in d.ctors for p in c.params):
                lacking.add(id(d))
                changed = True
    return tuple((c.name, d.name) for _, d in datatypes if id(d) in lacking for c in d.ctors)


def unghosted(e: ast.Expr, ghosts: GhostIndex, depth: int = 3) -> ast.Expr | None:
    """`e` with calls of inlinable ghost functions replaced by their bodies (`var p := arg; body`), a
    few levels deep, when that makes it compilable; else None. `ensures correct_pair(r, s, t)` over a ghost
    predicate whose body a test can evaluate is then checked, not listed. A quantifier over tuples is
    first split into one bound variable per component (`forall iv | valid(s, iv)` ranges over
    `iv_0, iv_1`), which the bodies' bounds on `iv.0` and `iv.1` then bound for Dafny."""
    bodies = dict(ghosts.inlinable)
    if any(isinstance(n, ast.Old) for n in walk(e)):
        return None  # a body under old() would need a snapshot of all it reads: left as it was
    split = split_tuple_vars(e, ghosts.types, dict(ghosts.formals))
    out = split
    for k in range(depth + 1):
        if k > 0:
            if not bodies:
                break
            out = inline_calls(out, bodies)
        elif split == e:
            continue  # the caller found `e` itself not compilable
        if why_not_compilable(out, ghosts) is None:
            return out
        if split != e:
            # the components stay hidden from Dafny's bounds behind the bodies' lets: those substituted
            reduced = explicit_bounds(reduce_lets(out))
            if why_not_compilable(reduced, ghosts) is None:
                return reduced
    return None


def why_not_compilable(e: ast.Expr, ghosts: GhostIndex) -> str | None:
    for n in walk(e):
        if isinstance(n, ast.Old):
            return "old() refers to the pre-state"
        if isinstance(n, ast.Fresh):
            return "fresh() is ghost"
        if isinstance(n, ast.Unchanged):
            return "unchanged() refers to the pre-state"
        if isinstance(n, ast.Allocated):
            return "allocated() is ghost"
        if isinstance(n, ast.StmtExpr):
            return "statement in an expression"
        if isinstance(n, ast.Let) and n.such_that is not None:
            return "let-such-that (:|) is not compiled"
        if isinstance(n, ast.Call) and n.label is not None:
            return "two-state call"
        if isinstance(n, ast.Name) and n.name in ghosts.names:
            return ghosts.ghost_reason(n.name)
        if isinstance(n, (ast.Name, ast.MemberSelect)) and n.name in ghosts.bodiless:
            return f"{n.name} has no body"
        if isinstance(n, ast.MemberSelect) and n.name in ("requires", "reads"):
            return f".{n.name} of a function is ghost"  # keywords: no field can have these names
        if isinstance(n, ast.MemberSelect) and (n.name in ghosts.names or n.name in ghosts.ghost_fields):
            return ghosts.ghost_reason(n.name)
        if isinstance(n, (ast.SetDisplay, ast.MultisetDisplay)) and ghosts.no_equality:
            lacking = dict(ghosts.no_equality)
            for x in n.elems:
                callee = x.callee if isinstance(x, ast.Call) else x
                name = callee.name.split(".")[-1] if isinstance(callee, ast.Name) else ""
                if name in lacking:
                    return f"a set of {lacking[name]} values: {lacking[name]} holds functions, so it has no compiled equality"
        if isinstance(n, (ast.Quantifier, ast.SetComprehension, ast.MapComprehension)):
            if getattr(n, "infinite", False):
                return "infinite comprehension"
            free = unbounded_vars(n)
            if free:
                return f"unbounded quantifier over {', '.join(free)}"
    return None


def rank_comparison(e: ast.Expr, var_types: dict[str, ast.Type], types: TypeIndex) -> str | None:
    """Why `e` is ghost when it orders datatype values by rank (`c < p`, c a part of p): Dafny allows that
    only in specifications. Seen where an operand is a variable (or `this`) of a datatype type: the
    operands' types are not known otherwise, and a clause wrongly left unchecked costs less than a tests
    file that does not build."""
    def datatype(x: ast.Expr) -> bool:
        name = "this" if isinstance(x, ast.ThisExpr) else x.name if isinstance(x, ast.Name) else None
        t = var_types.get(name) if name is not None else None
        b = types.base(t) if t is not None else None
        return isinstance(b, ast.NamedType) and isinstance(types.decls.get(b.name), ast.Datatype)

    for n in walk(e):
        pairs = [(n.op, n.left, n.right)] if isinstance(n, ast.BinOp) else \
            [(op, n.operands[i], n.operands[i + 1]) for i, op in enumerate(n.ops)] if isinstance(n, ast.Chain) else []
        if any(op in ("<", ">") and (datatype(x) or datatype(y)) for op, x, y in pairs):
            return "a rank comparison (<) of datatype values is ghost"
    return None


"""Which members get tests, and their contracts: parameters, outputs, requires and ensures.

Bodies are never read. A function's result becomes an output variable: its declared name, or a
synthetic one, in which case calls of the function on its own parameters in `ensures` are rewritten
to that variable.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.partition.walk import rebuild, substitute

DEFAULT_TYPE_ARG = ast.NamedType("int")  # generic members are tested at int


@dataclass(frozen=True)
class ContractClause:
    kind: str  # "requires" | "ensures"
    expr: ast.Expr
    line: int
    text: str  # the clause's source text (printed from the AST when the parser kept none)


@dataclass(frozen=True)
class Var:
    name: str
    type: ast.Type
    is_output: bool
    ghost: bool = False  # a ghost parameter or out-parameter: tests may pass it, never print or check it


@dataclass(frozen=True)
class Contract:
    name: str  # qualified: "M.C.Find"
    short: str
    kind: str  # "method" | "function"
    member: ast.Method | ast.Function
    params: tuple[Var, ...]
    outputs: tuple[Var, ...]
    requires: tuple[ContractClause, ...]
    ensures: tuple[ContractClause, ...]
    module: tuple[str, ...]  # enclosing module path
    cls: ast.ClassDecl | None  # enclosing class or trait
    file: str
    line: int
    col: int
    synthetic_result: bool = False  # function result named by us, not in the source
    # array parameters the method modifies, when its frame holds nothing else: each then has a pre-state
    # (the test's input, `old(a)`) and a post-state (`a` in ensures); requires clauses read the pre-state
    pre_state: tuple[str, ...] = ()

    @property
    def vars(self) -> tuple[Var, ...]:
        return self.params + self.outputs

    @property
    def clauses(self) -> tuple[ContractClause, ...]:
        return self.requires + self.ensures

    @property
    def is_static(self) -> bool:
        return self.cls is None or self.member.static

    @property
    def body_missing(self) -> bool:
        if isinstance(self.member, ast.Method):
            return self.member.body is None
        return self.member.body is None and self.member.by_method is None


@dataclass(frozen=True)
class Scope:
    """Where a member sits: module path and enclosing type declaration."""

    module: tuple[str, ...]
    owner: ast.Node | None


def iter_members(decls: tuple[ast.Decl, ...], scope: Scope = Scope((), None)) -> Iterator[tuple[Scope, ast.Decl]]:
    for d in decls:
        if isinstance(d, ast.Module):
            yield from iter_members(d.decls, Scope(scope.module + tuple(d.name.split(".")), None))
        elif isinstance(d, (ast.ClassDecl, ast.Datatype, ast.Newtype, ast.TypeSynonym)):
            for m in d.members:
                yield Scope(scope.module, d), m
        else:
            yield scope, d


def qualified_name(scope: Scope, name: str) -> str:
    owner = [scope.owner.name] if scope.owner is not None else []  # type: ignore[attr-defined]
    return ".".join([*scope.module, *owner, name])


def _has_attr(member: ast.Node, name: str) -> bool:
    return any(a.name == name for a in getattr(member, "attributes", ()))


def is_testable(member: ast.Decl) -> bool:
    """Compiled methods and functions only: no lemmas, ghosts, constructors, twostate, or tests."""
    if isinstance(member, ast.Method):
        return member.kind == "method" and not member.ghost and not _has_attr(member, "test")
    if isinstance(member, ast.Function):
        return member.kind in ("function", "predicate", "function method", "predicate method") and not member.ghost
    return False


def has_contract(member: ast.Method | ast.Function) -> bool:
    return bool(member.spec.requires or member.spec.ensures)


def select(program: ast.Program, methods: tuple[str, ...] = (),
           unverified: tuple[str, ...] | None = None) -> list[Contract]:
    """Contracts of the members to test, in source order.

    `methods` (qualified or short names) selects explicitly; otherwise every testable member with a
    contract or `{:testEntry}`. `unverified` further restricts to those names plus `{:testEntry}`.
    """
    out = []
    for scope, member in iter_members(program.decls):
        if not is_testable(member):
            continue
        assert isinstance(member, (ast.Method, ast.Function))
        qname = qualified_name(scope, member.name)
        entry = _has_attr(member, "testEntry")
        if methods:
            if qname not in methods and member.name not in methods:
                continue
        elif not (has_contract(member) or entry):
            continue
        if unverified is not None and not entry and qname not in unverified and member.name not in unverified:
            continue
        out.append(contract_of(program, scope, member, qname))
    return out


def contract_of(program: ast.Program, scope: Scope, member: ast.Method | ast.Function, qname: str) -> Contract:
    tsub = {tp.name: DEFAULT_TYPE_ARG for tp in member.type_params}
    params = tuple(Var(f.name, _inst(f.type, tsub), False, f.ghost) for f in member.params)
    synthetic = False
    if isinstance(member, ast.Method):
        kind = "method"
        outputs = tuple(Var(f.name, _inst(f.type, tsub), True, f.ghost) for f in member.returns)
        ensures_exprs = [c.expr for c in member.spec.ensures]
    else:
        kind = "function"
        taken = {p.name for p in params}
        rname = member.result.name if member.result is not None and member.result.name else ""
        if not rname:
            synthetic = True
            rname = "result"
            while rname in taken:
                rname += "_"
        outputs = (Var(rname, _inst(member.result_type, tsub), True),)
        ensures_exprs = [_self_calls_to(c.expr, member, rname) if synthetic else c.expr for c in member.spec.ensures]
    pre = pre_state_arrays(member)
    requires = tuple(_clause(program, "requires", c, in_pre_state(c.expr, pre)) for c in member.spec.requires)
    ensures = tuple(_clause(program, "ensures", c, e) for c, e in zip(member.spec.ensures, ensures_exprs))
    cls = scope.owner if isinstance(scope.owner, ast.ClassDecl) else None
    return Contract(qname, member.name, kind, member, params, outputs, requires, ensures, scope.module, cls,
                    program.path, member.span.line, member.span.col, synthetic, pre)


def pre_state_name(array: str) -> str:
    """The solver's name for an array's value before the call (not a Dafny identifier, so it clashes with none)."""
    return f"old({array})"


def pre_state_arrays(member: ast.Method | ast.Function) -> tuple[str, ...]:
    """The array parameters a method's `modifies` names, if its frame is only those (else none: old() of
    fields or other objects is not modelled)."""
    if not isinstance(member, ast.Method) or not member.spec.modifies:
        return ()
    arrays = {p.name for p in member.params if _is_array_type(p.type)}
    frames = [e for c in member.spec.modifies for e in c.exprs]
    names = [e.name if isinstance(e, ast.Name) else None for e in frames]
    if any(n not in arrays for n in names):
        return ()
    return tuple(dict.fromkeys(n for n in names if n is not None))


def _is_array_type(t: ast.Type) -> bool:
    return isinstance(t, ast.NamedType) and t.name in ("array", "array?") and len(t.args) <= 1  # `array`: inferred


def in_pre_state(e: ast.Expr, arrays: tuple[str, ...]) -> ast.Expr:
    """A precondition speaks of the state before the call: its modified arrays become `old(a)`."""
    if not arrays:
        return e
    return substitute(e, {a: ast.Old(ast.Name(a)) for a in arrays})


def _clause(program: ast.Program, kind: str, c: ast.Clause, expr: ast.Expr) -> ContractClause:
    text = c.text
    if not text and program.text and c.expr.span.end > c.expr.span.start:
        text = program.text[c.expr.span.start:c.expr.span.end]
    return ContractClause(kind, expr, c.span.line or c.expr.span.line, text or print_expr(c.expr))


# collection types whose element types Dafny may infer (`a: array` gets an implicit type parameter)
_ARITY = {"array": 1, "array?": 1, "seq": 1, "set": 1, "iset": 1, "multiset": 1, "map": 2, "imap": 2}


def _inst(t: ast.Type, tsub: dict[str, ast.Type]) -> ast.Type:
    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.NamedType) and not n.args and n.name in tsub:
            return tsub[n.name]
        if isinstance(n, ast.NamedType) and not n.args and n.name in _ARITY:
            return ast.NamedType(n.name, (DEFAULT_TYPE_ARG,) * _ARITY[n.name], span=n.span)
        return None

    return rebuild(t, fn)  # type: ignore[return-value]


def _self_calls_to(e: ast.Expr, fn_decl: ast.Function, rname: str) -> ast.Expr:
    """`F(x, y)` (the function on its own parameters) -> the result variable."""
    pnames = tuple(p.name for p in fn_decl.params)

    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.Call) and _callee_is(n.callee, fn_decl.name):
            if tuple(a.name if isinstance(a, ast.Name) else None for a in n.args) == pnames:
                return ast.Name(rname, span=n.span)
        return None

    return rebuild(e, fn)  # type: ignore[return-value]


def _callee_is(callee: ast.Expr, name: str) -> bool:
    if isinstance(callee, ast.Name):
        return callee.name == name
    return isinstance(callee, ast.MemberSelect) and isinstance(callee.obj, ast.ThisExpr) and callee.name == name

"""Can a contract clause be compiled into an `expect`? If not, why (it is then listed as unchecked).

Not compilable: two-state and allocation forms (old, fresh, unchanged, allocated), calls of ghost
members (lemmas, ghost functions, least/greatest predicates), functions without a body, ghost fields and constants, statements in
expressions, let-such-that, and quantifiers or comprehensions whose bound variables have no bounds
Dafny could enumerate (`forall x: int :: ...`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dspec2test.dafny import ast
from dspec2test.partition.contracts import iter_members
from dspec2test.partition.types import TypeIndex
from dspec2test.partition.walk import bound_names, called_names, conj, free_names, rebuild, substitute, walk

_GHOST_FUNCTION_KINDS = {"least predicate", "greatest predicate", "twostate function", "twostate predicate"}
_LOWER = {"<=", "<"}  # lo OP v
_UPPER = {"<", "<="}  # v OP hi


@dataclass(frozen=True)
class GhostIndex:
    names: frozenset[str]  # short names of ghost members anywhere in the program
    bodiless: frozenset[str] = frozenset()  # non-ghost functions without a body: nothing a test could call
    # ghost functions a check can use through their bodies: module-level, with a body, not recursive,
    # their short name unique in the program
    inlinable: tuple[tuple[str, ast.Function], ...] = ()
    # parameter types of the functions whose short name is unique: an untyped bound variable passed to one
    # (`forall iv | valid(s, iv) :: ...`) has that parameter's type
    formals: tuple[tuple[str, tuple[ast.Type, ...]], ...] = ()
    types: TypeIndex = field(default_factory=lambda: TypeIndex({}), compare=False)

    @staticmethod
    def of(program: ast.Program) -> "GhostIndex":
        ghosts, bodiless = set(), set()
        named: dict[str, list[tuple[object, ast.Decl]]] = {}
        for scope, d in iter_members(program.decls):
            named.setdefault(getattr(d, "name", ""), []).append((scope, d))
            if isinstance(d, ast.Function) and d.body is None:
                bodiless.add(d.name)  # the tests' build makes it ghost (run/stubs.py); a check cannot call it
            if isinstance(d, ast.Method) and (d.kind != "method" or d.ghost):
                ghosts.add(d.name)
            elif isinstance(d, ast.Function) and (d.ghost or d.kind in _GHOST_FUNCTION_KINDS):
                ghosts.add(d.name)
            elif isinstance(d, (ast.Field, ast.Const)) and d.ghost:
                ghosts.add(d.name)
        inlinable = tuple((name, d) for name, [(scope, d)] in ((n, v) for n, v in named.items() if len(v) == 1)
                          if isinstance(d, ast.Function) and name in ghosts and d.body is not None
                          and getattr(scope, "owner", None) is None and name not in called_names(d.body))
        formals = tuple((name, tuple(p.type for p in d.params)) for name, [(_, d)] in
                        ((n, v) for n, v in named.items() if len(v) == 1)
                        if isinstance(d, ast.Function) and not d.type_params)
        return GhostIndex(frozenset(ghosts), frozenset(bodiless - ghosts), inlinable, formals, TypeIndex.of(program))


def unghosted(e: ast.Expr, ghosts: GhostIndex, depth: int = 3) -> ast.Expr | None:
    """`e` with calls of inlinable ghost functions replaced by their bodies (`var p := arg; body`), a
    few levels deep, when that makes it compilable; else None. `ensures correct_pair(r, s, t)` over a ghost
    predicate whose body a test can evaluate is then checked, not listed. A quantifier over tuples is
    first split into one bound variable per component (`forall iv | valid(s, iv)` ranges over
    `iv_0, iv_1`), which the bodies' bounds on `iv.0` and `iv.1` then bound for Dafny."""
    bodies = dict(ghosts.inlinable)
    if any(isinstance(n, ast.Old) for n in walk(e)):
        return None  # a body under old() would need a snapshot of all it reads: left as it was

    def inline(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.Call) and isinstance(n.callee, ast.Name) and n.callee.name in bodies and n.label is None:
            f = bodies[n.callee.name]
            if len(n.args) != len(f.params) or any(a is not None for a in n.arg_names):
                return None
            if not f.params:
                return f.body
            return ast.Let(tuple(ast.PatVar(p.name) for p in f.params), n.args, f.body)
        return None

    split = split_tuple_vars(e, ghosts)
    out = split
    for k in range(depth + 1):
        if k > 0:
            if not bodies:
                break
            out = rebuild(out, inline)  # type: ignore[assignment]
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


def split_tuple_vars(e: ast.Expr, ghosts: GhostIndex) -> ast.Expr:
    """Each unbounded bound variable of a tuple type (declared, or that of the function parameter it is
    passed to) as one bound variable per component, the type's constraint joining the range: Dafny can
    enumerate `iv_0, iv_1` bounded by `0 <= iv.0 <= iv.1 <= |s|`, never a tuple."""

    def fn(n: ast.Node) -> ast.Node | None:
        if not isinstance(n, ast.Quantifier):
            return None
        free = set(unbounded_vars(n))
        taken = _names_in(n)
        new_vars: list[ast.BoundVar] = []
        mapping: dict[str, ast.Expr] = {}
        guards: list[ast.Expr] = []
        for v in n.vars:
            t = v.type if v.type is not None else _formal_type(v.name, n, ghosts)
            base = ghosts.types.base(t) if t is not None else None
            if v.name not in free or t is None or not isinstance(base, ast.TupleType) or not base.elems:
                new_vars.append(v)
                continue
            parts = []
            for k, et in enumerate(base.elems):
                name = f"{v.name}_{k}"
                while name in taken:
                    name += "'"
                taken.add(name)
                parts.append(name)
                new_vars.append(ast.BoundVar(name, et))
            tup = ast.TupleExpr(tuple(ast.Name(p) for p in parts))
            mapping[v.name] = tup
            guards += [substitute(c, {v.name: tup}) for c in ghosts.types.constraints(v.name, t)]
        if not mapping:
            return None
        rng = substitute(n.range, mapping) if n.range is not None else None
        body = substitute(n.body, mapping)
        if guards:  # the constraint restricts the values the tuple ranged over: the same quantifier
            guard = conj(guards)
            if rng is not None or n.kind == "forall":
                rng = guard if rng is None else ast.BinOp("&&", guard, rng)
            else:
                body = ast.BinOp("&&", guard, body)
        return replace(n, vars=tuple(new_vars), range=rng, body=body)

    return rebuild(e, fn)  # type: ignore[return-value]


def reduce_lets(e: ast.Expr) -> ast.Expr:
    """`var p, q := x, (a, b); body` with plain names, literals or tuples of them bound: the body with
    them substituted, and `(a, b).0` as `a`. Nothing is evaluated twice that costs anything."""

    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.MemberSelect) and isinstance(n.obj, ast.TupleExpr) and n.name.isdigit() \
                and int(n.name) < len(n.obj.elems):
            return n.obj.elems[int(n.name)]
        if isinstance(n, ast.Let) and n.such_that is None and len(n.pats) == len(n.values) \
                and all(isinstance(p, ast.PatVar) for p in n.pats) and all(_atomic(v) for v in n.values):
            used = set().union(*(free_names(v) for v in n.values))
            if used & _binders_in(n.body):
                return None  # a binder inside would capture a substituted name
            body = substitute(n.body, {p.name: v for p, v in zip(n.pats, n.values)})  # type: ignore[union-attr]
            return reduce_lets(body)
        return None

    return rebuild(e, fn)  # type: ignore[return-value]


def explicit_bounds(e: ast.Expr) -> ast.Expr:
    """Each bound variable of a quantifier over several, standing in a chain `0 <= a <= b <= |s|` of its
    range, also bounded on its own by the chain's nearest ends free of them (`0 <= a <= |s|`): Dafny's
    compiler otherwise may bound `a` by `b` alone and, with `b - a == n` beside it, give up. Implied by
    the chain, so the quantifier means the same."""

    def fn(n: ast.Node) -> ast.Node | None:
        if not isinstance(n, ast.Quantifier) or len(n.vars) < 2:
            return None
        names = {v.name for v in n.vars}
        if n.range is not None:
            domain = n.range
        elif n.kind == "exists":
            domain = n.body
        elif isinstance(n.body, ast.BinOp) and n.body.op == "==>":
            domain = n.body.left
        else:
            return None
        extra: list[ast.Expr] = []
        for c in _conjuncts(domain):
            if not isinstance(c, ast.Chain) or not all(op in ("<", "<=") for op in c.ops):
                continue
            for k, x in enumerate(c.operands):
                if not (isinstance(x, ast.Name) and x.name in names):
                    continue
                lo = next(((j, y) for j, y in reversed(list(enumerate(c.operands[:k]))) if not free_names(y) & names), None)
                hi = next(((j, y) for j, y in enumerate(c.operands) if j > k and not free_names(y) & names), None)
                parts: list = []
                if lo is not None:
                    parts += [lo[1], "<" if "<" in c.ops[lo[0]:k] else "<="]
                parts.append(x)
                if hi is not None:
                    parts += ["<" if "<" in c.ops[k:hi[0]] else "<=", hi[1]]
                if len(parts) == 5:
                    extra.append(ast.Chain((parts[0], parts[2], parts[4]), (parts[1], parts[3])))
                elif len(parts) == 3:
                    extra.append(ast.BinOp(parts[1], parts[0], parts[2]))
        if not extra:
            return None
        guard = conj(extra)
        if n.range is not None:
            return replace(n, range=ast.BinOp("&&", guard, n.range))
        if n.kind == "exists":
            return replace(n, body=ast.BinOp("&&", guard, n.body))
        return replace(n, range=guard)

    return rebuild(e, fn)  # type: ignore[return-value]


def _atomic(e: ast.Expr) -> bool:
    if isinstance(e, ast.TupleExpr):
        return all(_atomic(x) for x in e.elems)
    return isinstance(e, (ast.Name, ast.IntLit, ast.BoolLit, ast.CharLit))


def _binders_in(e: ast.Node) -> set[str]:
    out: set[str] = set()
    for n in walk(e):
        out |= bound_names(n)
    return out


def _names_in(e: ast.Node) -> set[str]:
    return {n.name for n in walk(e) if isinstance(n, ast.Name)} | _binders_in(e)


def _formal_type(var: str, q: ast.Quantifier, ghosts: GhostIndex) -> ast.Type | None:
    """The type of the parameter an untyped bound variable is passed to, as such, in the quantifier."""
    formals = dict(ghosts.formals)
    for n in walk(q):
        if isinstance(n, ast.Call) and isinstance(n.callee, ast.Name) and n.callee.name in formals:
            types = formals[n.callee.name]
            for a, t in zip(n.args, types):
                if isinstance(a, ast.Name) and a.name == var:
                    return t
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
            return f"{n.name} is ghost"
        if isinstance(n, (ast.Name, ast.MemberSelect)) and n.name in ghosts.bodiless:
            return f"{n.name} has no body"
        if isinstance(n, ast.MemberSelect) and n.name in ("requires", "reads"):
            return f".{n.name} of a function is ghost"  # keywords: no field can have these names
        if isinstance(n, ast.MemberSelect) and n.name in ghosts.names:
            return f"{n.name} is ghost"
        if isinstance(n, (ast.Quantifier, ast.SetComprehension, ast.MapComprehension)):
            if getattr(n, "infinite", False):
                return "infinite comprehension"
            free = unbounded_vars(n)
            if free:
                return f"unbounded quantifier over {', '.join(free)}"
    return None


def unbounded_vars(q: ast.Quantifier | ast.SetComprehension | ast.MapComprehension) -> list[str]:
    """Bound variables with no enumerable bound: neither `v in E`, nor a lower and an upper bound."""
    conjuncts: list[ast.Expr] = []
    if q.range is not None:
        conjuncts += _conjuncts(q.range)
    if isinstance(q, ast.Quantifier):
        body = q.body
        if q.kind == "forall" and isinstance(body, ast.BinOp) and body.op == "==>":
            conjuncts += _conjuncts(body.left)
        elif q.kind == "exists":
            conjuncts += _conjuncts(body)
    out = []
    for v in q.vars:
        if _finite_type(v.type):
            continue
        lower = isinstance(v.type, ast.NamedType) and v.type.name == "nat"
        upper = False
        member = False
        for c in conjuncts:
            lo, hi, mem = _bounds(c, v.name)
            lower, upper, member = lower or lo, upper or hi, member or mem
        if not (member or (lower and upper)):
            out.append(v.name)
    return out


def _finite_type(t: ast.Type | None) -> bool:
    return isinstance(t, ast.NamedType) and t.name in ("bool", "char") or (
        isinstance(t, ast.NamedType) and t.name.startswith("bv"))


def _conjuncts(e: ast.Expr) -> list[ast.Expr]:
    if isinstance(e, ast.BinOp) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _is(e: ast.Expr, name: str) -> bool:
    return isinstance(e, ast.Name) and e.name == name


def _bounds(c: ast.Expr, name: str) -> tuple[bool, bool, bool]:
    pairs: list[tuple[ast.Expr, str, ast.Expr]] = []
    if isinstance(c, ast.BinOp):
        if c.op == "in" and _is(c.left, name):
            return False, False, True
        pairs.append((c.left, c.op, c.right))
    elif isinstance(c, ast.Chain):
        pairs += list(zip(c.operands, c.ops, c.operands[1:]))
    lower = upper = False
    for a, op, b in pairs:
        if op == "==" and (_is(a, name) or _is(b, name)):
            return True, True, False
        if (op in _LOWER and _is(b, name)) or (op in (">", ">=") and _is(a, name)):
            lower = True
        if (op in _UPPER and _is(a, name)) or (op in (">", ">=") and _is(b, name)):
            upper = True
    return lower, upper, False

"""Can a contract clause be compiled into an `expect`? If not, why (it is then listed as unchecked).

Not compilable: two-state and allocation forms (old, fresh, unchanged, allocated), calls of ghost
members (lemmas, ghost functions, least/greatest predicates), functions without a body, ghost fields and constants, statements in
expressions, let-such-that, and quantifiers or comprehensions whose bound variables have no bounds
Dafny could enumerate (`forall x: int :: ...`).
"""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.partition.contracts import iter_members
from dspec2test.partition.walk import called_names, rebuild, walk

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
        return GhostIndex(frozenset(ghosts), frozenset(bodiless - ghosts), inlinable)


def unghosted(e: ast.Expr, ghosts: GhostIndex, depth: int = 3) -> ast.Expr | None:
    """`e` with calls of inlinable ghost functions replaced by their bodies (`var p := arg; body`), a
    few levels deep, when that makes it compilable; else None. `ensures correct_pair(r, s, t)` over a ghost
    predicate whose body a test can evaluate is then checked, not listed."""
    bodies = dict(ghosts.inlinable)
    if not bodies or any(isinstance(n, ast.Old) for n in walk(e)):
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

    out = e
    for _ in range(depth):
        out = rebuild(out, inline)  # type: ignore[assignment]
        if why_not_compilable(out, ghosts) is None:
            return out
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

"""Quantifiers over tuples, for Dafny's compiler and for the solver alike: one bound variable per component.

Neither Dafny (compiling a check) nor our encoder (expanding a quantifier over a small range) can bound a
tuple-typed bound variable: `forall iv | valid(s, iv) :: length(iv) <= n` stays a quantifier over all
pairs of integers. Split into `iv_0, iv_1`, with the functions called on them inlined and lets of plain
names substituted, the bounds `0 <= iv.0 <= iv.1 <= |s|` inside `valid` bound each component.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from dspec2test.dafny import ast
from dspec2test.model.contracts import iter_members
from dspec2test.model.types import TypeIndex
from dspec2test.model.walk import (bound_names, called_names, conj, conjuncts, free_names, is_name, rebuild,
                                      substitute, walk)

_LOWER = {"<=", "<"}  # lo OP v
_UPPER = {"<", "<="}  # v OP hi


@dataclass(frozen=True)
class Tuples:
    """What splitting a program's quantifiers over tuples needs: its types, the parameter types of its
    functions and the bodies that may be inlined (module level, not recursive, not opaque), by short
    name where that name is unique."""

    types: TypeIndex
    formals: dict[str, tuple[ast.Type, ...]]
    bodies: dict[str, ast.Function]

    @staticmethod
    def of(program: ast.Program) -> "Tuples":
        named: dict[str, list[tuple[object, ast.Decl]]] = {}
        for scope, d in iter_members(program.decls):
            named.setdefault(getattr(d, "name", ""), []).append((scope, d))
        unique = [(name, scope, d) for name, [(scope, d)] in ((n, v) for n, v in named.items() if len(v) == 1)
                  if isinstance(d, ast.Function) and not d.type_params]
        formals = {name: tuple(p.type for p in d.params) for name, _, d in unique}
        bodies = {name: d for name, scope, d in unique
                  if d.body is not None and getattr(scope, "owner", None) is None
                  and name not in called_names(d.body)
                  and not any(a.name in ("opaque", "extern") for a in d.attributes)}
        return Tuples(TypeIndex.of(program), formals, bodies)

    def split(self, e: ast.Expr) -> ast.Expr:
        return split_for_solver(e, self.types, self.formals, self.bodies)


def inline_calls(e: ast.Expr, bodies: dict[str, ast.Function]) -> ast.Expr:
    """Calls of these functions (by short name, positional) as `var p := arg; body`, one level."""

    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.Call) and isinstance(n.callee, ast.Name) and n.callee.name in bodies and n.label is None:
            f = bodies[n.callee.name]
            if len(n.args) != len(f.params) or any(a is not None for a in n.arg_names) or f.body is None:
                return None
            if not f.params:
                return f.body
            return ast.Let(tuple(ast.PatVar(p.name) for p in f.params), n.args, f.body)
        return None

    return rebuild(e, fn)


def split_for_solver(e: ast.Expr, types: TypeIndex, formals: dict[str, tuple[ast.Type, ...]],
                     bodies: dict[str, ast.Function], depth: int = 3) -> ast.Expr:
    """`e` with its quantifiers over tuples split, the functions they call inlined (a few levels) and
    each component bounded on its own where a chain bounds it: the same formula, which the encoder can
    expand instead of leaving to Z3 as a quantifier. `e` itself when it has no such quantifier."""
    out = split_tuple_vars(e, types, formals)
    if out == e:
        return e
    for _ in range(depth):
        inlined = inline_calls(out, bodies)
        if inlined == out:
            break
        out = inlined
    return explicit_bounds(reduce_lets(out))


def split_tuple_vars(e: ast.Expr, types: TypeIndex, formals: dict[str, tuple[ast.Type, ...]]) -> ast.Expr:
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
            t = v.type if v.type is not None else _formal_type(v.name, n, formals)
            base = types.base(t) if t is not None else None
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
            guards += [substitute(c, {v.name: tup}) for c in types.constraints(v.name, t)]
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

    return rebuild(e, fn)


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

    return rebuild(e, fn)


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
        for c in conjuncts(domain):
            if not isinstance(c, ast.Chain) or not all(op in ("<", "<=") for op in c.ops):
                continue
            for k, x in enumerate(c.operands):
                if not (isinstance(x, ast.Name) and x.name in names):
                    continue
                lo = next(((j, y) for j, y in reversed(list(enumerate(c.operands[:k]))) if not free_names(y) & names), None)
                hi = next(((j, y) for j, y in enumerate(c.operands) if j > k and not free_names(y) & names), None)
                parts: list[Any] = []  # operand, operator, operand, ...: alternating
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

    return rebuild(e, fn)


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


def _formal_type(var: str, q: ast.Quantifier, formals: dict[str, tuple[ast.Type, ...]]) -> ast.Type | None:
    """The type of the parameter an untyped bound variable is passed to, as such, in the quantifier."""
    for n in walk(q):
        if isinstance(n, ast.Call) and isinstance(n.callee, ast.Name) and n.callee.name in formals:
            types = formals[n.callee.name]
            for a, t in zip(n.args, types):
                if isinstance(a, ast.Name) and a.name == var:
                    return t
    return None


def unbounded_vars(q: ast.Quantifier | ast.SetComprehension | ast.MapComprehension) -> list[str]:
    """Bound variables with no enumerable bound: neither `v in E`, nor a lower and an upper bound."""
    parts: list[ast.Expr] = []
    if q.range is not None:
        parts += conjuncts(q.range)
    if isinstance(q, ast.Quantifier):
        body = q.body
        if q.kind == "forall" and isinstance(body, ast.BinOp) and body.op == "==>":
            parts += conjuncts(body.left)
        elif q.kind == "exists":
            parts += conjuncts(body)
    out = []
    for v in q.vars:
        if _finite_type(v.type):
            continue
        lower = isinstance(v.type, ast.NamedType) and v.type.name == "nat"
        upper = False
        member = False
        for c in parts:
            lo, hi, mem = _bounds(c, v.name)
            lower, upper, member = lower or lo, upper or hi, member or mem
        if not (member or (lower and upper)):
            out.append(v.name)
    return out


def _finite_type(t: ast.Type | None) -> bool:
    return isinstance(t, ast.NamedType) and t.name in ("bool", "char") or (
        isinstance(t, ast.NamedType) and t.name.startswith("bv"))


def _bounds(c: ast.Expr, name: str) -> tuple[bool, bool, bool]:
    pairs: list[tuple[ast.Expr, str, ast.Expr]] = []
    if isinstance(c, ast.BinOp):
        if c.op == "in" and is_name(c.left, name):
            return False, False, True
        pairs.append((c.left, c.op, c.right))
    elif isinstance(c, ast.Chain):
        pairs += list(zip(c.operands, c.ops, c.operands[1:]))
    lower = upper = False
    for a, op, b in pairs:
        if op == "==" and (is_name(a, name) or is_name(b, name)):
            return True, True, False
        if (op in _LOWER and is_name(b, name)) or (op in (">", ">=") and is_name(a, name)):
            lower = True
        if (op in _UPPER and is_name(a, name)) or (op in (">", ">=") and is_name(b, name)):
            upper = True
    return lower, upper, False

"""Lifting value-level if-then-else and match out of the atoms they sit in.

`P(if c then a else b)` is `if c then P(a) else P(b)`, which the DNF splits into `c && P(a)` and
`!c && P(b)`; `P(match s case p1 => a case p2 => b)` is `match s case p1 => P(a) case p2 => P(b)`, one branch
per case. Only positions the atom evaluates whenever it is evaluated are lifted from: operands of strict
operators, call arguments, indices, let values and bodies; never a branch of a conditional, the right
operand of `&&`, `||`, `==>` or `<==`, or the inside of a quantifier, comprehension, lambda or `old`. So a
lifted condition is evaluated exactly where the atom would evaluate it, and Safe DNF stays safe.

A short-circuit operator whose guarded operand holds something to lift is a conditional itself
(`A && B` is `if A then B else false`) and is lifted first, so `i < |s| && (if s[i] > 0 then ...)`
gives `i < |s|` as a guard before `s[i] > 0` is ever looked at. A let in a value position moves out to
the atom (its names renamed where they would capture one of the atom's), and the DNF's let rule then
splits its body.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from dspec2test.dafny import ast
from dspec2test.partition.patterns import Ctors
from dspec2test.partition.walk import bound_names, free_names, pattern_names, rebuild, substitute

Plug = Callable[[ast.Expr], ast.Expr]

_SHORT = ("&&", "||", "==>", "<==")
# binders and state changes: their inside is evaluated under other names, or in another state
_OPAQUE = (ast.Quantifier, ast.SetComprehension, ast.MapComprehension, ast.Lambda, ast.SeqInit, ast.StmtExpr,
           ast.Old, ast.Fresh, ast.Unchanged, ast.Allocated, ast.MatchCase, ast.Attribute)
_HOLE = "\0hole"


def lift(e: ast.Expr, ctors: Ctors | None = None) -> ast.Expr | None:
    """An equivalent expression with a conditional, match or let on top, for the DNF to split; None when
    nothing in `e`'s always-evaluated positions can be lifted. For a let, only its values are looked at
    (the DNF splits its body, and lifts the atoms it finds there). `ctors` tells constructor names in case
    patterns from the variables they bind."""
    ctors = ctors or Ctors({})
    if isinstance(e, ast.Let):
        if not _plain_let(e):
            return None
        for k, v in enumerate(e.values):
            if _is_site(v):
                return _lift_site(v, lambda x, k=k: dataclasses.replace(e, values=_put(e.values, k, x)), ctors)
            found = _first_site(v)
            if found is not None:
                node, plug = found
                return _lift_site(node, lambda x, k=k, plug=plug: dataclasses.replace(
                    e, values=_put(e.values, k, plug(x))), ctors)
        return None
    found = _first_site(e)
    if found is None:
        return None
    return _lift_site(*found, ctors)


def _lift_site(node: ast.Expr, plug: Plug, ctors: Ctors) -> ast.Expr:
    if isinstance(node, ast.IfThenElse):
        return ast.IfThenElse(node.cond, plug(node.then), plug(node.els), span=node.span)
    if isinstance(node, ast.BinOp):  # a short-circuit operator: a conditional on its left operand
        a, b = node.left, node.right
        yes, no = {"&&": (b, ast.BoolLit(False)), "||": (ast.BoolLit(True), b), "==>": (b, ast.BoolLit(True)),
                   "<==": (ast.BoolLit(True), ast.UnOp("!", b))}[node.op]
        return ast.IfThenElse(a, plug(yes), plug(no), span=node.span)
    outside = free_names(plug(ast.Name(_HOLE))) - {_HOLE}
    if isinstance(node, ast.MatchExpr):
        cases = []
        for case in node.cases:
            pattern, body = _rename_apart(case.pattern, case.body, outside, ctors)  # type: ignore[arg-type]
            cases.append(ast.MatchCase(pattern, plug(body), case.attributes, span=case.span))
        return ast.MatchExpr(node.scrutinee, tuple(cases), span=node.span)
    assert isinstance(node, ast.Let)
    pats, body = node.pats, node.body
    clash = {n for p in pats for n in pattern_names(p)} & outside
    if clash:
        fresh = _fresh_names(clash, outside | free_names(node))
        pats = tuple(_rename_pattern(p, fresh) for p in pats)
        body = substitute(body, {k: ast.Name(v) for k, v in fresh.items()})
    return dataclasses.replace(node, pats=pats, body=plug(body))


def _is_site(e: ast.Node) -> bool:
    """A node lifting rewrites: a conditional, a match of expressions, a let, or a short-circuit operator
    with something to lift in its guarded operand."""
    if isinstance(e, ast.IfThenElse):
        return not e.binding
    if isinstance(e, ast.MatchExpr):
        return bool(e.cases) and all(isinstance(c.body, ast.Node) for c in e.cases)
    if isinstance(e, ast.Let):
        return _plain_let(e) and (any(_has_site(v) for v in e.values) or _has_site(e.body))
    if isinstance(e, ast.BinOp) and e.op in _SHORT:
        return _has_site(e.right)
    return False


def _has_site(e: ast.Node) -> bool:
    return _is_site(e) or _first_site(e) is not None


def _plain_let(e: ast.Let) -> bool:
    return e.such_that is None and not e.fail_op and len(e.pats) == len(e.values)


def _first_site(e: ast.Node) -> tuple[ast.Expr, Plug] | None:
    """The first site among e's always-evaluated proper subexpressions, in evaluation order."""
    for child, plug in _evaluated_children(e):
        if _is_site(child):
            return child, plug  # type: ignore[return-value]
        inner = _first_site(child)
        if inner is not None:
            node, inner_plug = inner
            return node, (lambda x, plug=plug, inner_plug=inner_plug: plug(inner_plug(x)))
    return None


def _evaluated_children(e: ast.Node) -> Iterator[tuple[ast.Node, Plug]]:
    """The children evaluated whenever e is, each with a function that rebuilds e around a replacement."""
    if isinstance(e, _OPAQUE) or isinstance(e, (ast.IfThenElse, ast.MatchExpr, ast.Let)):
        return  # branches and bodies: guarded or under binders (the nodes themselves are sites)
    if isinstance(e, ast.Chain):  # `a < b < c` is `a < b && b < c`: c only when a < b
        for k in range(min(2, len(e.operands))):
            yield e.operands[k], (lambda x, k=k: dataclasses.replace(e, operands=_put(e.operands, k, x)))
        return
    for f in dataclasses.fields(e):
        if f.name == "span":
            continue
        if isinstance(e, ast.BinOp) and e.op in _SHORT and f.name == "right":
            continue
        value = getattr(e, f.name)
        if isinstance(value, ast.Node) and _is_expr(value):
            yield value, (lambda x, name=f.name: dataclasses.replace(e, **{name: x}))
        elif isinstance(value, tuple):
            for k, item in enumerate(value):
                if isinstance(item, ast.Node) and _is_expr(item):
                    yield item, (lambda x, name=f.name, k=k, value=value: dataclasses.replace(
                        e, **{name: _put(value, k, x)}))


def _is_expr(n: ast.Node) -> bool:
    return not isinstance(n, (ast.NamedType, ast.TupleType, ast.ArrowType, ast.Attribute, ast.BoundVar))


def _put(items: tuple, k: int, x: object) -> tuple:
    return items[:k] + (x,) + items[k + 1:]


# ---------------------------------------------------------------- renaming apart


def _rename_apart(pattern: ast.Pattern, body: ast.Expr, taken: frozenset[str],
                  ctors: Ctors) -> tuple[ast.Pattern, ast.Expr]:
    """A case whose variables would capture names of the surrounding atom, with those variables renamed
    (a bare constructor name in a pattern binds nothing, and keeps its name)."""
    clash = {n for n in pattern_names(pattern) if not ctors.nullary(n.split(".")[-1])} & taken
    if not clash:
        return pattern, body
    fresh = _fresh_names(clash, taken | free_names(body))
    return _rename_pattern(pattern, fresh), substitute(body, {k: ast.Name(v) for k, v in fresh.items()})


def _fresh_names(names: set[str], taken: frozenset[str]) -> dict[str, str]:
    out = {}
    used = set(taken)
    for n in sorted(names):
        m = n + "'"
        while m in used:
            m += "'"
        used.add(m)
        out[n] = m
    return out


def _rename_pattern(p: ast.Pattern, fresh: dict[str, str]) -> ast.Pattern:
    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, (ast.PatVar, ast.PatBind)) and n.name in fresh:
            return dataclasses.replace(n, name=fresh[n.name])
        return None

    return rebuild(p, fn)  # type: ignore[return-value]


def binds_over(e: ast.Node) -> frozenset[str]:
    """Every name some binder inside e binds (a substitution of an expression mentioning one may capture)."""
    out: set[str] = set()
    stack = [e]
    while stack:
        n = stack.pop()
        out |= bound_names(n)
        stack.extend(c for c in _all_children(n))
    return frozenset(out)


def _all_children(n: ast.Node) -> Iterator[ast.Node]:
    for f in dataclasses.fields(n):
        if f.name == "span":
            continue
        v = getattr(n, f.name)
        if isinstance(v, ast.Node):
            yield v
        elif isinstance(v, tuple):
            for item in v:
                if isinstance(item, ast.Node):
                    yield item
                elif isinstance(item, tuple):
                    yield from (x for x in item if isinstance(x, ast.Node))

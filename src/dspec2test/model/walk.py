"""Generic traversal of the frozen AST: children, rebuilding with a function, names bound by binders.

The AST nodes are dataclasses whose fields hold nodes, tuples of nodes or plain values, so one generic
walker serves every node kind; only binders (quantifiers, comprehensions, lambdas, lets, match cases)
need to know which names they bind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar, cast

from dspec2test.dafny import ast


N = TypeVar("N", bound=ast.Node)


def children(node: ast.Node) -> Iterator[ast.Node]:
    for f in dataclasses.fields(node):
        if f.name in ast.NOT_CHILDREN:
            continue
        yield from _nodes_in(getattr(node, f.name))


def _nodes_in(v: object) -> Iterator[ast.Node]:
    if isinstance(v, ast.Node):
        yield v
    elif isinstance(v, tuple):
        for item in v:
            yield from _nodes_in(item)


def walk(node: ast.Node) -> Iterator[ast.Node]:
    """Every node below and including `node`, pre-order."""
    yield node
    for c in children(node):
        yield from walk(c)


def bound_names(node: ast.Node) -> frozenset[str]:
    """Names a binder node introduces for its sub-expressions."""
    if isinstance(node, (ast.Quantifier, ast.SetComprehension, ast.MapComprehension)):
        return frozenset(v.name for v in node.vars)
    if isinstance(node, ast.Lambda):
        return frozenset(v.name for v in node.params)
    if isinstance(node, ast.Let):
        return frozenset(n for p in node.pats for n in pattern_names(p))
    if isinstance(node, ast.MatchCase):
        return frozenset(pattern_names(node.pattern))
    if isinstance(node, ast.IfThenElse) and node.binding:
        return frozenset(v.name for v in node.binding)
    return frozenset()


def pattern_names(p: ast.Pattern) -> Iterator[str]:
    if isinstance(p, ast.PatVar):
        yield p.name
    elif isinstance(p, ast.PatCtor):
        for a in p.args:
            yield from pattern_names(a)
    elif isinstance(p, ast.PatTuple):
        for a in p.elems:
            yield from pattern_names(a)
    elif isinstance(p, ast.PatAlt):
        for a in p.alts:
            yield from pattern_names(a)
    elif isinstance(p, ast.PatBind):
        yield p.name
        yield from pattern_names(p.pattern)


def free_names(e: ast.Node) -> frozenset[str]:
    """Names used in `e` that no binder inside `e` binds. A let's values are outside its own binding
    (`var y := y; ...` uses the y around it): a capture check that missed that moved a let over it."""
    out: set[str] = set()

    def go(n: ast.Node, bound: frozenset[str]) -> None:
        if isinstance(n, ast.Name) and n.name not in bound:
            out.add(n.name)
        inner = bound | bound_names(n)
        if isinstance(n, ast.Let) and n.such_that is None:
            for v in n.values:
                go(v, bound)
            go(n.body, inner)
            return
        for c in children(n):
            go(c, inner)

    go(e, frozenset())
    return frozenset(out)


def rebuild(node: N, fn: Callable[[ast.Node], ast.Node | None]) -> N:
    """Bottom-up rewrite: children first, then `fn(node)` (None keeps the node as rebuilt).

    Typed as giving back what it was given (an expression for an expression, a type for a type): `fn`
    replaces a node only by one of the same category, which the dataclass fields it lands in require."""
    new = map_children(node, lambda child: rebuild(child, fn))
    out = fn(new)
    return new if out is None else cast(N, out)


def map_children(node: N, fn: Callable[[ast.Node], ast.Node]) -> N:
    """The node with `fn` applied to each child (top-down rewrites that decide themselves where to recurse)."""
    changes = {}
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        v = getattr(node, f.name)
        nv = _map_value(v, fn)
        if nv is not v:
            changes[f.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


def _map_value(v: object, fn: Callable[[ast.Node], ast.Node]) -> object:
    if isinstance(v, ast.Node):
        return fn(v)
    if isinstance(v, tuple):
        items = tuple(_map_value(i, fn) for i in v)
        return v if all(a is b for a, b in zip(items, v)) else items
    return v


def substitute(e: ast.Expr, mapping: Mapping[str, ast.Expr]) -> ast.Expr:
    """Replace free occurrences of names; binders that rebind a name hide it from their scope."""

    def go(n: ast.Node, live: dict[str, ast.Expr]) -> ast.Node:
        if not live:
            return n
        if isinstance(n, ast.Name) and n.name in live:
            return live[n.name]
        hidden = bound_names(n)
        inner = {k: v for k, v in live.items() if k not in hidden} if hidden else live
        changes = {}
        for f in dataclasses.fields(n):
            if f.name == "span":
                continue
            v = getattr(n, f.name)
            nv = _sub_value(v, inner, go)
            if nv is not v:
                changes[f.name] = nv
        return dataclasses.replace(n, **changes) if changes else n

    return cast(ast.Expr, go(e, dict(mapping)))  # a name is replaced by an expression: still an expression


def _sub_value(v: object, live: dict[str, ast.Expr],
               go: Callable[[ast.Node, dict[str, ast.Expr]], ast.Node]) -> object:
    if isinstance(v, ast.Node):
        return go(v, live)
    if isinstance(v, tuple):
        items = tuple(_sub_value(i, live, go) for i in v)
        return v if all(a is b for a, b in zip(items, v)) else items
    return v


def called_names(e: ast.Node) -> set[str]:
    """Short names of the functions `e` calls, by name or as a member (`f(x)`, `o.f(x)`)."""
    return {n.callee.name for n in walk(e)
            if isinstance(n, ast.Call) and isinstance(n.callee, (ast.Name, ast.MemberSelect))}


def conj(lits: tuple[ast.Expr, ...] | list[ast.Expr]) -> ast.Expr:
    """Left-nested `&&` of the literals; `true` when there are none."""
    if not lits:
        return ast.BoolLit(True)
    out = lits[0]
    for lit in lits[1:]:
        out = ast.BinOp("&&", out, lit)
    return out


def negate(e: ast.Expr) -> ast.Expr:
    if isinstance(e, ast.UnOp) and e.op == "!":
        return e.operand
    if isinstance(e, ast.BoolLit):
        return ast.BoolLit(not e.value)
    return ast.UnOp("!", e, span=e.span)


def conjuncts(e: ast.Expr) -> list[ast.Expr]:
    """`a && (b && c)` as [a, b, c]."""
    if isinstance(e, ast.BinOp) and e.op == "&&":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


ORDER_OPS = frozenset({"<", "<=", ">", ">="})


def comparisons(c: ast.Expr) -> list[tuple[ast.Expr, str, ast.Expr]]:
    """A comparison or chain as (left, op, right) pairs, `>`/`>=` turned around; [] for anything else."""
    if isinstance(c, ast.BinOp) and c.op in ORDER_OPS:
        pairs = [(c.left, c.op, c.right)]
    elif isinstance(c, ast.Chain) and all(op in ORDER_OPS for op in c.ops):
        pairs = list(zip(c.operands, c.ops, c.operands[1:]))
    else:
        return []
    flip = {">": "<", ">=": "<="}
    return [(b, flip[op], a) if op in flip else (a, op, b) for a, op, b in pairs]


def is_name(e: ast.Expr, name: str) -> bool:
    return isinstance(e, ast.Name) and e.name == name


def dotted(e: ast.Expr) -> str | None:
    """`a.b.c` for a name or a chain of member selections on one (None for anything else)."""
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.MemberSelect):
        head = dotted(e.obj)
        return None if head is None else f"{head}.{e.name}"
    return None

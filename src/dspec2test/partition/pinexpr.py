"""The Dafny expressions pins are made of (diversity.py, witnesses.py): conjunctions, chains, quantifiers
over an index, counts, fresh names, and the subexpressions of a literal outside its binders."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dspec2test.dafny import ast
from dspec2test.model.walk import bound_names, children


def free_nodes(e: ast.Node, bound: frozenset[str] = frozenset()) -> Iterator[tuple[ast.Node, frozenset[str]]]:
    """Every node with the names bound above it."""
    yield e, bound
    inner = bound | bound_names(e)
    for c in children(e):
        yield from free_nodes(c, inner)


ZERO = ast.IntLit(0)


def nodes(e: ast.Node) -> Iterator[ast.Node]:
    yield e
    for c in children(e):
        yield from nodes(c)


def all_names(e: ast.Node) -> set[str]:
    out: set[str] = set()
    for n in nodes(e):
        if isinstance(n, ast.Name):
            out.add(n.name)
        out |= bound_names(n)
    return out


def fresh(base: str, taken: set[str]) -> str:
    name = base
    while name in taken:
        name += "'"
    return name


def chain(*parts: Any) -> ast.Expr:
    operands = tuple(parts[0::2])
    ops = tuple(parts[1::2])
    if len(ops) == 1:
        return ast.BinOp(ops[0], operands[0], operands[1])
    return ast.Chain(operands, ops)


def eq(a: ast.Expr, b: ast.Expr) -> ast.Expr:
    return ast.BinOp("==", a, b)


def and_all(*es: ast.Expr) -> ast.Expr:
    out = es[0]
    for e in es[1:]:
        out = ast.BinOp("&&", out, e)
    return out


def or_all(*es: ast.Expr) -> ast.Expr:
    out = es[0]
    for e in es[1:]:
        out = ast.BinOp("||", out, e)
    return out


def not_(e: ast.Expr) -> ast.Expr:
    return ast.UnOp("!", e)


def plus(e: ast.Expr, k: int) -> ast.Expr:
    if isinstance(e, ast.IntLit):
        return ast.IntLit(e.value + k)
    return ast.BinOp("+", e, ast.IntLit(k))


def minus(e: ast.Expr, k: int) -> ast.Expr:
    if isinstance(e, ast.IntLit) and e.value >= k:
        return ast.IntLit(e.value - k)
    return ast.BinOp("-", e, ast.IntLit(k))


def exists_of(vs: list[ast.Name], body: ast.Expr) -> ast.Expr:
    return ast.Quantifier("exists", tuple(ast.BoundVar(v.name) for v in vs), None, body)


def count_of(i: ast.Name, range_: ast.Expr) -> ast.Expr:
    """`|set i | range|`"""
    return ast.Cardinality(ast.SetComprehension((ast.BoundVar(i.name),), range_, None))


def forall_of(vs: list[ast.Name], range_: ast.Expr, body: ast.Expr) -> ast.Expr:
    return ast.Quantifier("forall", tuple(ast.BoundVar(v.name) for v in vs), None, ast.BinOp("==>", range_, body))

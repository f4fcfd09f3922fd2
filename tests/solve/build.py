"""Tiny AST builders for solver tests (the parser is another stage; these keep tests independent of it)."""

from __future__ import annotations

from dataclasses import replace

from dspec2test.dafny import ast as A


def T(name: str, *args) -> A.NamedType:
    return A.NamedType(name, tuple(args))


def n(name: str) -> A.Name:
    return A.Name(name)


def i(v: int) -> A.IntLit:
    return A.IntLit(v)


def op(o: str, left, right) -> A.BinOp:
    return A.BinOp(o, left, right)


def chain(*parts) -> A.Chain:
    """chain(0, "<=", n("x"), "<", card(n("s")))"""
    operands = tuple(i(p) if isinstance(p, int) else p for p in parts[0::2])
    return A.Chain(operands, tuple(parts[1::2]))


def card(e) -> A.Cardinality:
    return A.Cardinality(e)


def idx(s, k) -> A.Index:
    return A.Index(s, (i(k) if isinstance(k, int) else k,))


def call(f: str, *args) -> A.Call:
    return A.Call(A.Name(f), tuple(args))


def forall(var: str, body, typ=None, rng=None) -> A.Quantifier:
    return A.Quantifier("forall", (A.BoundVar(var, typ),), rng, body)


def exists(var: str, body, typ=None, rng=None) -> A.Quantifier:
    return A.Quantifier("exists", (A.BoundVar(var, typ),), rng, body)


def ite(c, a, b) -> A.IfThenElse:
    return A.IfThenElse(c, a, b)


def sel(obj, name: str) -> A.MemberSelect:
    return A.MemberSelect(obj, name)


def at(line: int, node):
    """The node with a span on `line` (for Unsupported positions)."""

    return replace(node, span=A.Span(line, 5, line, 9))


def program(*decls) -> A.Program:
    return A.Program("t.dfy", (), tuple(decls))


def formal(name: str, t) -> A.Formal:
    return A.Formal(name, t)


def function(name: str, params, result_type, body, kind="function", type_params=()) -> A.Function:
    return A.Function(kind, name, tuple(formal(p, t) for p, t in params),
                      A.Formal("", result_type) if result_type is not None else None, A.Spec(), body,
                      type_params=tuple(A.TypeParam(p) for p in type_params))

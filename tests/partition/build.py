"""Hand-built AST helpers for tests (until/besides the parser): short names for common nodes."""

from __future__ import annotations

from dspec2test.dafny import ast

INT = ast.NamedType("int")
BOOL = ast.NamedType("bool")
SEQ_INT = ast.NamedType("seq", (INT,))


def n(name: str) -> ast.Name:
    return ast.Name(name)


def i(value: int) -> ast.Expr:
    return ast.IntLit(value) if value >= 0 else ast.UnOp("-", ast.IntLit(-value))


def b(op: str, left: ast.Expr, right: ast.Expr) -> ast.BinOp:
    return ast.BinOp(op, left, right)


def card(e: ast.Expr) -> ast.Cardinality:
    return ast.Cardinality(e)


def chain(*parts) -> ast.Chain:
    """chain(a, "<=", b, "<", c)"""
    return ast.Chain(tuple(parts[0::2]), tuple(parts[1::2]))


def clause(kind: str, expr: ast.Expr, line: int) -> ast.Clause:
    return ast.Clause(kind, (expr,), span=ast.Span(line, 3, line, 40))


def method(name: str, params, returns, requires=(), ensures=(), line: int = 1, body: bool = True,
           attributes=()) -> ast.Method:
    return ast.Method(
        "method", name,
        tuple(ast.Formal(p, t) for p, t in params),
        tuple(ast.Formal(p, t) for p, t in returns),
        ast.Spec(requires=tuple(requires), ensures=tuple(ensures)),
        ast.Block(()) if body else None,
        attributes=tuple(attributes),
        span=ast.Span(line, 1, line, 10),
    )


def program(*decls, path: str = "prog.dfy") -> ast.Program:
    return ast.Program(path, (), tuple(decls))


def conditional_get() -> ast.Program:
    s, x, r = n("s"), n("x"), n("r")
    return program(method(
        "ConditionalGet", [("s", SEQ_INT), ("x", INT)], [("r", INT)],
        ensures=[
            clause("ensures", b("==>", b("<", x, i(0)), b("==", r, i(-1))), 2),
            clause("ensures", b("==>", b(">=", x, card(s)), b("==", r, i(1))), 3),
            clause("ensures", b("==>", chain(i(0), "<=", x, "<", card(s)), b("==", r, ast.Index(s, (x,)))), 4),
        ]))


def abs_or() -> ast.Program:
    x, r = n("x"), n("r")
    return program(method("AbsOr", [("x", INT)], [("r", INT)],
                          ensures=[clause("ensures", b("||", b("==", r, x), b("==", r, ast.UnOp("-", x))), 2)]))


def lifted() -> ast.Program:
    """Value-level conditional and match (datatype Opt = None | Some(value: int))."""
    x, r, m, o = n("x"), n("r"), n("m"), n("o")
    opt = ast.Datatype("Opt", (ast.Ctor("None", ()), ast.Ctor("Some", (ast.Formal("value", INT),))))
    match = ast.MatchExpr(o, (ast.MatchCase(ast.PatVar("None"), i(0)),
                              ast.MatchCase(ast.PatCtor("Some", (ast.PatVar("v"),)), b("*", i(2), n("v")))))
    return program(opt, method("Lifted", [("x", INT), ("o", ast.NamedType("Opt"))], [("r", INT), ("m", INT)], ensures=[
        clause("ensures", b("==", r, ast.IfThenElse(b(">", x, i(0)), x, ast.UnOp("-", x))), 2),
        clause("ensures", b("==", m, match), 3)]))

"""Small helpers shared by the parser tests: parse a snippet, pull out one expression or statement."""

from __future__ import annotations

from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import parse_program


def program(src: str) -> A.Program:
    return parse_program(src, "test.dfy")


def expr(src: str) -> A.Expr:
    """The body of `function f(): int` whose body is `src`, placed at line 3, column 1."""
    prog = program("function f(): int\n{\n" + src + "\n}\n")
    body = prog.decls[0].body
    assert body is not None
    return body


def stmts(src: str) -> tuple[A.Stmt, ...]:
    """The statements of a method body `src`, which starts at line 2, column 1."""
    prog = program("method m() {\n" + src + "\n}\n")
    return prog.decls[0].body.stmts


def stmt(src: str) -> A.Stmt:
    (only,) = stmts(src)
    return only


def pos(node: A.Node) -> tuple[int, int, int, int]:
    s = node.span
    return (s.line, s.col, s.end_line, s.end_col)


def text_of(prog: A.Program, node: A.Node) -> str:
    return prog.text[node.span.start : node.span.end]

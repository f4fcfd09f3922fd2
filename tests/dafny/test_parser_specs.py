"""Specification clauses: kinds, labels, attributes, `free`, optional `;`, exact source text and lines."""

from __future__ import annotations

from dspec2test.dafny import ast as A
from parse_helpers import pos, program

SRC = """method M(a: array<int>, x: int) returns (r: int)
  requires Lab: x > 0;
  requires {:attr} (x <  100 ||
             x == 7)   // comment after the clause
  free requires x != 3
  ensures r == x + 1
  ensures forall i :: 0 <= i < a.Length ==> a[i] == old(a[i])
  modifies a, this`f
  reads *
  decreases x, 1
{
  r := x + 1;
}
"""


def test_clause_kinds_and_grouping() -> None:
    (m,) = program(SRC).decls
    spec = m.spec
    assert [c.kind for c in spec.requires] == ["requires"] * 3
    assert [c.kind for c in spec.ensures] == ["ensures"] * 2
    assert spec.modifies[0].exprs == (A.Name("a"), A.FrameField(A.ThisExpr(), "f"))
    assert spec.reads[0].exprs == (A.Wildcard(),)
    assert spec.decreases[0].exprs == (A.Name("x"), A.IntLit(1, "1"))


def test_clause_text_is_exact_source() -> None:
    (m,) = program(SRC).decls
    req = m.spec.requires
    assert req[0].text == "x > 0"  # label and `;` are not part of the expression
    assert req[1].text == "(x <  100 ||\n             x == 7)"  # spacing and newlines as written
    assert m.spec.ensures[1].text == "forall i :: 0 <= i < a.Length ==> a[i] == old(a[i])"
    assert m.spec.modifies[0].text == "a, this`f"


def test_labels_attributes_free_and_lines() -> None:
    (m,) = program(SRC).decls
    first, second, third = m.spec.requires
    assert first.label == "Lab" and first.expr == A.BinOp(">", A.Name("x"), A.IntLit(0, "0"))
    assert [a.name for a in second.attributes] == ["attr"]
    assert third.free and not first.free
    assert [c.span.line for c in m.spec.requires] == [2, 3, 5]
    assert pos(first) == (2, 3, 2, 23)
    assert pos(first.expr) == (2, 17, 2, 22)


def test_loop_invariants_and_decreases() -> None:
    prog = program("method m() {\n  while i < n\n    invariant 0 <= i <= n\n    decreases n - i\n  { i := i + 1; }\n}\n")
    (loop,) = prog.decls[0].body.stmts
    assert isinstance(loop, A.While)
    assert [c.kind for c in loop.spec] == ["invariant", "decreases"]
    assert loop.spec[0].text == "0 <= i <= n"
    assert pos(loop.spec[0]) == (3, 5, 3, 26)


def test_function_reads_then_requires() -> None:
    (f,) = program("function F(a: array<int>): int reads a requires a.Length > 0 { a[0] }").decls
    assert f.spec.reads[0].exprs == (A.Name("a"),)
    assert f.spec.requires[0].text == "a.Length > 0"


def test_let_in_clause_with_trailing_semicolons() -> None:
    src = "method m(x: int)\n  ensures var y := f(x); g(y);\n  ensures true;\n"
    (m,) = program(src).decls
    assert [c.text for c in m.spec.ensures] == ["var y := f(x); g(y)", "true"]

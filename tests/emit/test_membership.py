"""Quantifiers bounded only through a negated or two-sided membership are checked in a form Dafny compiles."""

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.membership import membership_bounded
from dspec2test.emit.tests_file import EmitContext, checks_of
from dspec2test.generate import GenerateOptions, generate
from dspec2test.model.contracts import select
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests
from dspec2test.toolchain import find_toolchain

PROG = """
method Evens(a: seq<int>) returns (r: seq<int>)
  ensures forall x :: x in r ==> x % 2 == 0
  ensures forall x :: x !in a ==> x !in r
{
  r := [];
  var i := 0;
  while i < |a| {
    if a[i] % 2 == 0 { r := r + [a[i]]; }
    i := i + 1;
  }
}

method Copy(m: map<int, int>) returns (m2: map<int, int>)
  ensures forall k :: k in m <==> k in m2
{
  m2 := m;
}
"""


def _expr(text: str):
    prog = parse_program(f"method M(a: seq<int>, m: map<int, int>) returns (r: seq<int>, m2: map<int, int>)\n"
                         f"  ensures {text}\n", "p.dfy")
    return prog.decls[0].spec.ensures[0].exprs[0]


@pytest.mark.parametrize("clause, rewritten", [
    ("forall x :: x !in a ==> x !in r", "forall x | x in r :: x in a"),
    ("forall x :: !(x in a) ==> !(x in r)", "forall x | x in r :: x in a"),
    ("forall x :: x > 0 ==> x !in r", "forall x | x in r :: !(x > 0)"),
    ("forall k :: k in m <==> k in m2", "(forall k | k in m :: k in m2) && (forall k | k in m2 :: k in m)"),
    # already bounded, or bounded by nothing a membership gives: left as written
    ("forall x :: x in r ==> x !in a", "forall x :: x in r ==> x !in a"),
    ("forall x :: x > 0 ==> x < 10", "forall x :: x > 0 ==> x < 10"),
    ("forall x :: x in m <==> x > 0", "forall x :: x in m <==> x > 0"),
])
def test_the_rewrite_is_the_same_formula_bounded_by_a_membership(clause, rewritten):
    assert print_expr(membership_bounded(_expr(clause))) == rewritten


def test_such_clauses_are_checked_not_listed():
    prog = parse_program(PROG, "p.dfy")
    ctx = EmitContext.of(prog)
    for c in select(prog):
        checks = checks_of(c, ctx)
        assert checks.unchecked == ()
    [evens, copy] = select(prog)
    assert [print_expr(e) for _, e in checks_of(evens, ctx).ensures][1] == "forall x | x in r :: x in a"


@pytest.mark.dafny
def test_a_filter_that_invents_an_element_and_a_copy_that_adds_a_key_are_caught(tmp_path):
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    good = tmp_path / "good.dfy"
    good.write_text(PROG)
    gen = generate(str(good), GenerateOptions(bva=100, probe=False))
    assert gen.cases
    passed = run_tests(str(good), gen.tests_text, gen.cases, RunOptions(target="py"))
    assert {v.status for v in passed.verdicts} == {Status.PASSED}
    bad = tmp_path / "bad.dfy"  # an even element not taken from a, a key not in m
    bad.write_text(PROG.replace("r := [];", "r := [8];").replace("m2 := m;", "m2 := m[12345 := 0];"))
    failed = run_tests(str(bad), gen.tests_text, gen.cases, RunOptions(target="py"))
    lines = {v.clause_line for v in failed.verdicts if v.status is Status.FAILED}
    assert {4, 15} <= lines

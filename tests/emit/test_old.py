"""old() in contracts of methods that modify arrays: the pre-state in the solver, snapshots in the test."""

from pathlib import Path

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests
from dspec2test.dafny.printer import print_expr, print_type
from dspec2test.emit.tests_file import EmitContext, checks_of
from dspec2test.model.contracts import pre_state_arrays, select
from dspec2test.solve import Solver

INC = """
method IncAll(a: array<int>, k: int)
  requires a.Length > 0 && a[0] == 5
  modifies a
  ensures forall i :: 0 <= i < a.Length ==> a[i] == old(a[i]) + k
  ensures old(a.Length) == a.Length
{ }
"""

WHOLE = """
predicate Sorted(a: array<int>) reads a { forall i, j :: 0 <= i < j < a.Length ==> a[i] <= a[j] }
predicate Small(a: array<int>) reads a { a.Length < 3 }
method Sort(a: array<int>, b: array<int>)
  modifies a
  ensures Sorted(a)
  ensures old(Sorted(a)) ==> a[..] == old(a[..])
  ensures old(Small(a)) && old(Small(a)) ==> true
  ensures b[..] == old(b[..])
{ }
"""

FIELDS = """
class Box {
  var v: int
  method Bump(a: array<int>)
    modifies this, a
    ensures v == old(v) + 1
    ensures a.Length == old(a.Length)
  { }
}
"""


def contract_and_checks(text):
    prog = parse_program(text, "p.dfy")
    [c] = select(prog)
    return c, checks_of(c, EmitContext.of(prog))


def test_modified_arrays_get_a_pre_state_and_preconditions_read_it():
    c, _ = contract_and_checks(INC)
    assert c.pre_state == ("a",)
    assert print_expr(c.requires[0].expr) == "old(a).Length > 0 && old(a)[0] == 5"
    assert c.requires[0].text == "a.Length > 0 && a[0] == 5"  # what the user wrote, for messages


def test_old_reads_snapshots_taken_before_the_call():
    _, checks = contract_and_checks(INC)
    assert checks.snapshots == ("var dspec2test_old_a := a[..];",)
    assert [print_expr(e) for _, e in checks.requires] == ["a.Length > 0 && a[0] == 5"]
    assert [print_expr(e) for _, e in checks.ensures] == [
        "forall i :: 0 <= i < a.Length ==> a[i] == dspec2test_old_a[i] + k",
        "|dspec2test_old_a| == a.Length"]
    assert checks.unchecked == ()


def test_old_of_an_array_used_as_an_object_snapshots_the_whole_value_once():
    _, checks = contract_and_checks(WHOLE)
    assert checks.snapshots == ("var dspec2test_old_1 := Sorted(a);", "var dspec2test_old_a := a[..];",
                                "var dspec2test_old_2 := Small(a);")
    assert [print_expr(e) for _, e in checks.ensures] == [
        "Sorted(a)", "dspec2test_old_1 ==> a[..] == dspec2test_old_a[..]",
        "dspec2test_old_2 && dspec2test_old_2 ==> true",
        "b[..] == b[..]"]  # b is not modified: old(b) is b


def test_old_of_fields_is_read_from_snapshots_of_the_receiver():
    c, checks = contract_and_checks(FIELDS)
    assert c.pre_state == ("a", "this.v") and pre_state_arrays(c.member) == ()
    assert checks.unchecked == ()
    assert checks.snapshots == ("var dspec2test_old_1 := dspec2test_obj.v;", "var dspec2test_old_a := a[..];")
    assert [print_expr(e) for _, e in checks.ensures] == ["dspec2test_obj.v == dspec2test_old_1 + 1",
                                                          "a.Length == |dspec2test_old_a|"]


def test_solver_inputs_are_the_pre_state_and_the_post_state_follows_the_contract():
    prog = parse_program(INC, "p.dfy")
    [c] = select(prog)
    s = Solver(prog, [(v.name, v.type, v.is_output) for v in c.vars], member=c.member)
    lits = [cl.expr for cl in c.clauses]
    m = s.solve(lits)
    assert m is not None
    pre, post, k = m.raw["old(a)"], m.raw["a"], m.raw["k"]
    assert pre[0] == 5 and len(pre) == len(post) > 0
    assert all(y == x + k for x, y in zip(pre, post))


def test_a_ghost_snapshot_leaves_the_clause_unchecked_and_declares_nothing():
    _, checks = contract_and_checks("""
ghost predicate G(a: array<int>) reads a { a.Length > 0 }
method M(a: array<int>)
  modifies a
  ensures old(G(a)) ==> a.Length > 0
{ }
""")
    assert checks.snapshots == ()
    assert [(cl.line, why) for cl, why in checks.unchecked] == [(5, "G is ghost")]


def test_an_array_with_an_inferred_element_type_is_tested_at_int():
    c, checks = contract_and_checks("""
method RotateRight(a: array)
  requires a.Length > 0
  modifies a
  ensures a[0] == old(a[a.Length - 1])
{ }
""")
    assert c.pre_state == ("a",) and print_type(c.params[0].type) == "array<int>"
    assert [print_expr(e) for _, e in checks.ensures] == ["a[0] == dspec2test_old_a[|dspec2test_old_a| - 1]"]



def test_unchanged_of_a_modified_array_compares_its_elements_with_the_snapshot():
    c, checks = contract_and_checks("""
method Clear(a: array<int>, b: array<int>) returns (ok: bool)
  modifies a
  ensures !ok ==> unchanged(a)
  ensures unchanged(b)
{ }
""")
    assert print_expr(c.ensures[0].expr) == "!ok ==> a[..] == old(a[..])"
    assert print_expr(c.ensures[1].expr) == "unchanged(b)"  # not modified: left as written (unchecked)
    assert checks.snapshots == ("var dspec2test_old_a := a[..];",)
    assert print_expr(checks.ensures[0][1]) == "!ok ==> a[..] == dspec2test_old_a[..]"


FILL = Path(__file__).resolve().parents[1] / "fixtures" / "arrays" / "fill_unchanged.dfy"


@pytest.mark.dafny
@pytest.mark.parametrize("planted, failing", [(None, False), ("a[0] := a[0] + 1; return false;", True)])
def test_unchanged_of_an_array_is_checked_and_catches_a_write(tmp_path, planted, failing):
    text = FILL.read_text()
    if planted:
        text = text.replace("return false;", planted)
    prog = tmp_path / "fill.dfy"
    prog.write_text(text)
    got = generate(str(prog), GenerateOptions(bva=100))
    assert got.cases and not any("unchanged" in d.message for d in got.diagnostics)
    statuses = {v.status for v in run_tests(prog, got.tests_text, got.cases, RunOptions(target="py")).verdicts}
    assert (Status.FAILED in statuses) == failing and Status.NOT_TESTED not in statuses

"""Classes, objects and traits (issue 19): receivers, constructors, frames, object parameters, traits,
bodiless predicates, names across modules and multi-dimensional arrays.

The unit tests read the contracts and the emitted text; two tests run real Dafny on the fixtures, once
on the program and once on a copy with one planted bug per member, which the tests must catch.
"""

import re
from pathlib import Path

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.objects import inputs_of
from dspec2test.emit.tests_file import EmitContext, checks_of, plan_checks
from dspec2test.generate import GenerateOptions, generate
from dspec2test.model.contracts import select
from dspec2test.records import CheckKind, Status
from dspec2test.run import RunOptions, run_tests
from dspec2test.solve.literal import ObjRef
from dspec2test.toolchain import find_toolchain

FIXTURES = Path(__file__).parent / "fixtures"


def contracts(text: str) -> dict:
    prog = parse_program(text, "p.dfy")
    return {c.name: c for c in select(prog)}, EmitContext.of(prog)


COUNTER = """
class Counter {
  var count: nat
  const limit: nat
  ghost var history: seq<int>
  predicate Valid() reads this { count <= limit }
  constructor(l: nat) ensures Valid() && count == 0 && limit == l { count := 0; limit := l; history := []; }
  method Inc()
    requires count < limit
    modifies this
    ensures count == old(count) + 1 && history == old(history) + [count]
    ensures unchanged(this) || fresh(this) || true
  { count := count + 1; history := history + [count]; }
}
"""


def test_a_receiver_is_solver_state_the_test_sets_and_the_constructor_decides_its_consts():
    by_name, ctx = contracts(COUNTER)
    inc = by_name["Counter.Inc"]
    # the fields the contract reads, the mutable ones with a pre-state; the const only the constructor sets
    assert [v.name for v in inc.state] == ["this", "this.count", "this.limit", "this.history"]
    assert inc.pre_state == ("this.count", "this.history")
    [root] = inc.objects.roots
    assert [(f.name, f.settable) for f in root.fields] == [("count", True), ("limit", False), ("history", False)]
    [build] = root.builds
    assert build.call(["5"]) == "new Counter(5)" and build.decides == ("limit",)
    assert [v.name for v in inc.hidden] == ["this#new:l"]
    # preconditions read the state before the call; the invariant every constructor ensures is added
    assert [print_expr(c.expr) for c in inc.requires] == ["old(this.count) < old(this.limit)", "old(this.Valid())"]
    assert inc.requires[1].invariant and not inc.requires[0].invariant
    # unchanged(this) is every field the same; the compiled conjuncts of a partly ghost ensures are checked
    checks = checks_of(inc, ctx)
    assert [c.text for c, _ in checks.ensures] == ["count == old(count) + 1"]
    assert checks.snapshots[0] == "var dspec2test_old_1 := dspec2test_obj.count;"
    assert [print_expr(e) for _, e in checks.requires] == ["dspec2test_obj.count < dspec2test_obj.limit",
                                                          "dspec2test_obj.Valid()"]
    # the compiled invariant is checked before the call, and blames our input when it fails
    before, _ = plan_checks(inc, checks, ctx, None)
    assert [(p.check.kind, p.condition) for p in before] == [
        (CheckKind.TYPE, "dspec2test_obj.count >= 0"),
        (CheckKind.REQUIRES, "dspec2test_obj.count < dspec2test_obj.limit"),
        (CheckKind.INVARIANT, "dspec2test_obj.Valid()")]
    assert {(c.text, why) for c, why in checks.unchecked} == {
        ("history == old(history) + [count]", "history is ghost"),
        ("unchanged(this) || fresh(this) || true", "fresh() is ghost")}


def test_object_inputs_come_from_the_model_as_the_expressions_that_make_them():
    by_name, _ = contracts("""
class Cell { var v: int  constructor(x: int) ensures v == x { v := x; } }
method Swap(a: Cell, b: Cell?, c: Cell)
  modifies a, c
  ensures a.v == old(c.v)
{ }
""")
    swap = by_name["Swap"]
    values = {"a": "object#1", "b": "null", "c": "object#1", "old(a.v)": "4", "old(c.v)": "4", "a.v": "9",
              "c.v": "9", "a#new:x": "0", "b#new:x": "0", "c#new:x": "0", "b.v": "3"}
    raw = {"a": ObjRef(1), "b": ObjRef(0), "c": ObjRef(1)}
    # a is built, b is null, c is the same object as a: only a's fields are the test's to set
    assert inputs_of(swap, values, raw) == {"a": "new Cell(0)", "b": "null", "c": "a", "a.v": "4"}


def test_trait_members_are_tested_on_each_class_that_implements_them_and_modules_are_named_in_full():
    got = generate(str(FIXTURES / "objects_accounts.dfy"), GenerateOptions(isolate=False))
    by_name = {m["name"]: m for m in got.manifest["methods"]}
    assert all(not m["unsupported"] for m in by_name.values()), [m["unsupported"] for m in by_name.values()]
    # Transfer's two accounts are built as the one class implementing the trait, never aliased
    [p] = by_name["Bank.Transfer"]["partitions"]
    inputs = p["scenarios"][0]["inputs"]
    assert inputs["from"].startswith("new Bank.Checking(") and inputs["to"].startswith("new Bank.Checking(")
    # its variable takes the class's type, whose fields the test sets (the trait has none)
    assert "var to: Bank.Checking := new Bank.Checking(" in got.tests_text
    # a datatype of a nested module is written with its module's path, type and literal alike
    assert re.search(r"var e: Bank\.Ledger\.Entry := Bank\.Ledger\.Entry\.(Credit|Debit)\(", got.tests_text)
    # a predicate without a body: solved for, listed as unchecked (it is ghost), the member still tested
    flag = by_name["Bank.Flag"]
    assert flag["partitions"] and [u["reason"] for u in flag["unchecked"]] == ["Audited is ghost"]
    # objects in a sequence are built one by one, different objects with different balances
    inputs = by_name["Bank.SumFirstTwo"]["partitions"][0]["scenarios"][0]["inputs"]
    assert inputs["accts"].startswith("[#1, #2") and inputs["#1"].startswith("new Bank.Checking(")
    assert inputs["#1.balance"] != inputs["#2.balance"]
    assert "var accts: seq<Bank.Checking> := [dspec2test_e1, dspec2test_e2" in got.tests_text
    # a two-dimensional array is built from rows, at least two of each
    fill = by_name["Fill"]["partitions"][0]["scenarios"][0]["inputs"]["a"]
    assert fill.startswith("[[") and fill.count("], [") >= 1


@pytest.mark.dafny
def test_stack_tests_pass_on_the_program_and_catch_a_pop_that_keeps_its_size_and_a_wrong_capacity(tmp_path):
    # two versions: a wrong constructor breaks the objects every other test builds
    pop, ctor = _caught(tmp_path, "objects_stack.dfy",
                        [("    n := n - 1;\n    x := arr[n];", "    x := arr[n - 1];")],  # Pop forgets to shrink
                        [("    cap := c;", "    cap := c + 1;")])  # the constructor stores the wrong capacity
    assert pop == {"Stack.Pop"} and ctor == {"Stack._ctor"}


@pytest.mark.dafny
def test_account_tests_pass_on_the_program_and_catch_planted_bugs(tmp_path):
    [caught] = _caught(tmp_path, "objects_accounts.dfy", [
        ("      balance := balance + amount;", "      balance := amount;"),  # Deposit overwrites
        ("    to.balance := to.balance + amount;", "    to.balance := to.balance + from.balance;"),  # wrong credit
        ("  while i < a.Length0\n", "  while i < a.Length0 - 1\n"),  # Fill skips the last row
        ("    t := accts[0].balance + accts[1].balance;", "    t := accts[0].balance + accts[0].balance;"),
    ])
    # the trait's Deposit is the class's: its tests catch the bug too
    assert caught == {"Bank.Account.Deposit", "Bank.Checking.Deposit", "Bank.Transfer", "Fill", "Bank.SumFirstTwo"}


def _caught(tmp_path: Path, fixture: str, *versions: list[tuple[str, str]]) -> list[set[str]]:
    """Generate tests for the fixture and check they all pass on it; then per version (one or more
    planted bugs, each a replacement made once), the members whose tests fail on it."""
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    prog = tmp_path / fixture
    prog.write_text((FIXTURES / fixture).read_text())
    got = generate(str(prog))
    assert not any(m["unsupported"] for m in got.manifest["methods"])
    statuses = {v.test: v.status for v in run_tests(prog, got.tests_text, got.cases, RunOptions(target="py")).verdicts}
    assert statuses and set(statuses.values()) == {Status.PASSED}, statuses
    out = []
    for k, bugs in enumerate(versions):
        buggy = tmp_path / f"buggy{k}" / fixture
        buggy.parent.mkdir()
        text = prog.read_text()
        for before, after in bugs:
            assert text.count(before) == 1, before
            text = text.replace(before, after)
        buggy.write_text(text)
        verdicts = run_tests(buggy, got.tests_text, got.cases, RunOptions(target="py")).verdicts
        # (a broken constructor also breaks the invariant other members' tests build their objects on:
        # their checks say so before the call, as bad input, rather than blame those members; an object
        # made by calls of a broken method may crash while it is made: not a finding of the member tested)
        collateral = [v for v in verdicts if v.status is Status.NOT_TESTED]
        assert all("while making its input by calls of the program's methods" in v.message for v in collateral), [
            (v.test, v.message) for v in collateral]
        assert {v.status for v in verdicts} <= {Status.PASSED, Status.FAILED, Status.BAD_INPUT, Status.NOT_TESTED}
        out.append({v.method for v in verdicts if v.status is Status.FAILED})
    return out


@pytest.mark.dafny
def test_old_of_an_array_field_is_the_array_it_held_and_its_elements_are_read_from_a_copy(tmp_path):
    # `mem == old(mem)` compares references: a copy of the contents there did not type-check
    [wrote_elsewhere] = _caught(tmp_path, "objects_array_field.dfy",
                                [("    mem[off] := v;", "    mem[off] := v; if off > 0 { mem[0] := v + 1; }")])
    assert wrote_elsewhere == {"Log.Write"}


NO_WAY_IN = """
class Cell {
  var v: int
  ghost var repr: set<object>
  ghost predicate ok() reads this, repr { this in repr }
  constructor(x: int) ensures ok() && v == x { v := x; repr := {this}; }
}
class Box {
  var c: Cell
  var n: nat
  ghost var repr: set<object>
  ghost predicate valid() reads this, repr { c in repr && c.repr <= repr && c.ok() }
  constructor() { c := new Cell(0); n := 0; }
  method Get() returns (x: int) requires valid() && n > 0 ensures x == c.v { x := c.v; }
}
"""


def test_an_object_whose_invariant_recurses_through_the_heap_is_built_by_its_constructor_and_methods():
    by_name, _ = contracts((FIXTURES / "objects_linked_stack.dfy").read_text())
    pop = by_name["Stack.Pop"]
    [root] = pop.objects.roots
    # its state is what the contracts of its constructor and methods speak of, the predicate an opaque value
    assert root.driven and {f.name for f in root.fields} >= {"size", "elems", "Valid()"}
    assert not any(f.settable for f in root.fields)  # the test never assigns a field of it
    [build] = root.builds
    assert [m.name for m in build.drivers] == ["Push", "Pop"] and build.steps == 3
    assert {"this#drive1", "this#drive1:Push:x"} <= {v.name for v in pop.hidden}
    # a class whose invariant reads only its own fields keeps the field-by-field receiver
    counter, _ = contracts(COUNTER)
    assert not counter["Counter.Inc"].objects.roots[0].driven


def test_the_calls_that_make_a_driven_object_are_chosen_to_meet_the_requires_or_no_test_is_written(tmp_path):
    prog = tmp_path / "s.dfy"
    prog.write_text((FIXTURES / "objects_linked_stack.dfy").read_text())
    by_name = {m["name"]: m for m in generate(str(prog)).manifest["methods"]}
    pops = [s["inputs"] for p in by_name["Stack.Pop"]["partitions"] for s in p["scenarios"] if s["test"]]
    assert pops and all(i["this"] == "new Stack()" and i["this#call1"].startswith("Push(") for i in pops)
    # its requires |elems| > 0 needs one Push more than Pops: the solver counts
    for i in pops:
        calls = [i[k] for k in sorted(i) if k.startswith("this#call")]
        assert sum(c.startswith("Push(") for c in calls) > sum(c == "Pop()" for c in calls)
    # a constructor that ensures nothing says nothing of valid(): Get gets no test (no query is even made),
    # and a warning says why
    prog.write_text(NO_WAY_IN)
    got = generate(str(prog))
    [get] = [m for m in got.manifest["methods"] if m["name"] == "Box.Get"]
    assert not get["unsupported"] and not any(s["test"] for p in get["partitions"] for s in p["scenarios"])
    assert any("this.valid: the requires read it, and no ensures of the constructor or the methods that make this"
               in d.message for d in got.diagnostics)


BLIND_CALL = """
class Cell {
  var v: int
  ghost var repr: set<object>
  ghost predicate ok() reads this, repr { this in repr }
  constructor(x: int) ensures ok() && v == x { v := x; repr := {this}; }
}
class Acc {
  var c: Cell
  var count: nat
  ghost var mystery: int
  ghost var repr: set<object>
  ghost predicate valid() reads this, repr { c in repr && c.repr <= repr && c.ok() }
  constructor() ensures valid() && count == 0 { c := new Cell(0); count := 0; repr := {c}; }
  method Bump() requires valid() && mystery > 0 modifies this ensures valid() && count == old(count) + 1
  { count := count + 1; }
  method Get() returns (x: int) requires valid() && count > 0 ensures x == count { x := count; }
}
"""


def test_a_call_whose_requires_the_earlier_calls_do_not_entail_is_never_made(tmp_path):
    # Get needs a Bump, whose requires reads a field nothing ensures: the solver may believe it holds, the
    # test could not know, so no test is written
    prog = tmp_path / "a.dfy"
    prog.write_text(BLIND_CALL)
    got = generate(str(prog))
    [get] = [m for m in got.manifest["methods"] if m["name"] == "Acc.Get"]
    assert not get["unsupported"] and not any(s["test"] for p in get["partitions"] for s in p["scenarios"])
    assert any("not known by their ensures to meet the requires" in d.message for d in got.diagnostics)
    # once Bump's requires is what the constructor and Bump say, Get is tested after a Bump
    prog.write_text(BLIND_CALL.replace("valid() && mystery > 0", "valid()"))
    [get] = [m for m in generate(str(prog)).manifest["methods"] if m["name"] == "Acc.Get"]
    inputs = [s["inputs"] for p in get["partitions"] for s in p["scenarios"] if s["test"]]
    assert inputs and all(i["this#call1"] == "Bump()" for i in inputs)


@pytest.mark.dafny
def test_linked_stack_tests_pass_on_the_program_and_catch_a_pop_that_keeps_its_size(tmp_path):
    [pop] = _caught(tmp_path, "objects_linked_stack.dfy", [("    size := size - 1;\n", "")])
    assert pop == {"Stack.Pop"}

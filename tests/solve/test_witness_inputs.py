"""Large inputs built from their type's witness (solve/witness.py): evm-dafny's `ExecutingState` members
had no input Z3 could find (a machine state whose type constraints alone are hundreds of kilobytes of Z3
terms), though their contracts read only the stack. The fixture is such a state in miniature."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.generate import GenerateOptions, generate
from dspec2test.model.contracts import iter_members, member_contract
from dspec2test.model.resolve import Resolver
from dspec2test.records import Status
from dspec2test.run import RunOptions
from dspec2test.run import run_tests as run
from dspec2test.solve.reads import Reads
from dspec2test.solve.witness import build
from tests.solve.runs import run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "witness"


def _built(name: str, text: str | None = None, requires_only: bool = False):
    source = text if text is not None else (FIXTURES / "machine.dfy").read_text()
    program = parse_program(source, "machine.dfy")
    member = next(m for _, m in iter_members(program.decls) if getattr(m, "name", None) == name)
    contract = member_contract(program, member)
    assert contract is not None
    resolver = Resolver(program)
    t = resolver.rtype(contract.params[0].type, resolver.scope_of(member))
    return build(contract, Reads(program), t, resolver, contract.params[0].name, requires_only)


def test_only_the_fields_the_contract_reads_are_solved():
    built = _built("Add")
    assert built is not None
    assert built.solved() == ["m.stack.contents"]
    assert built.shown.text == "Machine.State.Running(Machine.WITNESS.(stack := Machine.WITNESS.stack.(contents := _)))"


def test_a_constraint_on_a_solved_field_solves_every_field_it_reads():
    """Balance reads the accounts; `0 in r.accounts && |r.memory| <= 4096` then concerns a solved field,
    so it is checked, and the memory it reads is solved with them (the witness's memory need not fit the
    solved accounts' constraint otherwise)."""
    built = _built("Balance")
    assert built is not None
    assert built.solved() == ["m.accounts", "m.memory"]


def test_a_type_of_several_constructors_is_built_by_each_and_the_solver_picks():
    """AnyState allows Running and Halted and nothing fixes one: the value is the witness's Halted(code) or
    a Running made from T's witness; Code reads the code, so only that is solved."""
    built = _built("Code")
    assert built is not None
    assert built.shown.text == "Machine.State.Running(Machine.WITNESS) or Machine.State.Halted(_)"
    got = generate(str(FIXTURES / "machine.dfy"), GenerateOptions(bva=100, methods=("Machine.Code",)))
    inputs = {tc.inputs["s"] for tc in got.cases}
    assert "Machine.State.Running(Machine.WITNESS)" in inputs
    assert any(v.startswith("Machine.State.Halted(") for v in inputs)


def test_an_input_whose_requires_fix_another_constructor_is_made_by_it():
    """AnyState's witness is Halted(0), but `requires s.Running?`: the value is made as Running, its field
    taken from its own type's witness, with only the gas solved."""
    built = _built("GasOf")
    assert built is not None
    assert built.shown.text == "Machine.State.Running(Machine.WITNESS.(gas := _))"


def test_a_datatype_members_receiver_is_made_by_the_constructor_its_requires_want():
    got = generate(str(FIXTURES / "machine.dfy"), GenerateOptions(bva=100, methods=("Machine.State.Pc",)))
    assert got.cases
    assert {tc.inputs["this"] for tc in got.cases} >= {"Machine.State.Running(Machine.WITNESS.(pc := 0))"}


def test_a_contract_that_reads_every_field_builds_nothing():
    text = (FIXTURES / "machine.dfy").read_text().replace(
        "ensures b == s.m.accounts[0].balance",
        "ensures b == s.m.accounts[0].balance\n    ensures |s.m.touched| + |s.m.logs| + s.m.gas + s.m.pc >= 0")
    built = _built("Balance", text)
    assert built is not None and built.solved() == ["m.accounts", "m.memory", "m.touched", "m.logs", "m.gas", "m.pc"]
    whole = text.replace("s.m.pc >= 0", "s.m.pc + |s.m.stack.contents| >= 0")
    assert _built("Balance", whole) is None


def test_generated_literals_update_the_witness_and_small_inputs_are_solved_whole():
    got = generate(str(FIXTURES / "machine.dfy"), GenerateOptions(bva=100))
    adds = [tc for tc in got.cases if tc.method == "Machine.Add"]
    assert {tc.inputs["s"] for tc in adds} >= {
        "Machine.State.Running(Machine.WITNESS.(stack := Machine.WITNESS.stack.(contents := [])))"}
    assert any("contents := [" in tc.inputs["s"] and "contents := []" not in tc.inputs["s"] for tc in adds)
    notes = [d.message for d in got.diagnostics if "from its type's witnesses" in d.message]
    assert any("Machine.Add" in n and "m.stack.contents" in n for n in notes), notes
    # a stack alone is small: solved whole, no witness
    tops = [tc for tc in got.cases if tc.method == "Machine.Stack.Top"]
    assert tops and all(".(" not in v for tc in tops for v in tc.inputs.values())


@pytest.mark.dafny
@pytest.mark.parametrize("fixture, failing", [("machine.dfy", set()), ("machine_bug.dfy", {"Machine.Add"})])
def test_tests_built_from_witnesses_run_and_find_the_planted_bug(tmp_path, fixture, failing):
    tests = run_tests(FIXTURES / fixture, tmp_path, "--bva")
    built = [t for t in tests if "WITNESS.(" in json.dumps(t.get("inputs", {}))]
    assert {t["method"] for t in built} >= {"Machine.Add", "Machine.Balance", "Machine.Push"}
    assert {t["method"] for t in tests if t["status"] != "passed"} == failing
    assert all(t["status"] in ("passed", "failed") for t in tests)


def test_a_qualified_call_reads_through_that_module_only():
    """`A.Size(d)` reaches A's Size, not B's: evm-dafny's `Code.Create(...)` made every field of a state read
    through WorldState.Create, Memory.Create and the rest."""
    program = parse_program("datatype D = D(x: int, y: int, z: int)\n"
                            "module A { import opened D0 = Dt  function Size(d: int): int { d } }\n"
                            "module B { function Size(d: Top.D): int { d.y } }\n"
                            "module Dt { }\n"
                            "module Top { datatype D = D(x: int, y: int)\n"
                            "  function F(d: D): int ensures F(d) == A.Size(d.x) + B.Size(d) { d.y } }\n"
                            "function G(d: D): int ensures G(d) == A.Size(d.x) { d.x }\n", "q.dfy")
    member = next(m for _, m in iter_members(program.decls) if getattr(m, "name", None) == "G")
    contract = member_contract(program, member)
    assert contract is not None
    read = Reads(program).of([c.expr for c in contract.clauses], frozenset(v.name for v in contract.vars))
    assert "x" in read and "y" not in read
    member = next(m for _, m in iter_members(program.decls) if getattr(m, "name", None) == "F")
    contract = member_contract(program, member)
    assert contract is not None
    assert "y" in Reads(program).of([c.expr for c in contract.clauses], frozenset(v.name for v in contract.vars))


VIEWS = FIXTURES / "views.dfy"


def test_a_witness_a_function_makes_is_written_with_every_name_in_full():
    """Word's witness is `View.OfSeq([7])` in module Views: the tests file, outside that module, writes it
    in full. Size's ensures read every field (nothing to build); its requires read only the size."""
    assert _built("Size", VIEWS.read_text()) is None
    built = _built("Size", VIEWS.read_text(), requires_only=True)
    assert built is not None
    assert built.solved() == ["size"]
    assert built.shown.text == "Docs.Doc.Doc(Views.View.OfSeq([]), Views.View.OfSeq([7]), _)"


@pytest.mark.dafny
@pytest.mark.parametrize("fixture, failing", [("views.dfy", False), ("views_bug.dfy", True)])
def test_inputs_out_of_reach_are_built_solving_only_what_the_requires_read(tmp_path, monkeypatch, fixture, failing):
    """When the inputs are out of the solver's reach (here: said to be, while anything the ensures read is
    solved), they are built solving only what the requires read; the tests check the ensures on the
    witness's values, and find the planted bug (the body left out of the size)."""
    from dspec2test.solve import probing

    def out_of_reach_unless_requires_only(self, pending=lambda why: None):
        if any(built.solved() == ["size"] for built in self.built.values()):
            return None
        return "inputs out of the solver's reach (as the test says)"

    monkeypatch.setattr(probing, "LARGE_INPUTS", 0)
    monkeypatch.setattr(probing.Probing, "inputs_out_of_reach", out_of_reach_unless_requires_only)
    prog = tmp_path / fixture
    prog.write_text((FIXTURES / fixture).read_text())
    got = generate(str(prog), GenerateOptions(bva=100, methods=("Docs.Size",)))
    assert {tc.inputs["d"] for tc in got.cases} >= {"Docs.Doc.Doc(Views.View.OfSeq([]), Views.View.OfSeq([7]), 0)"}
    assert any("solved for (what the requires read)" in d.message and "another partition" in d.message
               for d in got.diagnostics)
    verdicts = run(prog, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    statuses = {v.status for v in verdicts if v.method == "Docs.Size"}
    assert statuses == ({Status.FAILED} if failing else {Status.PASSED})


@pytest.mark.dafny
@pytest.mark.parametrize("fixture, failing", [("views.dfy", False), ("views_bug.dfy", True)])
def test_where_the_solver_finds_no_input_inputs_read_whole_are_their_witnesses(tmp_path, monkeypatch, fixture, failing):
    """Length reads the whole document and requires nothing: where Z3 gives up on every scenario (here:
    made to), the document is built from its fields' witnesses with nothing solved, and one test holds
    it, which finds the planted bug (the body left out)."""
    _large_and_given_up_on(monkeypatch)
    prog = tmp_path / fixture
    prog.write_text((FIXTURES / fixture).read_text())
    got = generate(str(prog), GenerateOptions(bva=100, methods=("Docs.Length",)))
    assert [tc.inputs["d"] for tc in got.cases] == ["Docs.Doc.Doc(Views.View.OfSeq([]), Views.View.OfSeq([7]), 0)"]
    assert any("whatever the partition" in d.message for d in got.diagnostics)
    verdicts = run(prog, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.status for v in verdicts if v.method == "Docs.Length"} == ({Status.FAILED} if failing else {Status.PASSED})


@pytest.mark.dafny
@pytest.mark.parametrize("fixture, failing", [("views.dfy", False), ("views_bug.dfy", True)])
def test_solved_inputs_that_break_their_types_are_built_again_for_the_requires(tmp_path, monkeypatch, fixture, failing):
    """Where the inputs solved for a scenario break a type constraint (here: the literals without the
    witnesses' views are said to), they are built again from their witnesses solving only what the
    requires read, once, and the test holds those; it finds the planted bug."""
    from dspec2test.solve import probing

    real = probing.Probing.admits

    def admits(self, values, constraints, raw=None):
        return real(self, values, constraints, raw) if "OfSeq([7])" in values["d"] else False

    monkeypatch.setattr(probing, "LARGE_INPUTS", 0)
    monkeypatch.setattr(probing.Probing, "admits", admits)
    prog = tmp_path / fixture
    prog.write_text((FIXTURES / fixture).read_text())
    got = generate(str(prog), GenerateOptions(bva=100, methods=("Docs.Size",)))
    assert got.cases and all(tc.inputs["d"].startswith("Docs.Doc.Doc(Views.View.OfSeq([]), Views.View.OfSeq([7]), ")
                             for tc in got.cases)
    assert any("solved for the requires alone" in d.message for d in got.diagnostics)
    verdicts = run(prog, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.status for v in verdicts if v.method == "Docs.Size"} == ({Status.FAILED} if failing else {Status.PASSED})


def test_witness_values_meet_a_requires_no_test_checks_only_where_shown(monkeypatch):
    """Plain has a requires (a ghost one, which no test checks) that reads no field, so the witnesses'
    document is given unsolved: where admission cannot show that it meets the requires (here: made
    undecided), no test is written. Length, which has no requires, still gets its test."""
    _large_and_given_up_on(monkeypatch)
    from dspec2test.solve import probing

    monkeypatch.setattr(probing.Probing, "admits", lambda self, *args, **kwargs: None)
    got = generate(str(VIEWS), GenerateOptions(bva=100, methods=("Docs.Plain", "Docs.Length")))
    assert {tc.method for tc in got.cases} == {"Docs.Length"}
    assert any("Docs.Plain" in d.message and "not known to meet the requires" in d.message for d in got.diagnostics)


def _large_and_given_up_on(monkeypatch) -> None:
    """Every input counts as large, and Z3 gives up on every scenario (and the bounded fallback finds
    nothing): what is left is the witness fallback."""
    from dspec2test.oracle import SolveResult
    from dspec2test.solve import probing
    from dspec2test.solve.solver import Solver

    def gives_up(self, *args, **kwargs):
        self.status_of_last = SolveResult.UNKNOWN
        return None

    monkeypatch.setattr(probing, "LARGE_INPUTS", 0)
    monkeypatch.setattr(Solver, "_solve", gives_up)
    monkeypatch.setattr(Solver, "_bounded", lambda self, *args: None)


def test_a_rank_comparison_solves_the_fields_that_can_hold_the_part():
    """`it < d` reads no field by name, but the test's d must hold the solved it: the fields of d's type that
    can hold an Item are solved, the others keep the witness's values."""
    text = ("module Doc {\n  datatype Item = Item(n: int)\n  datatype Doc = Doc(title: int, items: seq<Item>, meta: int)\n"
            "  const EMPTY := Doc(0, [], 0)\n  type Valid = d: Doc | d.title >= 0 witness EMPTY\n"
            "  method Get(d: Valid, it: Item) returns (n: int) requires it < d ensures n == it.n { n := it.n; }\n}\n")
    program = parse_program(text, "doc.dfy")
    member = next(m for _, m in iter_members(program.decls) if getattr(m, "name", None) == "Get")
    contract = member_contract(program, member)
    assert contract is not None
    resolver = Resolver(program)
    scope = resolver.scope_of(member)
    types = {p.name: resolver.rtype(p.type, scope) for p in contract.params}
    built = build(contract, Reads(program), types["d"], resolver, "d", True, types)
    assert built is not None and built.solved() == ["items"]
    without = build(contract, Reads(program), types["d"], resolver, "d", True)
    assert without is None or without.solved() == []

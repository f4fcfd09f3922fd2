"""Lemmas whose ensures a test can evaluate: their inputs are solved from the requires alone, the lemma is
not called (it is ghost), and its ensures are checked as a property of the functions they call."""

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.emit.tests_file import EmitContext, checks_of, plan_checks
from dspec2test.generate import GenerateOptions, generate
from dspec2test.model.contracts import select
from dspec2test import records
from dspec2test.records import CheckKind, ScenarioKind, Status
from dspec2test.run import RunOptions, run_tests
from dspec2test.run.reader import End, Observation, Phase
from dspec2test.run.verdicts import verdict_of
from dspec2test.toolchain import find_toolchain

PROGRAM = """
datatype State = State(value: int)
predicate Init(s: State) { s.value == 0 }
predicate Up(s: State, t: State) { t.value == s.value + 1 }
function Abs(s: State): int { s.value }
ghost function G(x: nat): nat { if x == 0 then 0 else 1 + G(x - 1) }

lemma InitIsZero(s: State)
  requires Init(s)
  ensures Abs(s) == 0
{}

lemma UpGrows(s: State, t: State)
  requires Up(s, t)
  ensures Abs(t) > Abs(s)
{}

lemma Trusted(x: int) ensures Abs(State(x)) == x
lemma {:axiom} Axiom(x: int) ensures Abs(State(x)) == x { }
lemma UsesTrusted(x: int) ensures Abs(State(x)) == x { Trusted(x); }
lemma Assumes(x: int) ensures Abs(State(x)) == x { assume Abs(State(x)) == x; }

lemma OnlyGhost(x: nat)
  ensures G(x) == x
{}

class C {
  var f: int
  lemma Instance() ensures f == f {}
  static lemma Static(x: int) ensures x + 0 == x {}
}
"""


def contracts(text: str) -> tuple[dict, EmitContext]:
    prog = parse_program(text, "p.dfy")
    return {c.name: c for c in select(prog)}, EmitContext.of(prog)


def test_lemmas_not_bound_to_an_object_are_members_with_their_ensures_as_property_checks():
    got, ctx = contracts(PROGRAM)
    assert {"InitIsZero", "UpGrows", "OnlyGhost", "C.Static"} <= got.keys()
    assert "C.Instance" not in got  # an object's lemma would need the object: not tested
    lemma = got["UpGrows"]
    assert lemma.is_lemma and lemma.kind == "lemma" and lemma.outputs == () and not lemma.body_missing
    before, after = plan_checks(lemma, checks_of(lemma, ctx), ctx, None)
    assert [p.check.kind for p in before] == [CheckKind.REQUIRES]
    assert [p.check.kind for p in after] == [CheckKind.PROPERTY]
    assert "lemma UpGrows: ensures (line 15) is false here" in after[0].message


def test_a_lemma_with_nothing_to_evaluate_is_left_out_one_taken_on_trust_is_tested(tmp_path):
    path = tmp_path / "lemmas.dfy"
    path.write_text(PROGRAM)
    result = generate(str(path), GenerateOptions(isolate=False, probe=False, test_build=False))
    names = {m["name"] for m in result.manifest["methods"]}
    # OnlyGhost's ensures calls a recursive ghost function (the program as written: no test build); Trusted,
    # Axiom, UsesTrusted and Assumes are taken on trust by Dafny: a program verifies with them false, so a
    # test is their only check
    assert names == {"InitIsZero", "UpGrows", "C.Static", "Trusted", "Axiom", "UsesTrusted", "Assumes"}
    benched = generate(str(path), GenerateOptions(isolate=False, probe=False, trusted_lemmas=False, test_build=False))
    assert {m["name"] for m in benched.manifest["methods"]} == {"InitIsZero", "UpGrows", "C.Static"}
    assert all(m["kind"] == "lemma" and not m["unsupported"] for m in result.manifest["methods"])
    init = [tc for tc in result.cases if tc.method == "InitIsZero"]
    assert init and all(tc.inputs["s"] == "State(0)" for tc in init)
    assert "InitIsZero(s);" not in result.tests_text and "is a lemma: not called" in result.tests_text


def test_a_lemma_false_everywhere_still_gets_inputs_its_ensures_are_not_solved_for(tmp_path):
    # solving for the ensures too would find no input, and the falsehood would go unseen
    path = tmp_path / "false.dfy"
    path.write_text("predicate P(x: int) { x > 0 }\nlemma L(x: int) requires P(x) ensures x < 0 {}\n")
    result = generate(str(path), GenerateOptions(isolate=False, probe=False))
    assert result.cases and all(int(tc.inputs["x"]) > 0 for tc in result.cases)


def test_a_false_property_is_a_failure_of_the_lemma_with_its_clause():
    got, ctx = contracts(PROGRAM)
    lemma = got["InitIsZero"]
    before, after = plan_checks(lemma, checks_of(lemma, ctx), ctx, None)
    tc = records.TestCase(name="T", method="InitIsZero", file="p.dfy", line=8, partition=1, scenario=1, label="Init(s)",
                  kind=ScenarioKind.BASE, pin=None, inputs={"s": "State.State(0)"}, outputs={}, unique=False,
                  clauses=(9, 10), checks=tuple(p.check for p in before + after))
    failed = after[0].check.id
    verdict = verdict_of(tc, Observation("", "T", Phase.RETURNED, End.CHECK_FAILED, failed), 1.0)
    assert verdict.status is Status.FAILED
    assert verdict.message == "lemma InitIsZero: ensures (line 10) is false on inputs that meet its requires: Abs(s) == 0"
    assert verdict.clause_line == 10 and verdict.expected == "Abs(s) == 0"


@pytest.mark.dafny
def test_a_lemma_over_a_ghost_function_the_test_build_compiles_is_tested(tmp_path):
    path = tmp_path / "lemmas.dfy"
    path.write_text(PROGRAM)
    result = generate(str(path), GenerateOptions(isolate=False, probe=False))
    assert "OnlyGhost" in {m["name"] for m in result.manifest["methods"]} and result.build.lifted == {"G"}


@pytest.mark.dafny
def test_lemma_tests_pass_on_the_program_and_fail_when_a_function_they_speak_of_changes(tmp_path):
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    prog = tmp_path / "lemmas.dfy"
    prog.write_text(PROGRAM)
    got = generate(str(prog), GenerateOptions(bva=100))
    options = RunOptions(target="py")
    ok = run_tests(prog, got.tests_text, got.cases, options).verdicts
    assert ok and {v.status for v in ok} == {Status.PASSED}, [(v.test, v.message) for v in ok]
    buggy = tmp_path / "buggy" / "lemmas.dfy"
    buggy.parent.mkdir()
    buggy.write_text(PROGRAM.replace("function Abs(s: State): int { s.value }", "function Abs(s: State): int { 1 }"))
    verdicts = run_tests(buggy, got.tests_text, got.cases, options).verdicts
    # the lemmas taken on trust are false now too, and the program still verifies: their tests say so
    assert {v.method for v in verdicts if v.status is Status.FAILED} == {"InitIsZero", "UpGrows", "Trusted", "Axiom",
                                                                        "UsesTrusted", "Assumes"}


MODULES = """
module Proto {
  datatype Vars = Vars(n: int)
  datatype Step = Inc | Dec
  predicate Init(v: Vars) { v.n == 0 }
  predicate NextStep(v: Vars, w: Vars, step: Step) {
    match step
      case Inc => w.n == v.n + 1
      case Dec => w.n == v.n - 1
  }
  predicate Next(v: Vars, w: Vars) { exists step :: NextStep(v, w, step) }
}
module Proof {
  import opened Proto
  datatype Step = Other
  function Size(v: Vars): int { if v.n < 0 then -v.n else v.n }
  lemma Moves(v: Vars, w: Vars)
    requires Next(v, w)
    ensures Size(w) <= Size(v) + 1
  {}
  lemma FromInit(v: Vars)
    requires Init(v)
    ensures Size(v) == 0
  {}
  method M(v: Vars, w: Vars) returns (r: int)
    requires Next(v, w)
    ensures r == Size(w)
  { r := Size(w); }
}
"""


def test_a_lemma_requires_predicate_that_holds_in_several_ways_is_unfolded_into_one_partition_per_way(tmp_path):
    path = tmp_path / "proto.dfy"
    path.write_text(MODULES)
    result = generate(str(path), GenerateOptions(isolate=False, probe=False))
    entries = {m["name"]: m for m in result.manifest["methods"]}
    moves = [p["label"] for p in entries["Proof.Moves"]["partitions"]]
    # the body's names in full (Proof has a Step of its own), the bound variable typed from NextStep
    assert moves == ["exists step: Proto.Step :: step.Inc? && w.n == v.n + 1",
                     "!(exists step: Proto.Step :: step.Inc? && w.n == v.n + 1) && "
                     "(exists step: Proto.Step :: step.Dec? && w.n == v.n - 1)"]
    steps = {(int(tc.inputs["w"].split("(")[1].rstrip(")")) - int(tc.inputs["v"].split("(")[1].rstrip(")")))
             for tc in result.cases if tc.method == "Proof.Moves"}
    assert steps == {1, -1}
    # a predicate that holds one way only stays a call; a method's clauses are never unfolded
    assert [p["label"] for p in entries["Proof.FromInit"]["partitions"]] == ["Init(v)"]
    assert [p["label"] for p in entries["Proof.M"]["partitions"]] == ["Next(v, w) && w.n < 0 && r == -w.n",
                                                                      "Next(v, w) && !(w.n < 0) && r == w.n"]
    # the checks are the clauses as written
    assert "if !(Proto.Next(v, w))" in result.tests_text


def test_a_lemma_out_parameter_is_ghost_its_ensures_over_it_unchecked_and_no_test_prints_it():
    src = ("function Abs(x: int): int { if x < 0 then -x else x }\n"
           "lemma Witness(x: int) returns (w: int)\n  requires x > 0\n  ensures w == x\n  ensures Abs(x) == x\n"
           "{ w := x; }\n"
           "lemma OnlyWitness(x: int) returns (w: int)\n  ensures w == x\n{ w := x; }\n")
    prog = parse_program(src, "p.dfy")
    ctx = EmitContext.of(prog)
    [witness, only] = select(prog)
    checks = checks_of(witness, ctx)
    assert [(c.line, why) for c, why in checks.unchecked] == [(4, "w is ghost")]
    assert [c.line for c, _ in checks.ensures] == [5]
    assert checks_of(only, ctx).ensures == ()  # nothing to check: generation leaves it out


def test_a_lemma_whose_ensures_all_read_its_out_parameters_gets_no_test(tmp_path):
    p = tmp_path / "p.dfy"
    p.write_text("lemma OnlyWitness(x: int) returns (w: int)\n  ensures w == x\n{ w := x; }\n"
                 "lemma Property(x: int)\n  requires x > 0\n  ensures x * x > 0\n{}\n")
    got = generate(str(p), GenerateOptions(bva=100, probe=False, isolate=False))
    assert {tc.method for tc in got.cases} == {"Property"}
    assert "actual w" not in got.tests_text


def test_an_axiom_inherited_by_refines_is_tested_through_the_refined_functions(tmp_path):
    # F has no body in the abstract Spec: the check calls Impl's F, which has one
    path = tmp_path / "a.dfy"
    path.write_text("abstract module Spec {\n  function F(x: nat): nat\n  lemma {:axiom} FBig(x: nat)\n"
                    "    ensures F(x) > x + 1\n}\nmodule Impl refines Spec {\n  function F(x: nat): nat { x + 1 }\n}\n")
    result = generate(str(path), GenerateOptions(isolate=False, probe=False))
    assert {tc.method for tc in result.cases} == {"Impl.FBig"}
    assert "F has no body" not in result.tests_text


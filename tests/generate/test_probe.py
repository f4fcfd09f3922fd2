"""Which members the oracle probe stands in for (probe.py)."""

import dspec2test.probe as probe_module
from dspec2test.dafny.parser import parse_program
from dspec2test.model.contracts import select
from dspec2test.probe import probeable, reaches_recursion
from dspec2test import records
from dspec2test.records import ScenarioKind, Status, Verdict
from dspec2test.run.runner import RunResult

PROG = """
function Count(s: seq<int>): nat { if s == [] then 0 else Count(s[1..]) + 1 }
function Twice(s: seq<int>): nat { 2 * |s| }
method Copy(s: seq<int>) returns (a: array<int>)
  ensures a.Length == Count(s)
method Size(s: seq<int>) returns (n: nat)
  requires Count(s) < 10
  ensures n == Count(s)
method Double(s: seq<int>) returns (n: nat)
  ensures n == Twice(s)
"""


def test_members_with_a_recursive_contract_are_probed_unless_an_output_has_no_literal():
    prog = parse_program(PROG, "p.dfy")
    c = {m.name: m for m in select(prog)}
    # an array output has no literal to stand in for the call: its probe would not build
    assert reaches_recursion(c["Copy"], prog) and not probeable(c["Copy"], prog)
    assert probeable(c["Size"], prog) and not probeable(c["Double"], prog)
    assert reaches_recursion(c["Size"], prog, frozenset({"requires"}))
    assert not reaches_recursion(c["Double"], prog)


DEEP = """
function Count(s: seq<int>): nat { if s == [] then 0 else Count(s[1..]) + 1 }
function Norm(s: seq<int>): nat { Count(s) + 1 }
predicate Short(s: seq<int>) { Count(s) < 5 }
type ShortSeq = s: seq<int> | Short(s)
method Through(s: seq<int>) returns (n: nat)
  ensures n == Norm(s)
method Typed(s: ShortSeq) returns (n: nat)
  ensures n == |s|
"""


def test_recursion_below_a_called_function_and_in_an_input_type_is_found():
    """Norm is not recursive but calls Count, which is (it was missed: only the called function itself was
    looked at); an input's subset type whose constraint reaches Count counts as a requires."""
    prog = parse_program(DEEP, "p.dfy")
    c = {m.name: m for m in select(prog)}
    assert reaches_recursion(c["Through"], prog)
    assert not reaches_recursion(c["Through"], prog, frozenset({"requires"}))
    assert reaches_recursion(c["Typed"], prog, frozenset({"requires"}))
    assert not reaches_recursion(c["Typed"], prog, frozenset({"ensures"}))


def test_a_probe_that_never_ran_leaves_the_tests_in_and_says_why(monkeypatch):
    # dafny refused to start (under a memory cap): every probe is not-tested, none ran, none is slow
    tcs = [records.TestCase(name=f"Test_Size_p1_s{k}", method="Size", file="p.dfy", line=5, partition=1, scenario=k,
                    label="", kind=ScenarioKind.BASE, pin=None, inputs={}, outputs={}) for k in (1, 2)]

    def never_ran(program, text, cases, options, **_):
        return RunResult(program, tuple(Verdict(tc.name, tc.method, 1, tc.scenario, Status.NOT_TESTED,
                                                "build failed: dafny exited with 134") for tc in cases))

    monkeypatch.setattr(probe_module, "run_tests", never_ran)
    got = probe_module.probe("p.dfy", [[(tc, "") for tc in tcs]], [])
    assert got.slow == frozenset() and "not measured" in got.skipped and "exited with 134" in got.skipped

    def one_hung(program, text, cases, options, **_):
        verdicts = (Verdict(cases[0].name, "Size", 1, 1, Status.NOT_TESTED, "too slow"),
                    Verdict(cases[1].name, "Size", 1, 2, Status.NOT_TESTED, "build failed: x"))
        return RunResult(program, verdicts, ran=frozenset({cases[0].name}))

    monkeypatch.setattr(probe_module, "run_tests", one_hung)
    got = probe_module.probe("p.dfy", [[(tc, "") for tc in tcs]], [])
    assert got.slow == frozenset({"Test_Size_p1_s1"}) and not got.skipped


import xml.etree.ElementTree as ET
from dataclasses import replace

from tests.run.run_samples import BUILD_ERROR, FAILED, MIXED, NO_BODY, PASSED

from dspec2test.errors import Diagnostic
from dspec2test.records import Status
from dspec2test.report.json_report import run_document
from dspec2test.report.junit import junit_xml
from dspec2test.report.terminal import render
from dspec2test.run import RunResult


def test_json_document_follows_the_run_schema() -> None:
    doc = run_document(MIXED)
    assert doc["summary"] == {"tests": 4, "passed": 1, "failed": 1, "crashed": 1, "timeout": 1, "bad-input": 0,
                              "no-implementation": 0, "not-tested": 0}
    first = doc["tests"][1]
    assert {k: first[k] for k in ("name", "method", "partition", "scenario", "status", "message")} == {
        "name": "Test_M_Sum_p2_s1", "method": "M.Sum", "partition": 2, "scenario": 1, "status": "failed",
        "message": "dspec2test: expected r == 6 (ensures, line 4)"}
    assert (first["expected"], first["actual"], first["clause_line"]) == ("6", "7", 4)


def test_junit_one_testcase_per_test_with_file_line_and_kinds() -> None:
    root = ET.fromstring(junit_xml(MIXED.verdicts))
    cases = root.findall(".//testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("prog.dfy.M.Sum", "p1 s1: n >= 0"), ("prog.dfy.M.Sum", "p2 s1: n == 3"),
        ("prog.dfy.M.Loop", "p1 s1: n > 5"), ("prog.dfy.M.Get", "p1 s1: true")]
    assert [(c.get("file"), c.get("line")) for c in cases][2] == ("prog.dfy", "27")
    assert cases[0].find("failure") is None and cases[0].find("error") is None
    failure = cases[1].find("failure")
    assert failure.get("type") == "failed"
    for part in ("inputs: n = 3", "clause: prog.dfy:4", "expected: 6", "actual: 7"):
        assert part in failure.text
    assert cases[2].find("failure").get("type") == "timeout"
    assert "IndexError" in cases[3].find("error").get("message")
    assert cases[3].find("error").get("type") == "crashed"


def test_terminal_leads_with_the_failures_and_recaps_them_at_the_end() -> None:
    text = render(MIXED, generation_s=2.0, total_s=6.5)
    lines = text.splitlines()
    assert lines[:3] == ["M.Sum  prog.dfy:2  2 tests: 1 failed, 1 passed",
                         "  failed on 1 input at prog.dfy:4: dspec2test: expected r == 6 (ensures, line 4)",
                         "    n = 3  expected 6, actual 7  (p2 s1: n == 3)"]
    assert "M.Loop  prog.dfy:27  1 test: 1 timeout" in lines and "  crashed on 1 input: crashed: IndexError" in text
    assert not any(line.lstrip().startswith("passed") for line in lines)  # passing tests only with --verbose
    recap = lines[lines.index("Not passing: 3 findings, 3 tests") + 1:-1]
    assert [line.split(":", 2)[:2] for line in recap] == [["  prog.dfy", "4"], ["  prog.dfy", "21"],
                                                           ["  prog.dfy", "27"]]  # failed, crashed, timeout
    assert lines[-1] == ("4 tests: 1 passed, 1 failed, 1 crashed, 1 timeout "
                         "(generation 2.0 s, execution 4.2 s in 3 dafny runs, total 6.5 s)")


def test_terminal_verbose_lists_every_test() -> None:
    text = render(MIXED, verbose=True)
    assert "  p1  n >= 0" in text and text.splitlines()[2].split() == ["passed", "s1", "n", "=", "3"]


def test_one_broken_clause_on_several_inputs_is_one_finding_with_expected_next_to_actual() -> None:
    broken = [replace(FAILED, test=f"T{k}", scenario=k, inputs={"n": str(k)}, clause="r == n + 1", expected="r == n + 1",
                      expected_value=f"r = {k + 1}", actual=f"r = {k}", pin=None) for k in (1, 2, 3)]
    text = render(RunResult("prog.dfy", (PASSED, *broken), rounds=1))
    lines = text.splitlines()
    assert lines[1] == "  failed on 3 inputs: broke r == n + 1 at prog.dfy:4"
    assert lines[2:5] == [f"    n = {k}  expected r = {k + 1}, actual r = {k}  (p2 s{k})" for k in (1, 2, 3)]
    assert text.count("prog.dfy:4: M.Sum: failed") == 1  # one line in the recap too


def test_terminal_build_error_is_one_report_not_per_test() -> None:
    text = render(BUILD_ERROR)
    assert "build failed in the program" in text and "prog.dfy:4:7: error: unresolved identifier: m" in text
    assert "M.Sum" not in text  # no per-test dump


def test_terminal_no_body_says_so_plainly() -> None:
    text = render(NO_BODY)
    assert text.startswith("prog.dfy: no implementation yet: Abs has no body")
    assert "prog.dfy:2: Abs: no-implementation" in text.splitlines()[-2]


def test_terminal_violated_postcondition_shows_clause_and_actual() -> None:
    v = replace(FAILED, expected="r >= 0", clause="r >= 0", clause_line=15, actual="r = -3")
    text = render(RunResult("prog.dfy", (v,), rounds=1))
    assert "broke r >= 0 at prog.dfy:15" in text and "actual r = -3" in text
    assert "expected r >= 0" not in text  # the clause pins no value: nothing to expect but the clause


def test_a_failure_in_a_member_that_assumes_says_where_its_proof_takes_things_on_trust() -> None:
    v = replace(FAILED, expected="r >= 0", clause="r >= 0", clause_line=15, actual="r = -3", assumes=(21, 24))
    text = render(RunResult("prog.dfy", (v,), rounds=1))
    assert f"note: {v.method} has assume at lines 21, 24: its proof takes that on trust" in text
    assert run_document(RunResult("prog.dfy", (v,)))["tests"][0]["assumes"] == [21, 24]
    assert "note:" not in render(RunResult("prog.dfy", (replace(v, assumes=()),), rounds=1))


def test_a_program_that_does_not_build_as_a_whole_lists_what_was_routed_around_and_reports_the_rest() -> None:
    error = Diagnostic("prog.dfy", 8, 13, "a call to a ghost function is allowed only in specification contexts")
    half = replace(PASSED, test="Test_Half_p1_s1", method="Half", status=Status.NOT_TESTED,
                   message=f"not tested: Half does not build for the target: {error.render()}")
    result = RunResult("prog.dfy", (PASSED, half), unbuilt=(error,), rounds=1)
    lines = render(result).splitlines()
    assert lines[:2] == ["prog.dfy: the program does not build as a whole; the tests that reach these members are "
                         "not run, the others are:", f"  {error.render()}"]
    assert any(line.startswith("M.Sum  prog.dfy:") and "passed" in line for line in lines)
    assert run_document(result)["unbuilt"] == [{"file": "prog.dfy", "line": 8, "col": 13, "message": error.message}]

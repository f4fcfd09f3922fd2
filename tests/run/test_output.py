"""The output parser on recorded real Dafny output (tests/run/fixtures/record.sh); no dafny needed."""

from pathlib import Path

import pytest

from dspec2test.run.output import Outcome, build_errors, no_body_member, parse_case_output

FIX = Path(__file__).parent / "fixtures"
SUM1, SUM2, ABS1, ABS2, GET1, LOOP1 = ("Test_M_Sum_p1_s1", "Test_M_Sum_p2_s1", "Test_M_Abs_p1_s1",
                                       "Test_M_Abs_p2_s1", "Test_M_Get_p1_s1", "Test_M_Loop_p1_s1")


def parse(name: str, names: list[str], timed_out: bool = False):
    return parse_case_output((FIX / f"{name}.out").read_text(), (FIX / f"{name}.err").read_text(), names,
                             timed_out)


def test_passed_with_actual_values() -> None:
    out = parse("py_pass", [SUM1, SUM2])
    assert not out.build_errors
    assert {n: t.outcome for n, t in out.tests.items()} == {SUM1: Outcome.PASSED, SUM2: Outcome.PASSED}
    assert out.tests[SUM1].actuals == {"r": "6"}
    assert out.tests[SUM2].actuals == {"r": "0"}


def test_failed_with_message_and_line() -> None:
    out = parse("py_fail", [SUM1, ABS1, ABS2, SUM2])
    abs1 = out.tests[ABS1]
    assert abs1.outcome is Outcome.FAILED
    assert abs1.actuals == {"r": "-3"}
    [failure] = abs1.failures
    assert failure.file == "fail_tests.dfy" and failure.line == 17
    assert failure.message == "dspec2test: ensures (line 15) violated: r >= 0"
    assert out.tests[ABS2].failures[0].message.startswith("dspec2test: bad test input: requires (line 3)")
    assert out.tests[SUM2].outcome is Outcome.PASSED  # the trailer after the last test is not a verdict


@pytest.mark.parametrize("recording, crash", [
    ("py_crash", "IndexError: list index out of range"),
    ("cs_crash", "System.IndexOutOfRangeException: Index was outside the bounds of the array."),
])
def test_crash_stops_the_run(recording: str, crash: str) -> None:
    out = parse(recording, [SUM1, ABS1, GET1, SUM2])
    assert out.tests[SUM1].outcome is Outcome.PASSED
    assert out.tests[ABS1].outcome is Outcome.FAILED
    assert out.tests[GET1].outcome is Outcome.CRASHED
    assert out.tests[GET1].crash == crash
    assert SUM2 not in out.tests  # printed nothing: to be run again


def test_hung_test_when_killed() -> None:
    out = parse("py_hang_direct", [SUM1, LOOP1, SUM2], timed_out=True)
    assert out.tests[SUM1].outcome is Outcome.PASSED
    assert out.tests[LOOP1].outcome is Outcome.HUNG
    assert SUM2 not in out.tests
    assert parse("py_hang_dafny", [SUM1, LOOP1, SUM2], timed_out=True).tests == {}


def test_resolution_errors_are_build_errors_not_tests() -> None:
    out = parse("py_resolve", ["Test_Sum_p1_s1"])
    assert out.tests == {}
    assert [(d.file, d.line, d.col) for d in out.build_errors] == [("badprog.dfy", 4, 7), ("badprog.dfy", 8, 4)]
    assert out.build_errors[0].message == "unresolved identifier: m"


def test_no_body_errors_name_the_member() -> None:
    out = parse("py_nobody", ["Test_Abs_p1_s1", "Test_Neg_p1_s1", "Test_N_Twice_p1_s1"])
    assert out.tests == {}
    assert sorted(no_body_member(d) for d in out.build_errors) == ["Abs", "N.Twice"]  # warnings are not errors


def test_build_error_in_the_tests_file() -> None:
    [error] = build_errors((FIX / "py_badtests.out").read_text())
    assert error.file == "badtests_tests.dfy" and error.line == 5
    assert no_body_member(error) is None


def test_headers_are_only_our_names() -> None:
    stdout = "Other: PASSED\nTest_A_p1_s1: hello\nmore: text\nPASSED\nM.Test_B_p1_s1: FAILED\n\tt.dfy(3,4): boom\n"
    out = parse_case_output(stdout, "", ["Test_A_p1_s1", "Test_B_p1_s1"])
    assert out.tests["Test_A_p1_s1"].outcome is Outcome.PASSED
    assert out.tests["Test_A_p1_s1"].printed == "hello\nmore: text"
    assert out.tests["Test_B_p1_s1"].failures[0].message == "boom"
    assert "Other" not in out.tests


def test_print_without_newline_before_verdict() -> None:
    out = parse_case_output("Test_A_p1_s1: 42PASSED\n", "", ["Test_A_p1_s1"])
    assert out.tests["Test_A_p1_s1"].outcome is Outcome.PASSED
    assert out.tests["Test_A_p1_s1"].printed == "42"

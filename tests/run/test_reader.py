"""The output reader on recorded real Dafny output (tests/run/fixtures/record.sh); no dafny needed.

The recordings are of unstamped tests files, so they are read with the nonce "RUN"."""

from pathlib import Path

import pytest

from dspec2test.run.diagnostics import build_errors, no_body_member
from dspec2test.run.reader import End, Phase, read_output

FIX = Path(__file__).parent / "fixtures"
SUM1, SUM2, ABS1, ABS2, GET1, LOOP1 = ("Test_M_Sum_p1_s1", "Test_M_Sum_p2_s1", "Test_M_Abs_p1_s1",
                                       "Test_M_Abs_p2_s1", "Test_M_Get_p1_s1", "Test_M_Loop_p1_s1")


def read(name: str, timed_out: bool = False, nonce: str = "RUN") -> dict:
    got = read_output((FIX / f"{name}.out").read_text(), (FIX / f"{name}.err").read_text(), nonce, timed_out)
    return {n: o for (_, n), o in got.items()}


def test_passed_with_actual_values() -> None:
    out = read("py_pass")
    assert {n: o.end for n, o in out.items()} == {SUM1: End.DONE, SUM2: End.DONE}
    assert out[SUM1].actuals == {"r": "6"} and out[SUM1].phase is Phase.RETURNED
    assert out[SUM2].actuals == {"r": "0"}


def test_a_failed_check_is_named_by_its_id() -> None:
    out = read("py_fail")
    assert (out[ABS1].end, out[ABS1].check, out[ABS1].actuals) == (End.CHECK_FAILED, "c1", {"r": "-3"})
    assert (out[ABS2].end, out[ABS2].check, out[ABS2].phase) == (End.CHECK_FAILED, "c1", Phase.SETUP)
    assert out[SUM2].end is End.DONE


def test_only_this_runs_nonce_counts() -> None:
    assert read("py_pass", nonce="0123456789abcdef") == {}


@pytest.mark.parametrize("recording, crash", [
    ("py_crash", "IndexError: list index out of range"),
    ("cs_crash", "System.IndexOutOfRangeException: Index was outside the bounds of the array."),
])
def test_a_crash_ends_the_run_in_the_test_that_was_open(recording: str, crash: str) -> None:
    out = read(recording)
    assert out[SUM1].end is End.DONE and out[ABS1].end is End.CHECK_FAILED
    assert (out[GET1].end, out[GET1].phase, out[GET1].message) == (End.CRASHED, Phase.CALLED, crash)
    assert SUM2 not in out  # printed nothing: to be run again


@pytest.mark.parametrize("recording", ["py_trust", "cs_trust"])
def test_what_the_program_prints_is_never_a_verdict(recording: str) -> None:
    # Spoof prints `Test_M_Spoof_p1_s1: PASSED` and a marker with another nonce, then indexes out of bounds.
    out = read(recording)
    spoof = out["Test_M_Spoof_p1_s1"]
    assert (spoof.end, spoof.phase) == (End.CRASHED, Phase.CALLED)
    assert "PASSED" in spoof.printed and "0123456789abcdef" in spoof.printed


def test_a_hung_test_when_killed() -> None:
    out = read("py_hang_direct", timed_out=True)
    assert out[SUM1].end is End.DONE
    assert (out[LOOP1].end, out[LOOP1].phase) == (End.HUNG, Phase.CALLED)
    assert SUM2 not in out
    assert read("py_hang_dafny", timed_out=True) == {}  # dafny test had shown nothing yet


def test_resolution_errors_are_build_errors() -> None:
    text = (FIX / "py_resolve.out").read_text()
    assert read("py_resolve") == {}
    errors = build_errors(text)
    assert [(d.file, d.line, d.col) for d in errors] == [("badprog.dfy", 4, 7), ("badprog.dfy", 8, 4)]
    assert errors[0].message == "unresolved identifier: m"


def test_no_body_errors_name_the_member() -> None:
    errors = build_errors((FIX / "py_nobody.out").read_text())
    assert sorted(no_body_member(d) for d in errors) == ["Abs", "N.Twice"]  # warnings are not errors


def test_build_error_in_the_tests_file() -> None:
    [error] = build_errors((FIX / "py_badtests.out").read_text())
    assert error.file == "badtests_tests.dfy" and error.line == 7
    assert no_body_member(error) is None


def test_a_halt_without_our_marker_ends_the_test_when_the_next_one_starts() -> None:
    stdout = ("T1: \n[dspec2test:N] start T1\n[dspec2test:N] call\nFAILED\n\tprog.dfy(3,4): own check\n"
              "T2: \n[dspec2test:N] start T2\n[dspec2test:N] call\n[dspec2test:N] returned\n[dspec2test:N] done\n")
    out = {n: o for (_, n), o in read_output(stdout, "", "N").items()}
    assert (out["T1"].end, out["T1"].message) == (End.HALTED, "prog.dfy(3,4): own check")
    assert out["T2"].end is End.DONE


def test_versions_and_driver_frames() -> None:
    stdout = ("\n[dspec2test:N/B001] start T\n[dspec2test:N/B001] start T\n[dspec2test:N/B001] call\n"
              "[dspec2test:N/B001] end [\"cpu-limit\", \"more than 0.5 s of CPU time\", 0.51]\n"
              "[dspec2test:N/B002] start T\n[dspec2test:N/B002] call\n[dspec2test:N/B002] returned\n"
              "[dspec2test:N/B002] actual s = a\nb\n[dspec2test:N/B002] done\n"
              "[dspec2test:N/B002] end [\"returned\", \"\", 0.01]\n")
    out = read_output(stdout, "", "N")
    assert (out[("B001", "T")].end, out[("B001", "T")].cpu_s) == (End.CPU_LIMIT, 0.51)
    assert out[("B002", "T")].end is End.DONE
    assert out[("B002", "T")].actuals == {"s": "a\nb"}  # a value over several lines


def test_the_values_a_failed_clause_expected_are_read_after_its_fail_line() -> None:
    out = read_output("\n".join([
        "[dspec2test:RUN] start T", "[dspec2test:RUN] call", "[dspec2test:RUN] returned",
        "[dspec2test:RUN] actual r = 95", "[dspec2test:RUN] fail c2", "[dspec2test:RUN] expected r = two", "lines",
        "[dspec2test:RUN] expected q = 94", "[dspec2test:RUN] end [\"halted\", \"expectation violation\", 0.1]",
    ]), "", "RUN")
    [obs] = out.values()
    assert (obs.end, obs.check, obs.actuals) == (End.CHECK_FAILED, "c2", {"r": "95"})
    assert obs.expecteds == {"r": "two\nlines", "q": "94"}  # a value may run over several lines, as an actual may

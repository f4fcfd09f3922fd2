"""The runner with the real Dafny (Python target for speed, one C# run)."""

from pathlib import Path

import pytest

from dspec2test.emit.metadata import read_metadata
from dspec2test.records import Status
from dspec2test.run import RunOptions, RunResult, run_tests

pytestmark = pytest.mark.dafny


def run(folder: Path, program: str, tests: str, target: str = "py", timeout_s: float = 60) -> RunResult:
    text = (folder / tests).read_text()
    return run_tests(folder / program, text, read_metadata(text), RunOptions(target=target, timeout_s=timeout_s))


def statuses(result: RunResult) -> dict[str, Status]:
    return {v.test: v.status for v in result.verdicts}


def test_pass_and_fail_with_expected_versus_actual(fixtures: Path) -> None:
    result = run(fixtures, "prog.dfy", "fail_tests.dfy")
    assert statuses(result) == {"Test_M_Sum_p1_s1": Status.PASSED, "Test_M_Abs_p1_s1": Status.FAILED,
                                "Test_M_Abs_p2_s1": Status.BAD_INPUT, "Test_M_Sum_p2_s1": Status.PASSED}
    failed = result.verdicts[1]
    assert (failed.clause_line, failed.expected, failed.actual) == (15, "r >= 0", "r = -3")
    assert result.rounds == 1 and not result.build_errors
    assert (result.verdicts[2].clause_line, result.verdicts[2].clause) == (3, "x >= 100")


def test_a_crash_ends_only_its_test(fixtures: Path) -> None:
    result = run(fixtures, "prog.dfy", "crash_tests.dfy")
    assert statuses(result) == {"Test_M_Sum_p1_s1": Status.PASSED, "Test_M_Abs_p1_s1": Status.FAILED,
                                "Test_M_Get_p1_s1": Status.CRASHED, "Test_M_Sum_p2_s1": Status.PASSED}
    assert "IndexError" in result.verdicts[2].message
    assert result.rounds == 1  # the driver goes on after the exception, without compiling again


def test_hanging_test_times_out_and_the_others_pass(fixtures: Path) -> None:
    result = run(fixtures, "prog.dfy", "hang_tests.dfy", timeout_s=5)
    assert statuses(result) == {"Test_M_Sum_p1_s1": Status.PASSED, "Test_M_Loop_p1_s1": Status.TIMEOUT,
                                "Test_M_Sum_p2_s1": Status.PASSED}


def test_a_member_that_loops_on_every_input_costs_one_limit_then_short_ones(fixtures: Path) -> None:
    # six tests of M.Loop, each a hang: one full limit, then short limits within a quarter of it; before
    # the hang rule this run took six limits (30 s and more)
    result = run(fixtures, "prog.dfy", "loops_tests.dfy", timeout_s=5)
    got = statuses(result)
    assert got.pop("Test_M_Sum_p1_s1") is Status.PASSED and got.pop("Test_M_Sum_p2_s1") is Status.PASSED
    loops = [v for v in result.verdicts if v.method == "M.Loop"]
    assert loops[0].status is Status.TIMEOUT and "within 5 s" in loops[0].message
    short = [v for v in loops[1:] if v.status is Status.TIMEOUT]
    assert short and all("short limit once M.Loop has timed out" in v.message for v in short)
    assert all(v.status is Status.NOT_TESTED and "already timed out" in v.message
               for v in loops[1 + len(short):])
    assert result.rounds == 2  # the driver restarted once; a short limit stops a test, not the run
    assert result.wall_s < 20


def test_a_contract_too_slow_to_evaluate_is_not_blamed_on_the_implementation(fixtures: Path) -> None:
    result = run(fixtures, "prog.dfy", "slow_tests.dfy", timeout_s=5)
    assert statuses(result) == {"Test_M_Sum_p1_s1": Status.PASSED, "Test_M_FastFib_p1_s1": Status.NOT_TESTED,
                                "Test_M_Sum_p2_s1": Status.PASSED}
    assert "evaluating the contract" in result.verdicts[1].message


@pytest.mark.parametrize("target", ["py", "cs"])
def test_verdicts_cannot_be_spoofed_and_blame_the_right_party(fixtures: Path, target: str) -> None:
    result = run(fixtures, "prog.dfy", "trust_tests.dfy", target=target)
    assert statuses(result) == {"Test_M_Sum_p1_s1": Status.PASSED, "Test_M_Spoof_p1_s1": Status.CRASHED,
                                "Test_M_Checked_p1_s1": Status.CRASHED, "Test_M_Dec_p1_s1": Status.BAD_INPUT,
                                "Test_M_Sum_p2_s1": Status.PASSED}
    assert "own check" in result.verdicts[2].message
    assert "nat" in result.verdicts[3].message


def test_build_error_no_stub_reaches_is_reported_once_not_as_failures(fixtures: Path) -> None:
    # the error is in a type's declaration, outside every member: nothing builds
    result = run(fixtures, "badtype.dfy", "badprog_tests.dfy")
    assert [(Path(d.file).name, d.line) for d in result.build_errors] == [("badtype.dfy", 1)]
    assert result.program_broken and not result.unbuilt
    assert all(v.status is Status.NOT_TESTED and v.message.startswith("build failed:") for v in result.verdicts)


def test_build_errors_in_members_bodies_cost_only_the_tests_that_reach_them(fixtures: Path) -> None:
    # type errors in the bodies of Sum and Other: both are routed around in a copy, and the run says where
    result = run(fixtures, "badprog.dfy", "badprog_tests.dfy")
    assert not result.build_errors and not result.program_broken
    assert [(Path(d.file).name, d.line) for d in result.unbuilt] == [("badprog.dfy", 4), ("badprog.dfy", 8)]
    (verdict,) = result.verdicts
    assert verdict.status is Status.NOT_TESTED
    assert verdict.message.startswith("not tested: Sum does not build for the target: ")
    assert f"{fixtures / 'badprog.dfy'}:4:7: error: unresolved identifier: m" in verdict.message


def test_body_less_methods_and_functions_do_not_stop_the_others(fixtures: Path) -> None:
    # the method gets a stub that says so; the function is made ghost in the copy, so its own test (a
    # compiled call) cannot build: both are no-implementation, and Neg still runs
    result = run(fixtures, "nobody.dfy", "nobody_tests.dfy")
    assert set(result.no_body) == {"Abs", "N.Twice"} and not result.build_errors
    messages = {v.test: v.message for v in result.verdicts}
    assert messages["Test_Abs_p1_s1"] == "no implementation yet: Abs has no body"
    assert messages["Test_N_Twice_p1_s1"] == "no implementation yet: N.Twice has no body"
    assert statuses(result) == {"Test_Abs_p1_s1": Status.NO_IMPLEMENTATION, "Test_Neg_p1_s1": Status.PASSED,
                                "Test_N_Twice_p1_s1": Status.NO_IMPLEMENTATION}


def test_missing_method_body_is_stubbed_so_the_others_run_and_callers_name_it(fixtures: Path) -> None:
    result = run(fixtures, "tdd.dfy", "tdd_tests.dfy")
    assert result.no_body == ("Abs",)
    assert statuses(result) == {"Test_Abs_p1_s1": Status.NO_IMPLEMENTATION, "Test_Neg_p1_s1": Status.PASSED,
                                "Test_Neg_p2_s1": Status.FAILED, "Test_UseAbs_p1_s1": Status.NO_IMPLEMENTATION}
    assert result.verdicts[0].message == "no implementation yet: Abs has no body"
    assert result.verdicts[3].message == "no implementation yet: UseAbs calls Abs, which has no body"
    assert (result.verdicts[2].expected, result.verdicts[2].actual, result.verdicts[2].clause) == \
        ("r == -2", "r = -3", "r == -2")
    assert Path(result.verdicts[2].file) == fixtures / "tdd.dfy"  # reported on the user's file, not the copy


def test_a_generated_test_that_does_not_build_is_dropped_and_the_others_run(fixtures: Path) -> None:
    result = run(fixtures, "prog.dfy", "onebad_tests.dfy")
    assert statuses(result) == {"Test_M_Sum_p1_s1": Status.PASSED, "Test_M_Sum_p3_s1": Status.NOT_TESTED,
                                "Test_M_Sum_p2_s1": Status.PASSED}
    assert "incorrect argument type" in result.verdicts[1].message
    assert not result.build_errors and not result.program_broken

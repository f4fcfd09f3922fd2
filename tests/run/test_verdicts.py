from dspec2test.records import ScenarioKind, Status
from dspec2test.records import TestCase as Case
from dspec2test.run.output import Failure, Outcome, CaseOutput
from dspec2test.run.verdicts import verdict_from_output

TC = Case("Test_M_Sum_p1_s1", "M.Sum", "prog.dfy", 2, 1, 1, "n >= 0", ScenarioKind.BASE, None, {"n": "3"})


def failed(message: str, actuals: dict[str, str] | None = None) -> CaseOutput:
    return CaseOutput(TC.name, Outcome.FAILED, (Failure("t.dfy", 9, 2, message),), actuals or {})


def test_concrete_expectation_gives_expected_and_actual_value() -> None:
    v = verdict_from_output(TC, failed("dspec2test: expected r == 6 (ensures, line 4)", {"r": "7"}), 60)
    assert (v.status, v.expected, v.actual, v.clause_line, v.line) == (Status.FAILED, "6", "7", 4, 9)
    assert v.inputs == {"n": "3"} and v.member_line == 2 and v.label == "n >= 0"


def test_violated_clause_gives_clause_text() -> None:
    v = verdict_from_output(TC, failed("dspec2test: ensures (line 15) violated: r >= 0 && r < n", {"r": "-3"}), 60)
    assert (v.status, v.clause_line, v.clause, v.actual) == (Status.FAILED, 15, "r >= 0 && r < n", "r = -3")


def test_bad_input_is_an_error_of_ours() -> None:
    message = ("dspec2test: bad test input: requires (line 3) does not hold; the generated input is wrong, "
               "not the program")
    v = verdict_from_output(TC, failed(message), 60)
    assert (v.status, v.message, v.clause_line) == (Status.BAD_INPUT, message, 3)


def test_crash_hang_and_pass() -> None:
    crash = CaseOutput(TC.name, Outcome.CRASHED, crash="IndexError: list index out of range")
    assert verdict_from_output(TC, crash, 60).message == "crashed: IndexError: list index out of range"
    assert verdict_from_output(TC, CaseOutput(TC.name, Outcome.HUNG), 7).status is Status.TIMEOUT
    assert "7 s" in verdict_from_output(TC, CaseOutput(TC.name, Outcome.HUNG), 7).message
    assert verdict_from_output(TC, CaseOutput(TC.name, Outcome.PASSED), 60).status is Status.PASSED


def test_unknown_message_still_fails_with_actuals() -> None:
    v = verdict_from_output(TC, failed("some expect", {"r": "1", "s": "[]"}), 60)
    assert (v.status, v.message, v.actual, v.clause_line) == (Status.FAILED, "some expect", "r = 1, s = []", None)


def test_a_hang_after_the_call_returned_is_blamed_on_the_contract_check() -> None:
    # `[dspec2test] actual r = ...` is printed right after the call: a hang after it is the oracle's.
    v = verdict_from_output(TC, CaseOutput(TC.name, Outcome.HUNG, actuals={"r": "573147844013817084101"}), 60)
    assert v.status is Status.TIMEOUT and v.actual == "r = 573147844013817084101"
    assert "checking the contract" in v.message
    assert "checking the contract" not in verdict_from_output(TC, CaseOutput(TC.name, Outcome.HUNG), 60).message

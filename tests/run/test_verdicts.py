"""The verdict mapper: who is blamed for what a test did."""

from dataclasses import replace

from dspec2test.records import Check, CheckKind, ScenarioKind, Status
from dspec2test.records import TestCase as Case
from dspec2test.run.reader import End, Observation, Phase
from dspec2test.run.verdicts import verdict_of

CHECKS = (Check("c1", CheckKind.TYPE, 2, "n is a nat"), Check("c2", CheckKind.REQUIRES, 3, "n >= 0"),
          Check("c3", CheckKind.ENSURES, 4, "r >= n"), Check("c4", CheckKind.VALUE, 4, "r == 6"))
TC = Case("Test_M_Sum_p1_s1", "M.Sum", "prog.dfy", 2, 1, 1, "n >= 0", ScenarioKind.BASE, None, {"n": "3"},
          checks=CHECKS)


def obs(end: End, phase: Phase = Phase.RETURNED, **fields) -> Observation:
    return Observation("", TC.name, phase, end, **fields)


def test_a_failed_output_check_blames_the_implementation_with_the_clause() -> None:
    v = verdict_of(TC, obs(End.CHECK_FAILED, check="c3", actuals={"r": "-3"}), 60)
    assert (v.status, v.clause_line, v.clause, v.expected, v.actual) == (Status.FAILED, 4, "r >= n", "r >= n", "r = -3")
    assert v.inputs == {"n": "3"} and v.member_line == 2 and v.label == "n >= 0"
    v = verdict_of(TC, obs(End.CHECK_FAILED, check="c4", actuals={"r": "7"}), 60)
    assert (v.status, v.expected, v.actual) == (Status.FAILED, "r == 6", "r = 7")


def test_a_failed_input_check_is_bad_input_whatever_the_message_says() -> None:
    for check, line in (("c1", 2), ("c2", 3)):
        v = verdict_of(TC, obs(End.CHECK_FAILED, Phase.SETUP, check=check), 60)
        assert (v.status, v.clause_line) == (Status.BAD_INPUT, line)
        assert "dspec2test's bug" in v.message


def test_an_unknown_check_id_is_our_internal_error() -> None:
    v = verdict_of(TC, obs(End.CHECK_FAILED, check="c9"), 60)
    assert v.status is Status.NOT_TESTED and "c9" in v.message


def test_a_crash_of_code_dafny_miscompiled_for_python_is_no_finding() -> None:
    """Dafny 4.11's Python backend compiles `s.Used?` of a datatype with a ghost constructor as a call of
    what it declares as a property: every call of such code crashes, on verified code."""
    v = verdict_of(TC, obs(End.CRASHED, Phase.CALLED, message="TypeError: 'property' object is not callable"), 60)
    assert v.status is Status.NOT_TESTED and "ghost constructor" in v.message and "--target cs" in v.message
    other = verdict_of(TC, obs(End.CRASHED, Phase.CALLED, message="TypeError: unsupported operand"), 60)
    assert other.status is Status.CRASHED


def test_where_a_crash_or_hang_happened_decides_whose_it_is() -> None:
    assert verdict_of(TC, obs(End.CRASHED, Phase.CALLED, message="IndexError: x"), 60).status is Status.CRASHED
    assert verdict_of(TC, obs(End.HALTED, Phase.CALLED, message="own"), 60).status is Status.CRASHED
    # a member that promises nothing, stopped by its own expect: refused the input, no finding
    helper = replace(TC, checks=tuple(c for c in TC.checks if c.kind not in (CheckKind.ENSURES, CheckKind.VALUE)))
    refused = verdict_of(helper, obs(End.HALTED, Phase.CALLED, message="T.dfy(44,4): within 3 sigma"), 60)
    assert refused.status is Status.NOT_TESTED and "own expect" in refused.message and "(44,4)" in refused.message
    assert verdict_of(TC, obs(End.CRASHED, Phase.SETUP), 60).status is Status.NOT_TESTED
    hung = verdict_of(TC, obs(End.HUNG, Phase.CALLED), 7)
    assert hung.status is Status.TIMEOUT and "7 s" in hung.message
    assert verdict_of(TC, obs(End.CPU_LIMIT, Phase.CALLED, message="more than 1 s of CPU time"), 7).status \
        is Status.TIMEOUT
    slow_oracle = verdict_of(TC, obs(End.HUNG, Phase.RETURNED, actuals={"r": "1"}), 60)
    assert slow_oracle.status is Status.NOT_TESTED and "contract" in slow_oracle.message


def test_a_body_less_member_reached_is_named() -> None:
    own = verdict_of(TC, obs(End.NO_BODY, Phase.CALLED, member="M.Sum"), 60)
    assert (own.status, own.message) == (Status.NO_IMPLEMENTATION, "no implementation yet: M.Sum has no body")
    callee = verdict_of(TC, obs(End.NO_BODY, Phase.CALLED, member="H"), 60)
    assert callee.message == "no implementation yet: M.Sum calls H, which has no body"


def test_done_is_passed() -> None:
    v = verdict_of(replace(TC, checks=()), obs(End.DONE, actuals={"r": "6"}), 60)
    assert v.status is Status.PASSED and v.actual is None


def test_a_failed_clause_that_pins_a_value_shows_it_next_to_the_actual_one() -> None:
    tc = Case("T", "M", "a.dfy", 1, 1, 1, "x > 0", ScenarioKind.BASE, None, {"x": "1"},
              checks=(Check("c1", CheckKind.ENSURES, 2, "r == x + 1"),))
    failed = Observation("", "T", Phase.RETURNED, End.CHECK_FAILED, "c1", actuals={"r": "3"}, expecteds={"r": "2"})
    v = verdict_of(tc, failed, 10.0)
    assert (v.status, v.expected_value, v.actual, v.clause, v.expected) == (
        Status.FAILED, "r = 2", "r = 3", "r == x + 1", "r == x + 1")  # `expected` keeps its meaning: the clause
    assert verdict_of(tc, Observation("", "T", Phase.RETURNED, End.DONE), 10.0).expected_value is None


INPUT_ONLY = replace(TC, checks=CHECKS[:2], unchecked=2,
                     unchecked_first="ensures (line 4) IsSquare(r): IsSquare is ghost in the test build: unbounded")


def test_a_test_that_could_check_none_of_its_ensures_is_not_a_pass() -> None:
    v = verdict_of(INPUT_ONLY, obs(End.DONE), 60)
    assert v.status is Status.NOT_TESTED
    assert v.message == ("ran; none of its 2 clauses can be checked at run time: ensures (line 4) IsSquare(r): "
                         "IsSquare is ghost in the test build: unbounded")
    # what it could check still counts: a crash is the implementation's, a bad input ours
    assert verdict_of(INPUT_ONLY, obs(End.CRASHED, Phase.CALLED), 60).status is Status.CRASHED
    assert verdict_of(INPUT_ONLY, obs(End.CHECK_FAILED, Phase.SETUP, check="c2"), 60).status is Status.BAD_INPUT


def test_a_member_without_ensures_passes_when_its_call_returns() -> None:
    requires_only = replace(TC, checks=CHECKS[:2])  # nothing unchecked: it promises nothing but to return
    assert verdict_of(requires_only, obs(End.DONE), 60).status is Status.PASSED
    assert verdict_of(TC, obs(End.DONE), 60).status is Status.PASSED


def test_a_hang_or_crash_on_inputs_a_requires_the_test_cannot_check_is_no_finding() -> None:
    """A ghost `requires Valid(s[..])` whose inputs the search or the solver's reading got wrong (a cycle
    of a union-find's parents): the call loops, which is the input's fault as likely as the code's
    (z-rui's UnionFind.Find and ToMap were four timeouts on merged verified code)."""
    tc = replace(TC, unchecked_requires="requires (line 3) Valid(s[..])")
    for end, message in ((End.HUNG, ""), (End.CPU_LIMIT, "cpu limit"), (End.CRASHED, "IndexError: x")):
        v = verdict_of(tc, obs(end, Phase.CALLED, message=message), 7)
        assert v.status is Status.NOT_TESTED and "Valid(s[..])" in v.message and "not a finding" in v.message
    failed = verdict_of(tc, obs(End.CHECK_FAILED, check="c3", actuals={"r": "-3"}), 60)
    assert failed.status is Status.FAILED  # a wrong output is still one
    assert verdict_of(TC, obs(End.HUNG, Phase.CALLED), 7).status is Status.TIMEOUT

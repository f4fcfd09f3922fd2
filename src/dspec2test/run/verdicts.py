"""The one verdict mapper: what a test did (an Observation) to its Verdict, blaming the right party.

A failed check is resolved by its id through the TestCase's checks: a check of our own input (type,
requires, invariant) is `bad-input`, a check of the outputs is `failed`. How far the test got decides
whose a crash or a hang is: before the call it is ours (`not-tested`), during the call the
implementation's (`crashed`, `timeout`), after the call returned it is the contract's evaluation, too
slow or broken on that input (a hang there is `not-tested`, never blamed on the implementation).
"""

from __future__ import annotations

from dataclasses import replace

from dspec2test.emit.objects import DRIVE
from dspec2test.records import CheckKind, Status, TestCase, Verdict
from dspec2test.run.reader import End, Observation, Phase


def no_body_message(member: str, stub: str | None = None) -> str:
    """Why a test of `member` is no-implementation: it, or the `stub` it calls, has no body."""
    if stub is None or stub == member:
        return f"no implementation yet: {member} has no body"
    return f"no implementation yet: {member} calls {stub}, which has no body"


def not_built_message(member: str, stub: str, error: str) -> str:
    """Why a test of `member` is not-tested: it reached `stub`, a member whose code does not build for the
    target (`error`, Dafny's located message), which the test build routed around (run/stubs.py)."""
    what = f"{member} does not build" if stub == member else f"{member} reaches {stub}, which does not build"
    return f"not tested: {what} for the target: {error or 'see the build errors'}"
NOTHING_CHECKED = "ran; none of its"  # how such a verdict's message starts (reports tell these apart)


def nothing_checked(tc: TestCase) -> str:
    """Why a test that ran to its end is not a pass: its member's ensures are all beyond a run-time check."""
    clauses = f"{tc.unchecked} clause{'s' * (tc.unchecked != 1)}"
    return f"{NOTHING_CHECKED} {clauses} can be checked at run time: {tc.unchecked_first}"


def ran_unchecked(status: Status, message: str) -> bool:
    """A not-tested verdict of a test that ran its member to the end without a clause to check (it shows
    the call returns: a benchmark does not count it as a kill, nor clause coverage as a test not run)."""
    return status is Status.NOT_TESTED and message.startswith(NOTHING_CHECKED)


def _beyond_requires(what: str, tc: TestCase) -> str:
    return (f"{what}, on inputs that may break {tc.unchecked_requires}, which the test cannot check at run "
            f"time (the solver's reading of it is not proof); not a finding")


def base_verdict(tc: TestCase, status: Status, message: str = "") -> Verdict:
    return Verdict(test=tc.name, method=tc.method, partition=tc.partition, scenario=tc.scenario, status=status,
                   message=message, inputs=dict(tc.inputs), file=tc.file, member_line=tc.line, label=tc.label,
                   pin=tc.pin, instantiation=dict(tc.instantiation))


def verdict_of(tc: TestCase, obs: Observation, wall_s: float) -> Verdict:
    status, message = status_of(obs, tc, wall_s)
    verdict = base_verdict(tc, status, message)
    actual = _render(obs.actuals)
    if obs.end is End.CHECK_FAILED and (check := tc.check(obs.check or "")) is not None:
        expected = check.text if check.kind in (CheckKind.ENSURES, CheckKind.VALUE, CheckKind.PROPERTY) else None
        return replace(verdict, clause_line=check.line, clause_file=check.file,
                       clause=None if check.kind is CheckKind.TYPE else check.text,
                       expected=expected, actual=actual if expected else None,
                       expected_value=_render(obs.expecteds) if expected else None)
    return replace(verdict, actual=actual) if status is not Status.PASSED else verdict


def status_of(obs: Observation, tc: TestCase | None, wall_s: float) -> tuple[Status, str]:
    """The status of what a test did, and the message that explains it. `tc` resolves failed checks
    (None for tests we did not write, which have none)."""
    member = tc.method if tc else "the member under test"
    if obs.end is End.DONE:
        if tc is not None and tc.unchecked and not any(c.kind.checks_output for c in tc.checks):
            # it ran, and checked only its own input: no clause of the member was put to the test
            return Status.NOT_TESTED, nothing_checked(tc)
        return Status.PASSED, ""
    if obs.end is End.CHECK_FAILED:
        check = tc.check(obs.check or "") if tc else None
        if check is None:
            return Status.NOT_TESTED, f"internal error: the test reported check {obs.check!r}, which it does not have"
        if check.kind.blames_input:
            what = "type constraint" if check.kind is CheckKind.TYPE else f"{check.kind.value} (line {check.line})"
            return Status.BAD_INPUT, (f"bad test input: the generated input breaks the {what}: {check.text}; "
                                      f"dspec2test's bug, not the program's")
        resting = f" ({check.source})" if check.source else ""  # the axioms of a value, a search's bound
        if check.kind is CheckKind.VALUE:
            return Status.FAILED, f"expected {check.text} (ensures, line {check.line}){resting}"
        if check.kind is CheckKind.PROPERTY:
            return Status.FAILED, (f"lemma {member.rsplit('.', 1)[-1]}: ensures (line {check.line}) is false on "
                                   f"inputs that meet its requires: {check.text}{resting}")
        return Status.FAILED, f"ensures (line {check.line}) violated: {check.text}{resting}"
    if obs.end is End.NO_BODY:
        return Status.NO_IMPLEMENTATION, no_body_message(member, obs.member)
    if obs.end is End.NOT_BUILT:
        return Status.NOT_TESTED, not_built_message(member, obs.member or member, obs.message)
    if obs.end in (End.HUNG, End.CPU_LIMIT):
        limit = (f"{obs.message}" if obs.end is End.CPU_LIMIT and obs.message
                 else f"no verdict within {wall_s:g} s (wall clock)")
        if obs.phase is Phase.CALLED and tc is not None and tc.diverges:
            return Status.NOT_TESTED, (f"the call did not return ({limit}), and {member} may not terminate: it is "
                                       f"declared decreases * (line {tc.diverges}); not a finding")
        if obs.phase is Phase.CALLED and tc is not None and tc.unchecked_requires:
            return Status.NOT_TESTED, _beyond_requires(f"the call did not return ({limit})", tc)
        if obs.phase is Phase.CALLED:
            return Status.TIMEOUT, f"timed out: {limit}"
        if obs.phase is Phase.RETURNED:
            return Status.NOT_TESTED, (f"the call returned, but evaluating the contract on its result did not finish "
                                       f"({limit}): the contract is too slow to check on this input, no sign of a bug")
        return Status.NOT_TESTED, f"building the test's inputs did not finish ({limit}): dspec2test's bug"
    how = "halted" if obs.end is End.HALTED else "crashed"
    detail = f": {obs.message}" if obs.message else ""
    if obs.phase is Phase.SETUP:
        if tc is not None and any(DRIVE in name for name in tc.inputs):
            # its object is made by calls of the program's own methods: one of those may be at fault
            return Status.NOT_TESTED, (f"the test {how} while making its input by calls of the program's methods, "
                                       f"before calling {member}{detail}: not a finding of {member} (a method those "
                                       f"calls reach may be at fault, or dspec2test)")
        return Status.NOT_TESTED, f"the test {how} before calling {member}{detail}: dspec2test's bug"
    if obs.end is End.HALTED and obs.phase is Phase.CALLED and tc is not None \
            and not any(c.kind in (CheckKind.ENSURES, CheckKind.VALUE) for c in tc.checks):
        # only an `expect` halts a Dafny program (ours are markers, read as failed checks): a member that
        # promises nothing (no ensures: a test helper, a run-time check) refused an input its requires
        # allow. With an ensures, a halt breaks the promise (a TDD stub's `expect false`): crashed.
        return Status.NOT_TESTED, (f"the program's own expect stopped the call{detail}: {member} has no ensures, "
                                   f"and a run-time check its requires do not state refused the input (state it "
                                   f"as a requires to have it respected); not a finding")
    if obs.end is End.CRASHED and _MISCOMPILED in obs.message:
        return Status.NOT_TESTED, (f"the compiled Python failed{detail}: Dafny 4.11's Python backend calls the "
                                   f"discriminator (`d.C?`) of a datatype with a ghost constructor as a function, "
                                   f"and compiles it as a property; not the program's bug (--target cs tests it)")
    if obs.phase is Phase.CALLED and tc is not None and tc.unchecked_requires:
        return Status.NOT_TESTED, _beyond_requires(f"the call {how}{detail}", tc)
    where = " while checking the contract on the result" if obs.phase is Phase.RETURNED else ""
    return Status.CRASHED, f"{how}{where}{detail}"


# what Python says where Dafny's Python backend miscompiled the code, not where the program went wrong
_MISCOMPILED = "'property' object is not callable"


def _render(actuals: dict[str, str]) -> str | None:
    return ", ".join(f"{k} = {v}" for k, v in actuals.items()) or None

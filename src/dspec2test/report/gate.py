"""The build gate: one decision from the verdicts, used by `run`, `check` and the action alike.

`fail_on: failures` (the default) trips on what the implementation did: failed, crashed, timeout.
`errors` also trips on everything that is not a pass (bad-input, no-implementation, not-tested: our
problems and untested members) and on parse errors in the changed files. `never` reports only.
`fail_on_empty` trips when no affected member got a test, whatever fail_on says: a required check
must not turn green because nothing ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable

from dspec2test.errors import Diagnostic, Severity
from dspec2test.records import Status, Verdict
from dspec2test.report.findings import Totals


class FailOn(str, Enum):
    FAILURES = "failures"
    ERRORS = "errors"
    NEVER = "never"


class Conclusion(str, Enum):
    """The run's outcome, named as GitHub names check-run conclusions."""

    SUCCESS = "success"
    FAILURE = "failure"
    NEUTRAL = "neutral"  # nothing was tested, and the gate was not asked to mind


@dataclass(frozen=True)
class Gate:
    fail_on: FailOn = FailOn.FAILURES
    fail_on_empty: bool = False


@dataclass(frozen=True)
class Decision:
    conclusion: Conclusion
    reasons: tuple[str, ...]  # why it tripped; empty when it did not

    @property
    def tripped(self) -> bool:
        return self.conclusion is Conclusion.FAILURE

    @property
    def exit_code(self) -> int:
        return 1 if self.tripped else 0


def decide(gate: Gate, verdicts: Iterable[Verdict], parse_errors: Iterable[Diagnostic] = ()) -> Decision:
    """parse_errors: diagnostics of the changed files (only their errors count, and only for `errors`)."""
    totals = Totals.of(verdicts)
    reasons = []
    if gate.fail_on is FailOn.FAILURES:
        bad = [s for s in Status if s.is_failure and totals.count(s)]
    elif gate.fail_on is FailOn.ERRORS:
        bad = [s for s in Status if s is not Status.PASSED and totals.count(s)]
    else:
        bad = []
    if bad:
        counted = ", ".join(f"{totals.count(s)} {s.value}" for s in sorted(bad, key=lambda s: s.rank))
        reasons.append(f"{counted} of {totals.tests} test{'s' * (totals.tests != 1)} (fail_on: {gate.fail_on.value})")
    if gate.fail_on is FailOn.ERRORS:
        errors = [d for d in parse_errors if d.severity is Severity.ERROR]
        if errors:
            reasons.append(f"{len(errors)} error{'s' * (len(errors) != 1)} in changed files, first "
                           f"{errors[0].render()} (fail_on: errors)")
    if gate.fail_on_empty and not totals.tested:
        reasons.append("no affected member got a test (fail_on_empty)")
    if reasons:
        return Decision(Conclusion.FAILURE, tuple(reasons))
    return Decision(Conclusion.SUCCESS if totals.tested else Conclusion.NEUTRAL, ())

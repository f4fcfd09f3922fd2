"""The build gate: one decision from the verdicts, used by `run`, `check` and the action alike.

`fail_on: failures` (the default) trips on what the implementation did: failed, crashed, timeout.
`errors` also trips on everything that is not a pass (bad-input, no-implementation, not-tested: our
problems and untested members) and on parse errors in the changed files. `never` reports only.
`fail_on_empty` trips when no affected member got a test, whatever fail_on says: a required check
must not turn green because nothing ran. `weak` trips as `failures` does, and also when contract
strength (issue 30) found a contract that accepts a changed implementation; without it, those findings
are warnings that never fail the gate.
"""

from __future__ import annotations

import argparse
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
    WEAK = "weak"  # failures, and weak contracts (contract strength)


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


def decide(gate: Gate, verdicts: Iterable[Verdict], parse_errors: Iterable[Diagnostic] = (),
           weak: int = 0) -> Decision:
    """parse_errors: diagnostics of the changed files (only their errors count, and only for `errors`);
    weak: members whose contract strength found a weakness (they count only for `weak`)."""
    totals = Totals.of(verdicts)
    reasons = []
    if gate.fail_on in (FailOn.FAILURES, FailOn.WEAK):
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
    if gate.fail_on is FailOn.WEAK and weak:
        reasons.append(f"{weak} member{'s' * (weak != 1)} with a contract that accepts a changed implementation "
                       "(fail_on: weak)")
    if gate.fail_on_empty and not totals.tested:
        reasons.append("no affected member got a test (fail_on_empty)")
    if reasons:
        return Decision(Conclusion.FAILURE, tuple(reasons))
    return Decision(Conclusion.SUCCESS if totals.tested else Conclusion.NEUTRAL, ())


def add_gate_arguments(parser: argparse.ArgumentParser) -> None:
    """`--fail-on` and `--fail-on-empty`, the same words as the action's inputs."""
    parser.add_argument("--fail-on", choices=[f.value for f in FailOn], default=None,
                        help="exit 1 on: `failures` (failed, crashed, timeout; the default), `errors` (anything "
                             "not passed, and parse errors in changed files), `never`; `weak`: failures, and a weak "
                             "contract where contract strength is measured")
    parser.add_argument("--fail-on-empty", action="store_true", default=None,
                        help="also exit 1 when no member got a test")


def gate_from(args: argparse.Namespace, fallback: Gate = Gate()) -> Gate:
    """The gate the flags ask for; flags not given keep the fallback's values (a configuration file's)."""
    return Gate(FailOn(args.fail_on) if args.fail_on else fallback.fail_on,
                fallback.fail_on_empty if args.fail_on_empty is None else args.fail_on_empty)

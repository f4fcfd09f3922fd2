"""The hang rule: a member that timed out once costs seconds more, not one full limit per test.

A bug that makes a member loop (a dropped increment) usually loops on most of its inputs. Retried
test by test under the configured limit, that is the limit once per test: minutes of CI for one
pull request. So once a test of a member times out during its call (the implementation's hang, not
a slow contract), the member's remaining tests each get a short limit derived from the passing tests'
own times (SHORT_FACTOR times the slowest, at least SHORT_FLOOR_S, never more than the configured
limit), and together no more than a budget (BUDGET_SHARE of the configured limit): the tests that no
longer fit are not run, and say why. A member whose every test loops thus costs at most
1 + BUDGET_SHARE limits. Pure functions over what was seen so far; observe.py applies them between
attempts, the executors enforce the per-test limits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from dspec2test.run.executors import TestRef
from dspec2test.run.reader import End, Key, Observation, Phase

SHORT_FACTOR = 10.0  # a short limit is this many times the slowest passing test...
SHORT_FLOOR_S = 0.5  # ...and at least this (a passing test takes milliseconds; a busy machine, more)
BUDGET_SHARE = 0.25  # what a member's remaining tests may take together after its first timeout


@dataclass(frozen=True)
class HangPlan:
    run: tuple[TestRef, ...]  # the pending tests to run now, a timed-out member's with its short limit
    skipped: dict[Key, str] = field(default_factory=dict)  # tests left out for good, and why


def timed_out_in_call(obs: Observation) -> bool:
    """A hang of the implementation: stopped at a limit while the member under test was running."""
    return obs.end in (End.HUNG, End.CPU_LIMIT) and obs.phase is Phase.CALLED


def short_limit(passing_s: Sequence[float], configured_s: float) -> float:
    """The per-test limit after a timeout, from the wall times of passing tests."""
    return min(configured_s, max(SHORT_FLOOR_S, SHORT_FACTOR * max(passing_s, default=0.0)))


def budget(configured_s: float, short_s: float) -> float:
    """What a member's remaining tests may take together once it timed out (room for one at least)."""
    return max(BUDGET_SHARE * configured_s, short_s)


def plan(pending: Sequence[TestRef], tests: Mapping[Key, TestRef], seen: Mapping[Key, Observation],
         limited: Mapping[Key, float], configured_s: float) -> HangPlan:
    """Which pending tests run next and under what limit. `tests`: every test of the run by key (its
    member); `seen`: what each test that ran did; `limited`: the short limits tests already ran under."""
    hung = {tests[k].member for k, o in seen.items() if k in tests and tests[k].member and timed_out_in_call(o)}
    if not hung:
        return HangPlan(tuple(pending))
    every_pass = _passing_times(seen, tests, None)
    run: list[TestRef] = []
    skipped: dict[Key, str] = {}
    allotted: dict[str, float] = {}  # member -> short limits handed out in this plan
    for t in pending:
        if t.member not in hung:
            run.append(t)
            continue
        own = _passing_times(seen, tests, t.member)
        short = short_limit(own or every_pass, configured_s)
        left = budget(configured_s, short) - _spent(t.member, tests, seen, limited)
        given = allotted.get(t.member, 0.0)
        if given + short <= left + 1e-9:
            allotted[t.member] = given + short
            run.append(replace(t, limit_s=short))
        elif given == 0.0:  # not even one more fits: the member's remaining tests are not run
            skipped[t.key] = skipped_reason(t.member, configured_s)
        # else: held back until this plan's tests of the member have shown what they cost
    return HangPlan(tuple(run), skipped)


def skipped_reason(member: str, configured_s: float) -> str:
    return (f"not run: {member} already timed out, and its other tests used up their share of time "
            f"({BUDGET_SHARE * configured_s:g} s, {BUDGET_SHARE:.0%} of the {configured_s:g} s limit)")


def short_note(member: str) -> str:
    """What a timeout under a short limit adds to its message."""
    return (f"the short limit once {member} has timed out ({SHORT_FACTOR:g}x its slowest passing test, "
            f"at least {SHORT_FLOOR_S:g} s)")


def _passing_times(seen: Mapping[Key, Observation], tests: Mapping[Key, TestRef], member: str | None) -> list[float]:
    return [o.wall_s for k, o in seen.items() if o.end is End.DONE and o.wall_s is not None
            and (member is None or (k in tests and tests[k].member == member))]


def _spent(member: str, tests: Mapping[Key, TestRef], seen: Mapping[Key, Observation],
           limited: Mapping[Key, float]) -> float:
    """The time the member's tests run under a short limit took (their limit, when stopped unmeasured)."""
    total = 0.0
    for key, limit in limited.items():
        if key in tests and tests[key].member == member and key in seen:
            wall = seen[key].wall_s
            total += min(limit, wall) if wall is not None else limit
    return total

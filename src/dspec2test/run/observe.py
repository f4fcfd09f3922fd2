"""Attempts until every test has been seen or nothing more can be learned: the loop both `run` and the
bench use, over any executor.

A run that stops part-way (an uncaught exception that ends the process, or a hang killed at the
limit) gives the test it was in its observation; the tests that had not started then get another
attempt. A run that ends normally without some tests, or an attempt that shows nothing new, ends the
loop: those tests are left unseen, for the caller to explain. Given the configured per-test limit
(`hang_limit_s`), the hang rule (hangs.py) shortens the limits of a member that timed out, between
attempts, and leaves out its tests that no longer fit its budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dspec2test.run.executors import Attempt, Executor, TestRef
from dspec2test.run.hangs import plan
from dspec2test.run.reader import End, Key, Observation, read_output

_STOPPED = (End.CRASHED, End.HUNG)  # ends that can take the process down with the test


@dataclass(frozen=True)
class Observed:
    seen: dict[Key, Observation] = field(default_factory=dict)
    build: Attempt | None = None  # the failed build, when the program and tests did not build
    last: Attempt | None = None  # the last attempt: what explains the tests never seen
    attempts: int = 0
    wall_s: float = 0.0
    limits: dict[Key, float] = field(default_factory=dict)  # the short limits tests ran under (hangs.py)
    skipped: dict[Key, str] = field(default_factory=dict)  # tests the hang rule left out, and why


def observe(executor: Executor, tests: Sequence[TestRef], nonce: str, stop_on_kill: bool = False,
            hang_limit_s: float | None = None) -> Observed:
    pending = list(tests)
    by_key = {t.key: t for t in tests}
    seen: dict[Key, Observation] = {}
    limits: dict[Key, float] = {}
    skipped: dict[Key, str] = {}
    attempts, wall = 0, 0.0
    last: Attempt | None = None
    while pending:
        batch = pending
        if hang_limit_s is not None:
            planned = plan(pending, by_key, seen, limits, hang_limit_s)
            skipped.update(planned.skipped)
            batch = list(planned.run)
            if not batch:
                break
        attempts += 1
        last = executor.attempt(batch)
        wall += last.wall_s
        if not last.built:
            return Observed(seen, last, last, attempts, wall, limits, skipped)
        limits.update({t.key: t.limit_s for t in batch if t.limit_s})
        wanted = {t.key for t in batch}
        new = {k: o for k, o in read_output(last.stdout, last.stderr, nonce, last.timed_out).items() if k in wanted}
        seen.update(new)
        stopped = last.timed_out or any(o.end in _STOPPED for o in new.values())
        held = [t for t in pending if t.key not in wanted and t.key not in skipped]  # held back by the plan
        if not new or not (stopped or held):
            break
        dead = {v for (v, _), o in seen.items() if o.end is not End.DONE} if stop_on_kill else set()
        left = pending if stopped else held  # a run that ended normally without a test will not run it
        pending = [t for t in left if t.key not in seen and t.key not in skipped and t.version not in dead]
    return Observed(seen, None, last, attempts, wall, limits, skipped)

"""Attempts until every test has been seen or nothing more can be learned: the loop both `run` and the
bench use, over any executor.

A run that stops part-way (an uncaught exception that ends the process, or a hang killed at the
limit) gives the test it was in its observation; the tests that had not started then get another
attempt. A run that ends normally without some tests, or an attempt that shows nothing new, ends the
loop: those tests are left unseen, for the caller to explain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dspec2test.run.executors import Attempt, Executor, TestRef
from dspec2test.run.reader import End, Key, Observation, read_output

_STOPPED = (End.CRASHED, End.HUNG)  # ends that can take the process down with the test


@dataclass(frozen=True)
class Observed:
    seen: dict[Key, Observation] = field(default_factory=dict)
    build: Attempt | None = None  # the failed build, when the program and tests did not build
    last: Attempt | None = None  # the last attempt: what explains the tests never seen
    attempts: int = 0
    wall_s: float = 0.0


def observe(executor: Executor, tests: Sequence[TestRef], nonce: str, stop_on_kill: bool = False) -> Observed:
    pending = list(tests)
    seen: dict[Key, Observation] = {}
    attempts, wall = 0, 0.0
    last: Attempt | None = None
    while pending:
        attempts += 1
        last = executor.attempt(pending)
        wall += last.wall_s
        if not last.built:
            return Observed(seen, last, last, attempts, wall)
        wanted = {t.key for t in pending}
        new = {k: o for k, o in read_output(last.stdout, last.stderr, nonce, last.timed_out).items() if k in wanted}
        seen.update(new)
        stopped = last.timed_out or any(o.end in _STOPPED for o in new.values())
        if not new or not stopped:
            break
        dead = {v for (v, _), o in seen.items() if o.end is not End.DONE} if stop_on_kill else set()
        pending = [t for t in pending if t.key not in seen and t.version not in dead]
    return Observed(seen, None, last, attempts, wall)

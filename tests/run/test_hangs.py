"""The hang rule (run/hangs.py) through observe(), with a fake executor that behaves like the py driver:
a test given a short limit of its own is stopped at it and the next one runs; a test without one that
loops holds the run until the configured limit, and the run is stopped there. Time is simulated, so
these tests take milliseconds and say exactly what a run would cost."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from dspec2test.run.executors import Attempt, TestRef
from dspec2test.run.hangs import BUDGET_SHARE, SHORT_FACTOR, SHORT_FLOOR_S, plan, short_limit
from dspec2test.run.observe import observe
from dspec2test.run.reader import End, Observation, Phase

NONCE = "N"
FRAME = f"[dspec2test:{NONCE}]"
LOOP = -1.0  # a test that never returns


@dataclass
class FakeDriver:
    """`times`: test name -> seconds it takes when it passes, or LOOP. `slow_contract`: tests that hang
    after the call returned (the contract's evaluation)."""

    times: dict[str, float]
    limit_s: float
    slow_contract: frozenset[str] = frozenset()
    target: str = "py"
    elapsed: float = 0.0
    attempts: list[list[tuple[str, float]]] = field(default_factory=list)

    def attempt(self, pending: Sequence[TestRef]) -> Attempt:
        self.attempts.append([(t.name, t.limit_s) for t in pending])
        out: list[str] = []
        for t in pending:
            out += [f"{FRAME} start {t.name}", f"{FRAME} call"]
            took = self.times[t.name]
            if t.name in self.slow_contract:
                out.append(f"{FRAME} returned")
            if took == LOOP or t.name in self.slow_contract:
                if not t.limit_s:  # the executor's watch stops the whole run at the configured limit
                    self.elapsed += self.limit_s
                    return Attempt("\n".join(out) + "\n", timed_out=True, returncode=None)
                self.elapsed += t.limit_s
                out.append(f"{FRAME} end " + json.dumps(["wall-limit", "", t.limit_s, t.limit_s]))
                continue
            self.elapsed += took
            out += [f"{FRAME} returned", f"{FRAME} done", f"{FRAME} end " + json.dumps(["returned", "", took, took])]
        return Attempt("\n".join(out) + "\n")


def refs(member: str, count: int, prefix: str = "") -> list[TestRef]:
    return [TestRef(f"{prefix or member}{i}", f"{prefix or member}{i}", "", FRAME, member) for i in range(count)]


def run(driver: FakeDriver, tests: list[TestRef], rule: bool = True):
    return observe(driver, tests, NONCE, hang_limit_s=driver.limit_s if rule else None)


@pytest.mark.parametrize("limit", [10.0, 60.0])
def test_a_member_whose_every_test_loops_costs_less_than_two_limits(limit: float) -> None:
    tests = refs("Find", 10)
    driver = FakeDriver({t.name: LOOP for t in tests}, limit)
    got = run(driver, tests)
    assert driver.elapsed < 2 * limit
    assert driver.elapsed <= limit * (1 + BUDGET_SHARE) + 1e-9
    hung = [k for k, o in got.seen.items() if o.end is End.HUNG]
    assert len(hung) + len(got.skipped) == 10  # every test is accounted for: timed out or left out, saying why
    assert all("already timed out" in why for why in got.skipped.values())
    assert got.attempts == 2  # the first hang stops the run once; the short limits never do


def test_without_the_rule_every_loop_costs_the_whole_limit() -> None:
    tests = refs("Find", 10)
    driver = FakeDriver({t.name: LOOP for t in tests}, 10.0)
    got = run(driver, tests, rule=False)
    assert driver.elapsed == 100.0 and got.attempts == 10 and not got.limits


def test_the_short_limit_comes_from_the_members_passing_tests() -> None:
    # Find0..3 pass in 0.2 s, Find4 loops: the rest get 10x the slowest passing time
    times = {f"Find{i}": 0.2 for i in range(4)} | {f"Find{i}": LOOP for i in range(4, 8)}
    driver = FakeDriver(times, 60.0)
    got = run(driver, refs("Find", 8))
    second = driver.attempts[1]
    assert [n for n, _ in second] == ["Find5", "Find6", "Find7"]
    assert [limit for _, limit in second] == pytest.approx([SHORT_FACTOR * 0.2] * 3)
    assert got.limits == pytest.approx({("", n): 2.0 for n, _ in second})
    assert driver.elapsed == pytest.approx(4 * 0.2 + 60 + 3 * 2.0)


def test_a_short_limit_is_never_more_than_the_configured_one() -> None:
    assert short_limit([3.0], 10.0) == 10.0
    assert short_limit([], 10.0) == SHORT_FLOOR_S
    assert short_limit([0.001], 10.0) == SHORT_FLOOR_S
    assert short_limit([0.1], 10.0) == pytest.approx(1.0)


def test_other_members_keep_the_configured_limit_and_run() -> None:
    tests = [t for pair in zip(refs("Find", 5), refs("Sum", 5)) for t in pair]  # interleaved
    times = {t.name: LOOP if t.member == "Find" else 0.01 for t in tests}
    driver = FakeDriver(times, 10.0)
    got = run(driver, tests)
    assert all(limit == 0.0 for attempt in driver.attempts for name, limit in attempt if name.startswith("Sum"))
    assert all(got.seen[("", f"Sum{i}")].end is End.DONE for i in range(5))
    # Sum's passing tests set Find's short limit only through the floor: they are another member's
    assert set(got.limits.values()) == {SHORT_FLOOR_S}


def test_a_slow_contract_is_not_a_hang_of_the_member() -> None:
    tests = refs("Fib", 3)
    driver = FakeDriver({t.name: 0.01 for t in tests}, 5.0, slow_contract=frozenset({"Fib0"}))
    got = run(driver, tests)
    assert got.seen[("", "Fib0")].phase is Phase.RETURNED
    assert not got.limits and driver.attempts[1] == [("Fib1", 0.0), ("Fib2", 0.0)]


def test_tests_that_may_not_fit_the_budget_wait_for_the_others_to_show_their_cost() -> None:
    # after the first hang each test gets 2 s (10x 0.2 s) and the budget 2.5 s holds one such limit: the
    # tests run one at a time while what they really took (0.2 s) leaves room, the rest are left out
    times = {"Find0": LOOP} | {f"Find{i}": 0.2 for i in range(1, 11)} | {"Ok0": 0.2}
    tests = [TestRef("Ok0", "Ok0", "", FRAME, "Find"), *refs("Find", 11)]
    driver = FakeDriver(times, 10.0)
    got = run(driver, tests)
    assert all(len(a) == 1 for a in driver.attempts[1:])
    ran = [n for a in driver.attempts[1:] for n, _ in a]
    assert ran == ["Find1", "Find2", "Find3"]  # 0.6 s spent: 1.9 s left, less than one more short limit
    assert set(got.skipped) == {("", f"Find{i}") for i in range(4, 11)}
    assert driver.elapsed <= 10.0 * (1 + BUDGET_SHARE) + 0.2


def test_plan_is_unchanged_until_a_member_times_out_in_its_call() -> None:
    tests = refs("Find", 3)
    by_key = {t.key: t for t in tests}
    returned = {("", "Find0"): Observation("", "Find0", Phase.RETURNED, End.HUNG)}
    assert plan(tests[1:], by_key, returned, {}, 10.0).run == tuple(tests[1:])
    hung = {("", "Find0"): Observation("", "Find0", Phase.CALLED, End.CPU_LIMIT)}
    assert [t.limit_s for t in plan(tests[1:], by_key, hung, {}, 10.0).run] == [SHORT_FLOOR_S, SHORT_FLOOR_S]

"""The watchdog that stands in for Z3's own timeout: it interrupts only a check that outlives its limit."""

import threading
import time

import z3

from dspec2test.solve.watchdog import Watchdog


class _Calls:
    def __init__(self) -> None:
        self.n = 0
        self.lock = threading.Lock()

    def __call__(self) -> None:
        with self.lock:
            self.n += 1


def test_a_check_within_its_limit_is_not_interrupted():
    calls = _Calls()
    dog = Watchdog(calls)
    for _ in range(50):  # one thread serves them all
        dog.arm(5.0)
        assert dog.disarm() is False
    time.sleep(0.1)
    assert calls.n == 0


def test_a_check_past_its_limit_is_interrupted_until_it_ends_and_never_after():
    calls = _Calls()
    dog = Watchdog(calls)
    dog.arm(0.05)
    time.sleep(0.4)
    assert dog.disarm() is True
    fired = calls.n
    assert fired >= 2  # repeated: an interrupt before Z3 starts searching is lost
    time.sleep(0.2)
    assert calls.n == fired
    dog.arm(5.0)  # the next check starts unfired
    assert dog.disarm() is False


def test_a_shorter_limit_after_a_longer_one_is_kept():
    calls = _Calls()
    dog = Watchdog(calls)
    dog.arm(30.0)
    dog.disarm()
    dog.arm(0.05)
    time.sleep(0.3)
    assert dog.disarm() is True


def test_it_stops_a_real_z3_search():
    ctx = z3.Context()
    dog = Watchdog(ctx.interrupt)
    x, y, z = z3.Ints("x y z", ctx)
    s = z3.Solver(ctx=ctx)
    s.add(x > 0, y > 0, z > 0, x * x * x + y * y * y == z * z * z)  # Fermat n=3: Z3 searches without end
    dog.arm(0.3)
    start = time.monotonic()
    r = s.check()
    assert dog.disarm() is True
    assert r == z3.unknown and time.monotonic() - start < 10


def test_a_check_that_ignores_its_interrupts_is_given_up_on():
    stalls = _Calls()
    dog = Watchdog(lambda: None, on_stall=stalls, stall_s=0.2)  # an interrupt Z3 does not heed
    dog.arm(0.05)
    time.sleep(0.15)
    assert stalls.n == 0  # past its deadline, but not yet by stall_s
    time.sleep(0.4)
    assert stalls.n >= 1
    dog.disarm()
    n = stalls.n
    time.sleep(0.2)
    assert stalls.n == n
    dog.arm(0.05)
    time.sleep(0.1)
    assert dog.disarm() is True and stalls.n == n  # an interrupt that worked in time: no stall

"""The clock of Z3 queries: interrupts a context when a check outlives its time limit.

Z3's own `timeout` is not used: Z3 4.8.12's timer thread pool can deadlock after a timeout fires
(Z3Prover/z3#5371). A Python thread per check did the job but cost about a millisecond each to start and
join, a fifth of a typical member's generation time (dozens of quick checks); so one thread per context
waits for deadlines while checks come, and ends after a while without any.

Z3 4.8.12 does not always heed an interrupt (some rewriting loops never look at it, nor at the resource
limit): a check still running `stall_s` after its deadline is given up on through `on_stall`, which a
member's child process uses to end itself (its tests so far are already with the parent), instead of
waiting out the member's whole wall limit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

IDLE_S = 2.0  # a watchdog's thread ends after this long without a check (a new check starts another)
REPEAT_S = 0.05  # an interrupt that lands before Z3 starts searching is lost: repeated until the check ends
STALL_S = 15.0  # a check this long past its deadline ignores interrupts: `on_stall` is called


class Watchdog:
    """Calls `interrupt` (repeatedly) once the check between `arm` and `disarm` has run `seconds`."""

    def __init__(self, interrupt: Callable[[], None], on_stall: Callable[[], None] | None = None,
                 stall_s: float = STALL_S):
        self._interrupt = interrupt
        self._on_stall = on_stall  # None: keep interrupting, however long the check runs
        self._stall_s = stall_s
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._fired = False
        self._thread: threading.Thread | None = None
        self._wake: float | None = None  # when the waiting thread looks again by itself

    def arm(self, seconds: float) -> None:
        with self._cond:
            self._deadline = time.monotonic() + seconds
            self._fired = False
            # a thread of a parent process does not run in a forked child
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, daemon=True)
                self._thread.start()
            elif self._wake is None or self._deadline < self._wake:
                # only a deadline before the thread's own wake-up needs it now: waking it for every check
                # (a later deadline each time) cost a thread switch per query
                self._cond.notify()

    def disarm(self) -> bool:
        """End the check's watch; whether the interrupt fired. Once this returns, no interrupt of this
        check lands (the thread interrupts only under the lock, and only while a deadline is set)."""
        with self._cond:
            self._deadline = None
            return self._fired

    def _watch(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                if self._deadline is None:
                    self._wake = now + IDLE_S
                    if not self._cond.wait(IDLE_S) and self._deadline is None:
                        self._thread = self._wake = None
                        return
                    continue
                left = self._deadline - now
                if left > 0:
                    self._wake = self._deadline
                    self._cond.wait(left)
                    continue
                self._fired = True
                self._interrupt()
                if self._on_stall is not None and -left >= self._stall_s:
                    self._on_stall()
                self._wake = now + REPEAT_S
                self._cond.wait(REPEAT_S)

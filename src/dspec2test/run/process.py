"""One external command under a wall-clock limit; on timeout the whole process group is killed.

The compiled test program is a child of dafny, so killing dafny alone would leave it running.
Output goes to files rather than pipes so that what was printed before a kill is still there.
The limit can start late: `dafny test` first compiles (slow under load), and a test should not be
called hung because the compiler was slow, so the caller may say when the program proper has started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_POLL_S = 0.2


@dataclass(frozen=True)
class Completed:
    argv: tuple[str, ...]
    returncode: int | None  # None when killed on timeout
    stdout: str
    stderr: str
    timed_out: bool
    wall_s: float
    started: bool = True  # the program proper started (for `dafny test`: compilation finished)


def run_limited(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
                started: Callable[[], bool] | None = None, startup_limit_s: float = 600.0) -> Completed:
    """Run `argv`; kill it `timeout_s` after it started (after `started()` first holds, when given; and at
    the latest `startup_limit_s` after launch if it never does)."""
    launch = time.monotonic()
    with tempfile.TemporaryFile(dir=cwd) as out, tempfile.TemporaryFile(dir=cwd) as err:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        except OSError as exc:
            return Completed(tuple(argv), 127, "", f"cannot run {argv[0]}: {exc}", False, 0.0)
        begun = started is None
        deadline = launch + (timeout_s if begun else startup_limit_s)
        timed_out = False
        try:
            while True:
                try:
                    proc.wait(timeout=_POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    now = time.monotonic()
                    if not begun and started():
                        begun = True
                        deadline = min(deadline, now + timeout_s)
                    if now >= deadline:
                        timed_out = True
                        break
        finally:
            _kill_group(proc.pid)  # also reaps stragglers the run left behind
            proc.wait()
        out.seek(0)
        err.seek(0)
        return Completed(tuple(argv), None if timed_out else proc.returncode,
                         out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                         timed_out, time.monotonic() - launch, begun or not timed_out)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass

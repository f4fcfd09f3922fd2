"""One external command under a wall-clock limit; on timeout the whole process group is killed.

The compiled test program is a child of dafny, so killing dafny alone would leave it running (seen:
zombie dotnet). The one door for external commands: run/ and bench/ both start theirs here.
Output goes to files rather than pipes so that what was printed before a kill is still there.
The limit can start late: `dafny test` first compiles (slow under load), and a test should not be
called hung because the compiler was slow, so the caller may say when the program proper has started.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_POLL_S = 0.2
_SETPRIV = shutil.which("setpriv")  # util-linux: sets the parent-death signal, then execs the command


def tied_to_parent(argv: list[str]) -> list[str]:
    """`argv` killed when the process that starts it dies. Children run in sessions of their own (so a
    timeout kills their whole group), which also cuts them loose from ours: without this, a benchmark or
    CI job stopped from outside would leave a hung test program running for good."""
    return [_SETPRIV, "--pdeathsig", "KILL", "--", *argv] if _SETPRIV else argv


@dataclass(frozen=True)
class Completed:
    argv: tuple[str, ...]
    returncode: int | None  # None when killed on timeout
    stdout: str
    stderr: str
    timed_out: bool
    wall_s: float
    started: bool = True  # the program proper started (for `dafny test`: compilation finished)
    handed_over: bool = False  # stopped on purpose once started, for the caller to run the program itself


def run_limited(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
                started: Callable[[int], bool] | None = None, startup_limit_s: float = 600.0,
                hand_over: bool = False) -> Completed:
    """Run `argv`; kill it `timeout_s` after it started (after `started(pgid)` first holds, when given; the
    clock restarts then, so a slow build never eats into the tests' time), or `startup_limit_s` after
    launch if it never does. With `hand_over`, stop it as soon as `started` holds instead."""
    launch = time.monotonic()
    with tempfile.TemporaryFile(dir=cwd) as out, tempfile.TemporaryFile(dir=cwd) as err:
        try:
            proc = subprocess.Popen(tied_to_parent(argv), cwd=cwd, env=env, stdout=out, stderr=err,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            return Completed(tuple(argv), 127, "", f"cannot run {argv[0]}: {exc}", False, 0.0)
        begun = started is None
        deadline = launch + (timeout_s if begun else startup_limit_s)
        timed_out = handed = False
        try:
            while True:
                try:
                    proc.wait(timeout=_POLL_S)
                    break
                except subprocess.TimeoutExpired:
                    now = time.monotonic()
                    if not begun and started is not None and started(proc.pid):
                        begun = True
                        deadline = now + timeout_s
                        if hand_over:
                            handed = True
                            break
                    if now >= deadline:
                        timed_out = True
                        break
        finally:
            kill_group(proc.pid)  # also reaps stragglers the run left behind
            proc.wait()
        out.seek(0)
        err.seek(0)
        stopped = timed_out or handed
        return Completed(tuple(argv), None if stopped else proc.returncode,
                         out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                         timed_out, time.monotonic() - launch, begun or not timed_out, handed)


def group_runs(pgid: int, path: str) -> bool | None:
    """Whether a process of group `pgid` has `path` among its arguments (None: /proc is not available)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    wanted = os.fsencode(path)
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == pgid:
            continue
        try:
            stat = (entry / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[2]) != pgid:
                continue
            if wanted in (entry / "cmdline").read_bytes().split(b"\0"):
                return True
        except (OSError, ValueError, IndexError):
            continue
    return False


def kill_group(pid: int) -> None:
    """SIGKILL the process group `pid` leads (dafny's dotnet/python children with it)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass

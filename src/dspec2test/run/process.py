"""One external command under a wall-clock limit; on timeout the whole process group is killed.

The compiled test program is a child of dafny, so killing dafny alone would leave it running.
Output goes to files rather than pipes so that what was printed before a kill is still there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Completed:
    argv: tuple[str, ...]
    returncode: int | None  # None when killed on timeout
    stdout: str
    stderr: str
    timed_out: bool
    wall_s: float


def run_limited(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float) -> Completed:
    start = time.monotonic()
    with tempfile.TemporaryFile(dir=cwd) as out, tempfile.TemporaryFile(dir=cwd) as err:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        except OSError as exc:
            return Completed(tuple(argv), 127, "", f"cannot run {argv[0]}: {exc}", False, 0.0)
        timed_out = False
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc.pid)  # also reaps stragglers the run left behind
            proc.wait()
        out.seek(0)
        err.seek(0)
        return Completed(tuple(argv), None if timed_out else proc.returncode,
                         out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                         timed_out, time.monotonic() - start)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass

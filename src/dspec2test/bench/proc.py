"""Run one external command with a wall-clock limit, killing its whole process group on expiry.

dafny starts dotnet/python children; killing only dafny leaves them running (seen: zombie dotnet), so
every command runs in its own session and the group is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class ProcResult:
    returncode: int | None  # None when killed on timeout
    stdout: str
    stderr: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(argv: list[str], timeout_s: float, env: dict[str, str] | None = None, cwd: str | None = None) -> ProcResult:
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
        env=env, cwd=cwd, start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout_s)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        code = None
    return ProcResult(code, out or "", err or "", time.monotonic() - start)

"""Run one external command with a wall-clock limit, killing its whole process group on expiry.

dafny starts dotnet/python children; killing only dafny leaves them running (seen: zombie dotnet), so
every command runs in its own session and the group is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path


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


def run_two_phase(argv: list[str], build_timeout_s: float, run_timeout_s: float, artifact: Path,
                  env: dict[str, str] | None = None, cwd: str | None = None) -> ProcResult:
    """Like run(), but the clock restarts once `artifact` (the built program) appears: a build slowed
    by a loaded machine is not mistaken for a hanging test, and a hang is caught soon after the build."""
    start = time.monotonic()
    if artifact.exists():
        artifact.unlink()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
        env=env, cwd=cwd, start_new_session=True,
    )
    chunks: dict[str, list[str]] = {"out": [], "err": []}
    readers = [threading.Thread(target=lambda s=s, k=k: chunks[k].append(s.read()), daemon=True)
               for s, k in ((proc.stdout, "out"), (proc.stderr, "err"))]
    for reader in readers:
        reader.start()
    deadline = start + build_timeout_s
    built = False
    code: int | None = None
    while True:
        try:
            code = proc.wait(timeout=0.25)
            break
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if not built and artifact.exists():
            built, deadline = True, now + run_timeout_s
        if now > deadline:
            kill_group(proc)
            proc.wait()
            code = None
            break
    for reader in readers:
        reader.join(timeout=5)
    return ProcResult(code, "".join(chunks["out"]), "".join(chunks["err"]), time.monotonic() - start)

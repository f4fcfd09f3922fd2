"""Run independent jobs in forked child processes, a few at a time, each with a memory cap and a wall limit.

Generation holds the GIL while Z3 solves, Z3 can ignore an interrupt and grow without bound on some
formulas, and a C++ assertion in Z3 aborts the whole interpreter. A child per job costs a fork (the parent
has already imported and parsed) and turns each of those into a value for that job alone, while `jobs`
children use the cores. A job is handed a `report` function: what it reports comes back with the
failure if the child is stopped or dies later, so the work done before a hang is not lost.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import resource
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

T = TypeVar("T")
Report = Callable[[Any], None]  # a job's partial result so far; the parent keeps the latest
Job = Callable[[Report], T]

DEFAULT_MEMORY_BYTES = 6 << 30  # address space per child; Z3 runaways stop here instead of eating the machine
STALLED_EXIT = 75  # a child's exit code when it gave up on a Z3 check that ignored its interrupt


@dataclass(frozen=True)
class Failed:
    """A job that produced no result: why, in words a user can act on."""

    reason: str
    partial: Any = None  # the job's latest report before it stopped, if it made one


@dataclass(frozen=True)
class ChildLimits:
    wall_s: float = 600.0
    memory_bytes: int = DEFAULT_MEMORY_BYTES


@dataclass
class _Running(Generic[T]):
    index: int
    process: Any
    conn: Connection
    started: float
    partial: Any = None


Done = Callable[[int, Any, float], None]  # (job index, its result or Failed, seconds it ran), as each ends


def ignore_done(index: int, result: Any, seconds: float) -> None:
    pass


def run_isolated(jobs: Sequence[Job[T]], parallel: int = 1, limits: ChildLimits = ChildLimits(),
                 done: Done = ignore_done) -> list[T | Failed]:
    """Results in the order of `jobs`; `done` hears of each as it ends (for a progress display). Falls
    back to running in this process where fork is unavailable."""
    if not jobs:
        return []
    if "fork" not in multiprocessing.get_all_start_methods():
        out = []
        for i, job in enumerate(jobs):
            start = time.monotonic()
            out.append(_in_process(job))
            done(i, out[-1], time.monotonic() - start)
        return out
    ctx = multiprocessing.get_context("fork")
    results: list[T | Failed | None] = [None] * len(jobs)
    pending = list(range(len(jobs)))
    running: list[_Running] = []
    while pending or running:
        while pending and len(running) < max(1, parallel):
            i = pending.pop(0)
            receive, send = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_child, args=(jobs[i], send, limits.memory_bytes), daemon=True)
            p.start()
            send.close()
            running.append(_Running(i, p, receive, time.monotonic()))
        deadline = min(r.started + limits.wall_s for r in running)
        ready = wait([r.conn for r in running], timeout=max(0.0, deadline - time.monotonic()))
        for r in list(running):
            got = _receive(r) if r.conn in ready else _PARTIAL
            if got is not _PARTIAL:
                results[r.index] = got
            elif time.monotonic() - r.started >= limits.wall_s:  # a job that keeps reporting is stopped too
                r.process.kill()
                last = _last_word(r)
                results[r.index] = last if last is not None else Failed(
                    f"took longer than {limits.wall_s:g} s; stopped", r.partial)
            else:
                continue
            r.process.join()
            r.conn.close()
            running.remove(r)
            done(r.index, results[r.index], time.monotonic() - r.started)
    return [r if r is not None else Failed("no result") for r in results]


def _last_word(r: _Running) -> Any:
    """Read what a stopped child had sent and the parent not yet read: its final result, if it came
    just in time (None if not; its last partial report is then in r.partial)."""
    try:
        while r.conn.poll():
            got = _receive(r)
            if got is not _PARTIAL:
                return None if isinstance(got, Failed) else got
    except (EOFError, OSError):
        pass
    return None


_PARTIAL = object()  # _receive's answer to a partial report: the job is still running


def _receive(r: _Running) -> Any:
    try:
        kind, value = r.conn.recv()
    except (EOFError, OSError):  # the child died without a word: a crash or the memory cap
        r.process.join()
        code = r.process.exitcode
        if code == STALLED_EXIT:
            return Failed("the solver did not stop at its time limit (Z3 ignored the interrupt); stopped", r.partial)
        why = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return Failed(f"the solver crashed or ran out of memory ({why})", r.partial)
    if kind == "partial":
        r.partial = value
        return _PARTIAL
    return value if kind == "ok" else Failed(value, r.partial)


def _cap_memory(memory_bytes: int) -> None:
    """Lower the address-space limit to memory_bytes; never raise it (a tighter limit set by the caller,
    `ulimit -v` or a container, stays, and raising past the hard limit is refused anyway)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
    if soft == resource.RLIM_INFINITY or cap < soft:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _child(job: Job[Any], send: Connection, memory_bytes: int) -> None:
    # Everything the user should see comes back as a value; Z3's abort messages and Python's fault
    # handler stack would be noise on the terminal, so the child's stderr goes nowhere.
    faulthandler.disable()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        if memory_bytes:
            _cap_memory(memory_bytes)
        # every report is sent: the last one before a hang is the one that matters, and pickling a
        # member's results so far costs well under a millisecond for tens of tests
        message: tuple[str, Any] = ("ok", job(lambda partial: send.send(("partial", partial))))
    except MemoryError:
        message = ("failed", "ran out of memory")
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        message = ("failed", f"internal error ({type(exc).__name__}: {exc}) at {_where(exc)}")
    try:
        try:
            send.send(message)
        except Exception as exc:  # noqa: BLE001 - a result that does not pickle is our bug: say so
            send.send(("failed", f"internal error (result not transferable: {exc})"))
    finally:
        send.close()
        os._exit(0)  # no atexit handlers or pytest teardown of the parent's state in the child


def stall_exit(parent: int) -> Callable[[], None]:
    """What a job's solver does with a Z3 check that ignores its interrupt (solve/watchdog.py): in a child
    of `parent`, end the child (its reports so far are with the parent); in `parent` itself, nothing (no
    one would be left to say why)."""
    def stop() -> None:
        if os.getpid() != parent:
            os._exit(STALLED_EXIT)
    return stop


def ignore_report(_partial: Any) -> None:
    """`report` for a job run in the caller's process, where nothing can stop it half way."""


def _in_process(job: Job[T]) -> T | Failed:
    try:
        return job(ignore_report)
    except Exception as exc:  # noqa: BLE001
        return Failed(f"internal error ({type(exc).__name__}: {exc}) at {_where(exc)}")


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else "?"

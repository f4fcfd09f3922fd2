"""Run independent jobs in forked child processes, a few at a time, each with a memory cap and a wall limit.

Generation holds the GIL while Z3 solves, Z3 can ignore an interrupt and grow without bound on some
formulas, and a C++ assertion in Z3 aborts the whole interpreter. A child per job costs a fork (the parent
has already imported and parsed) and turns each of those into a value for that job alone, while `jobs`
children use the cores.
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

DEFAULT_MEMORY_BYTES = 6 << 30  # address space per child; Z3 runaways stop here instead of eating the machine


@dataclass(frozen=True)
class Failed:
    """A job that produced no result: why, in words a user can act on."""

    reason: str


@dataclass(frozen=True)
class Limits:
    wall_s: float = 600.0
    memory_bytes: int = DEFAULT_MEMORY_BYTES


@dataclass
class _Running(Generic[T]):
    index: int
    process: Any
    conn: Connection
    started: float


def run_isolated(jobs: Sequence[Callable[[], T]], parallel: int = 1, limits: Limits = Limits()) -> list[T | Failed]:
    """Results in the order of `jobs`. Falls back to running in this process where fork is unavailable."""
    if not jobs:
        return []
    if "fork" not in multiprocessing.get_all_start_methods():
        return [_in_process(job) for job in jobs]
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
            if r.conn in ready:
                results[r.index] = _receive(r)
            elif time.monotonic() - r.started >= limits.wall_s:
                r.process.kill()
                results[r.index] = Failed(f"took longer than {limits.wall_s:g} s; stopped")
            else:
                continue
            r.process.join()
            r.conn.close()
            running.remove(r)
    return [r if r is not None else Failed("no result") for r in results]


def _receive(r: _Running) -> Any:
    try:
        kind, value = r.conn.recv()
    except (EOFError, OSError):  # the child died without a word: a crash or the memory cap
        r.process.join()
        code = r.process.exitcode
        why = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return Failed(f"the solver crashed or ran out of memory ({why})")
    return value if kind == "ok" else Failed(value)


def _cap_memory(memory_bytes: int) -> None:
    """Lower the address-space limit to memory_bytes; never raise it (a tighter limit set by the caller,
    `ulimit -v` or a container, stays, and raising past the hard limit is refused anyway)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
    if soft == resource.RLIM_INFINITY or cap < soft:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _child(job: Callable[[], Any], send: Connection, memory_bytes: int) -> None:
    # Everything the user should see comes back as a value; Z3's abort messages and Python's fault
    # handler stack would be noise on the terminal, so the child's stderr goes nowhere.
    faulthandler.disable()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        if memory_bytes:
            _cap_memory(memory_bytes)
        message: tuple[str, Any] = ("ok", job())
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


def _in_process(job: Callable[[], T]) -> T | Failed:
    try:
        return job()
    except Exception as exc:  # noqa: BLE001
        return Failed(f"internal error ({type(exc).__name__}: {exc}) at {_where(exc)}")


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else "?"

"""Generation for the benchmark in a few long-lived worker processes, programs handed out one at a time.

Generation holds the GIL while Z3 solves, so `--jobs` programs generate at once only in processes of their
own. A fresh interpreter per program paid the imports and the parser's construction every time (about
0.6 s of CPU each, a fifth of the paper set's generation), so the workers live for the whole phase: they
are forked from a server that imported the engine once, and each builds the parser once. A Z3 crash or
runaway still costs one member only: generate() runs every member in a forked child of the worker,
under the member limit (here at most the program's limit).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from dspec2test.dafny.parser import dafny_parser
from dspec2test.errors import DspecError, Severity
from dspec2test.generate import GenerateOptions, generate
from dspec2test.solve import skip_python_checks


def generate_program(path: str, options: GenerateOptions) -> dict:
    """The worker's task: tests text and counts, or {"error": ...} for a program that does not parse."""
    try:
        got = generate(path, options)
    except DspecError as exc:
        return {"error": f"{exc.line}:{exc.col}: {exc.message}"}
    problems = [d.render() for d in got.diagnostics if d.severity is not Severity.WARNING]
    unsupported = sum(d.severity is Severity.UNSUPPORTED for d in got.diagnostics)
    return {"tests_text": got.tests_text, "tests": len(got.cases), "problems": problems, "unsupported": unsupported,
            "build": got.build}


def _warm() -> None:
    """Worker start: Z3's Python-side checks off, the parser built, once per worker."""
    skip_python_checks()
    dafny_parser()


class GenerationPool:
    """`jobs` workers, started on first use and stopped when the `with` block ends."""

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()  # the bench's threads submit at once: one of them starts the workers

    def __enter__(self) -> "GenerationPool":
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def run(self, path: str, options: GenerateOptions, limit_s: float) -> dict:
        """generate_program's result in a worker, or {"crash": why} when the worker died (the next program
        then gets new workers: a broken pool stays broken) or generation raised. Raises TimeoutError past
        limit_s."""
        # no member may outlast the program's limit: a worker past it is soon free again
        options = dataclasses.replace(options, member_timeout_s=min(options.member_timeout_s, limit_s))
        with self._lock:
            if self._pool is None:
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload(["dspec2test.bench.genworker"])
                self._pool = ProcessPoolExecutor(self.jobs, mp_context=ctx, initializer=_warm)
            pool = self._pool
        try:
            return pool.submit(generate_program, path, options).result(timeout=limit_s)
        except BrokenProcessPool as exc:
            with self._lock:
                if self._pool is pool:  # not yet replaced by another thread that saw it break
                    pool.shutdown(wait=False, cancel_futures=True)
                    self._pool = None
            return {"crash": str(exc) or "a generation worker died"}
        except TimeoutError:
            raise
        except Exception as exc:  # noqa: BLE001 - an error of ours in one program must not stop the bench
            return {"crash": f"{type(exc).__name__}: {exc}"}


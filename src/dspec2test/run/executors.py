"""Executors: how compiled tests are run. One attempt runs the tests still pending and returns what was
printed; the reader (reader.py) makes sense of it and the caller decides what to run next.

- `DafnyTest`: `dafny test` on any target. It shows the program's output only once the program ends,
  so on cs, py and js, once dafny has compiled and launched the program, it is stopped and the built
  program is run directly: a hang then costs one limit and shows which test hung. Selecting the
  pending tests (`--methods-to-test`) compiles again. `limits.wall_s` bounds one run of the tests.
- `PyDriver`: the Python target through our driver (pydriver.py): translated once, each test under
  its own wall-clock and CPU-time limit, restarted after a hang without compiling again, strict
  bounds as on the other targets, and stop-on-first-kill per program version.
"""

from __future__ import annotations

import json
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Protocol

from dspec2test.model.externs import python_module
from dspec2test.run.diagnostics import build_errors
from dspec2test.run.process import Completed, group_runs, kill_group, run_limited, tied_to_parent
from dspec2test.run.pydriver import DRIVER, list_tests



@dataclass(frozen=True)
class Limits:
    wall_s: float = 60.0  # DafnyTest: one run of the compiled tests; PyDriver: each test
    cpu_s: float = 0.0  # PyDriver: CPU seconds per test (0: none)
    build_s: float = 600.0  # compilation, apart, so a slow build is never taken for a hung test


@dataclass(frozen=True)
class TestRef:
    """One test to run: its name as Dafny qualifies it (module path included), and the frame its
    marker lines carry (the stamp of its program version)."""

    __test__ = False  # not a pytest class
    qualified: str
    name: str  # as its own `start` line says it
    version: str  # its program version in a batched run ("" otherwise): stop-on-first-kill goes by it
    frame: str  # the stamped mark (emit/markers.stamp_of) of its version
    member: str = ""  # the member it tests, where the hang rule (hangs.py) applies
    limit_s: float = 0.0  # its own wall-clock limit, shorter than the configured one (0: that one)

    @property
    def key(self) -> tuple[str, str]:
        return self.version, self.name


@dataclass(frozen=True)
class Attempt:
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False  # killed at the wall-clock limit while a test was running
    built: bool = True  # False: the build failed (build_output says why) or timed out
    build_output: str = ""
    build_timed_out: bool = False
    returncode: int | None = 0
    wall_s: float = 0.0


class Executor(Protocol):
    target: str

    def attempt(self, pending: Sequence[TestRef]) -> Attempt: ...


@dataclass
class DafnyTest:
    dafny: str
    env: dict[str, str]
    workdir: Path
    sources: tuple[str, ...]  # absolute paths, the program first
    target: str
    limits: Limits

    def attempt(self, pending: Sequence[TestRef]) -> Attempt:
        limits = self.limits
        if pending and all(t.limit_s for t in pending):
            # one limit bounds the whole run here: tests that each have a short one share their sum
            limits = replace(limits, wall_s=min(limits.wall_s, sum(t.limit_s for t in pending)))
        build = self.workdir / "build" / Path(self.sources[0]).stem
        argv = [self.dafny, "test", "--no-verify", "--allow-warnings", "--target", self.target,
                "--methods-to-test", methods_regex([t.qualified for t in pending]), "--output", str(build),
                *self.sources]
        began = time.time()
        artifact = _artifact(build, self.target, self.env)
        started: Callable[[int], bool] | None = None
        if artifact:
            program = artifact[0]

            def started(pgid: int) -> bool:
                running = group_runs(pgid, str(program))
                return _fresh(program, began) if running is None else running
        # dafny test shows the program's output only when it ends: once it has compiled and launched
        # the program, stop it and run the program ourselves, so a hang costs one limit and shows where.
        done = run_limited(argv, self.workdir, self.env, limits.wall_s, started, limits.build_s,
                           hand_over=artifact is not None)
        if artifact and done.started and (done.handed_over or done.timed_out):
            direct = run_limited(artifact[1], self.workdir, self.env, limits.wall_s)
            if direct.returncode != 127 and (direct.stdout.strip() or direct.timed_out or not done.handed_over):
                return _attempt(direct, True)
            # The program would not run outside dafny (an environment difference): let dafny run it.
            done = run_limited(argv, self.workdir, self.env, limits.wall_s, started, limits.build_s)
        # built: the program was launched (its artifact is new), or, where we cannot see that, no error
        built = done.started and (_fresh(artifact[0], began) if artifact
                                  else not build_errors(done.stdout + done.stderr))
        return _attempt(done, built)


def _attempt(done: Completed, built: bool) -> Attempt:
    if not built:
        return Attempt(built=False, build_output=done.stdout + done.stderr, build_timed_out=done.timed_out,
                       returncode=done.returncode, wall_s=done.wall_s)
    return Attempt(done.stdout, done.stderr, done.timed_out, True, returncode=done.returncode, wall_s=done.wall_s)


def methods_regex(qualified: Sequence[str]) -> str:
    """A regex over fully qualified names that selects exactly these test methods."""
    return r"(^|\.)(" + "|".join(re.escape(n) for n in qualified) + r")$"


def _artifact(build: Path, target: str, env: dict[str, str]) -> tuple[Path, list[str]] | None:
    """Where `dafny test` puts the compiled program for this target, and the command that runs it."""
    folder, stem = build.parent, build.name
    if target == "cs":
        dotnet = shutil.which("dotnet", path=env.get("PATH"))  # as dafny runs it
        dll = folder / f"{stem}.dll"
        return dll, [dotnet, str(dll)] if dotnet else [str(folder / stem)]
    if target == "py":
        python = shutil.which("python3", path=env.get("PATH")) or "python3"
        main = folder / f"{stem}-py" / "__main__.py"
        return main, [python, str(main)]
    if target == "js":
        return folder / f"{stem}.js", ["node", str(folder / f"{stem}.js")]
    return None  # go, java: the limit then counts from the start of compilation


def _fresh(path: Path, since: float) -> bool:
    try:
        return path.stat().st_mtime >= since - 1
    except OSError:
        return False


@dataclass
class PyDriver:
    dafny: str
    env: dict[str, str]
    workdir: Path
    sources: tuple[str, ...]
    limits: Limits
    stop_on_kill: bool = False
    target: str = "py"
    _tests: dict[str, list[str]] | None = None  # printed name -> attribute chain, once translated
    _pydir: Path | None = None  # the translated program
    _build: Attempt | None = None

    def attempt(self, pending: Sequence[TestRef]) -> Attempt:
        if self._build is None:
            self._build = self._translate()
        if not self._build.built:
            return self._build
        assert self._tests is not None
        plan = []
        for t in pending:
            chain = self._chain(t.qualified)
            if chain is not None:
                plan.append([t.frame, t.name, chain, t.version, t.limit_s])
        plan_file = self.workdir / "plan.json"
        plan_file.write_text(json.dumps([self.limits.cpu_s, self.stop_on_kill, plan]))
        return self._drive(plan_file, {t.frame for t in pending}, {(t.frame, t.name): t.limit_s for t in pending})

    def _chain(self, qualified: str) -> list[str] | None:
        assert self._tests is not None
        if qualified in self._tests:
            return self._tests[qualified]
        return next((chain for printed, chain in self._tests.items() if printed.endswith("." + qualified)), None)

    def _translate(self) -> Attempt:
        # a name of our own: Dafny takes a dot in `-o` for an extension (`Views.Writers` gave `Views-py/`)
        out = self.workdir / "build" / "program"
        argv = [self.dafny, "translate", "py", "--include-test-runner", "--include-runtime", "--no-verify",
                "--allow-warnings", *self.sources, "-o", str(out)]
        done = run_limited(argv, self.workdir, self.env, self.limits.build_s)
        module = out.parent / f"{out.name}-py" / "module_.py"
        if done.returncode != 0 or not module.exists():
            return Attempt(built=False, build_output=done.stdout + done.stderr, build_timed_out=done.timed_out,
                           returncode=done.returncode, wall_s=done.wall_s)
        self._tests = {name: chain for name, chain in list_tests(module.read_text())}
        place_python_externs(self.sources, module.parent)
        (self.workdir / "driver.py").write_text(DRIVER)
        self._pydir = module.parent
        return Attempt(wall_s=done.wall_s)

    def _drive(self, plan_file: Path, frames: set[str], short: dict[tuple[str, str], float]) -> Attempt:
        """One driver process, until it ends or a test overstays its wall-clock limit. A test with a
        short limit of its own is stopped by the driver's alarm at that limit, and the driver goes on;
        this watch then waits twice as long (a second at least) as a backstop."""
        env = dict(self.env, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
        start = time.monotonic()
        # the interpreter dafny itself would run the program with
        python = shutil.which("python3", path=env.get("PATH")) or sys.executable
        proc = subprocess.Popen(tied_to_parent([python, "-u", str(self.workdir / "driver.py"), str(self._pydir),
                                                str(plan_file)]), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, cwd=str(self.workdir), start_new_session=True, stdin=subprocess.DEVNULL)
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
        err: list[bytes] = []
        err_stream = proc.stderr
        assert err_stream is not None  # stderr=PIPE
        threading.Thread(target=_drain, args=(err_stream, err), daemon=True).start()
        got: list[str] = []
        # importing the translated program may take a while: the first test gets a minute at least
        deadline = time.monotonic() + max(self.limits.wall_s, 60.0)
        timed_out = False
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                timed_out = True
                kill_group(proc.pid)
                break
            if line is None:
                break
            got.append(line)
            frame = next((f for f in frames if line.startswith(f + " start ") or line.startswith(f + " end ")), None)
            if frame is not None:
                # each test has its own limit, counted from its start frame (or the previous end)
                own = short.get((frame, line[len(frame) + len(" start "):].strip()), 0.0) \
                    if line.startswith(frame + " start ") else 0.0
                deadline = time.monotonic() + (own + max(own, 1.0) if own else self.limits.wall_s)
        proc.wait()
        stderr = b"".join(err).decode(errors="replace")
        return Attempt("".join(got), stderr, timed_out, True, returncode=None if timed_out else proc.returncode,
                       wall_s=time.monotonic() - start)


def _drain(stream: IO[bytes], into: list[bytes]) -> None:
    into.append(stream.read())


def _pump(stream, lines: queue.Queue) -> None:
    for raw in iter(stream.readline, b""):
        lines.put(raw.decode(errors="replace"))
    lines.put(None)


def make_executor(target: str, dafny: str, env: dict[str, str], workdir: Path, sources: Sequence[str],
                  limits: Limits, stop_on_kill: bool = False) -> Executor:
    """The executor of a target: py runs through our driver, every other target through `dafny test`."""
    if target == "py":
        return PyDriver(dafny, env, workdir, tuple(sources), limits, stop_on_kill)
    return DafnyTest(dafny, env, workdir, tuple(sources), target, limits)


def place_python_externs(sources: Sequence[str], pydir: Path) -> None:
    """The Python code of externs where the translated program imports it: a file whose first line is
    `# Module: X` is module X (as `dafny build` places it; `dafny translate` leaves Dafny's empty module
    there), any other under its own name."""
    for source in sources:
        path = Path(source)
        if path.suffix != ".py" or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        (pydir / f"{python_module(text) or path.stem}.py").write_text(text, encoding="utf-8")

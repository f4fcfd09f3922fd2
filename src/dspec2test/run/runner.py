"""Run generated tests against the program with real Dafny: one Verdict per TestCase.

One `dafny test` per round compiles program and tests together. A round that dies part-way (an uncaught
exception, or the wall-clock limit) gives the running test its verdict (error or timeout) and the tests
that printed nothing are run again in the next round (`--methods-to-test`), until every test has one.
`dafny test` shows the test program's output only once the program ends, so after a timeout the compiled
program is run directly to see which test hung.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from dspec2test.emit.metadata import read_metadata
from dspec2test.errors import Diagnostic
from dspec2test.records import Status, TestCase, Verdict
from dspec2test.run.output import Outcome, RoundOutput, no_body_member, parse_case_output
from dspec2test.run.process import Completed, run_limited
from dspec2test.run.verdicts import base_verdict, verdict_from_output
from dspec2test.run.verify import clause_texts
from dspec2test.toolchain import find_toolchain


@dataclass(frozen=True)
class RunOptions:
    target: str = "cs"
    timeout_s: float = 60.0  # wall clock per run of the compiled tests (one dafny invocation)
    compile_timeout_s: float = 600.0  # separate cap on compilation, so a slow compile is not a hung test


@dataclass(frozen=True)
class RunResult:
    program: str
    verdicts: tuple[Verdict, ...]  # one per TestCase, in the order given
    build_errors: tuple[Diagnostic, ...] = ()  # a build/resolution error: reported once, not per test
    program_broken: bool = False  # some build error is in the program itself (bad input)
    no_body: tuple[str, ...] = ()  # members without a body (TDD red state)
    rounds: int = 0
    wall_s: float = 0.0


class Progress(Protocol):
    def started(self, tests: int, program: str, target: str) -> None: ...

    def round_done(self, finished: int, total: int) -> None: ...


class _Silent:
    def started(self, tests: int, program: str, target: str) -> None:
        pass

    def round_done(self, finished: int, total: int) -> None:
        pass


@dataclass(frozen=True)
class _Workspace:
    """The temp folder of one run: the tests file and the build output. The program stays where it is
    (so its `include`s resolve) and is passed by absolute path."""

    root: Path
    program: str  # absolute path of the program
    tests: str  # file name of the tests copy in root
    build: Path  # -o: where dafny writes the compiled program, named after the program
    names: dict[str, str] = field(default_factory=dict)  # file as dafny names it -> path to report


def run_tests(program: str | Path, tests_text: str, cases: Sequence[TestCase], options: RunOptions = RunOptions(),
              progress: Progress | None = None, tests_path: str | None = None) -> RunResult:
    """Verdicts for `cases` (tests in `tests_text`) run against the program at `program`."""
    progress = progress or _Silent()
    start = time.monotonic()
    program = str(program)
    tools = find_toolchain()
    unique = list(dict.fromkeys(tc.name for tc in cases))
    by_name = {tc.name: tc for tc in cases}
    in_file = {tc.name for tc in read_metadata(tests_text)}  # run only ours when the file holds more
    if tools.dafny is None:
        verdicts = [base_verdict(tc, Status.ERROR, "dafny not found (run scripts/setup.sh or set DSPEC2TEST_DAFNY)")
                    for tc in cases]
        return RunResult(program, tuple(verdicts))
    env = tools.dafny_env()
    env["PYTHONUNBUFFERED"] = "1"  # the Python target's output must survive a kill
    progress.started(len(unique), program, options.target)
    done: dict[str, Verdict] = {}
    rounds = 0
    result_extra: dict = {}
    with tempfile.TemporaryDirectory(prefix="dspec2test-run-") as tmp:
        ws = _workspace(Path(tmp), program, tests_text, tests_path)
        pending = unique
        while pending:
            rounds += 1
            out, completed = _round(tools.dafny, ws, pending, set(pending) != in_file, options, env)
            if out.build_errors and not out.tests:
                verdicts, result_extra = _build_failure(ws, out.build_errors, [by_name[n] for n in pending])
                done.update(verdicts)
            for name, case_output in out.tests.items():
                done[name] = verdict_from_output(by_name[name], case_output, options.timeout_s)
            still = [n for n in pending if n not in done]
            stopped_early = any(t.outcome in (Outcome.CRASHED, Outcome.HUNG) for t in out.tests.values())
            if still and (not out.tests or not stopped_early):
                # Nothing was learned, or the run ended normally without these: do not loop on them.
                for name in still:
                    done[name] = base_verdict(by_name[name], *_unexplained(completed, options))
                still = []
            progress.round_done(len(done), len(unique))
            pending = still
    # The member lives in the program that was run (a mutant, say), whatever file the tests came from.
    verdicts = tuple(replace(done[tc.name], file=program) for tc in cases)
    if any(v.clause_line and not v.clause for v in verdicts):
        texts = clause_texts(program)
        verdicts = tuple(replace(v, clause=texts.get(v.clause_line)) if v.clause_line and not v.clause else v
                         for v in verdicts)
    return RunResult(program, verdicts, rounds=rounds, wall_s=time.monotonic() - start, **result_extra)


def _workspace(root: Path, program: str, tests_text: str, tests_path: str | None) -> _Workspace:
    absolute = str(Path(program).resolve())
    tests_name = Path(program).stem + "_dspec2test_tests.dfy"
    (root / tests_name).write_text(tests_text)
    names = {absolute: program, tests_name: tests_path or tests_name}
    return _Workspace(root, absolute, tests_name, root / "build" / Path(program).stem, names)


def _round(dafny: str, ws: _Workspace, pending: list[str], select: bool, options: RunOptions,
           env: dict[str, str]) -> tuple[RoundOutput, Completed]:
    argv = [dafny, "test", "--no-verify", "--allow-warnings", "--target", options.target]
    if select:
        argv += ["--methods-to-test", methods_regex(pending)]
    argv += ["--output", str(ws.build), ws.program, ws.tests]
    began = time.time()
    artifact = _artifact(ws, options.target, env)
    compiled = (lambda: _fresh(artifact[0], began)) if artifact else None
    completed = run_limited(argv, ws.root, env, options.timeout_s, compiled, options.compile_timeout_s)
    out = parse_case_output(completed.stdout, completed.stderr, pending, completed.timed_out)
    if completed.timed_out and completed.started and not out.tests and artifact and _fresh(artifact[0], began):
        # dafny test shows the program's output only when it ends: run the compiled program itself.
        completed = run_limited(artifact[1], ws.root, env, options.timeout_s)
        out = parse_case_output(completed.stdout, completed.stderr, pending, completed.timed_out)
    return out, completed


def methods_regex(names: list[str]) -> str:
    """A regex over fully qualified names that selects exactly these test methods."""
    return r"(^|\.)(" + "|".join(re.escape(n) for n in names) + r")$"


def _artifact(ws: _Workspace, target: str, env: dict[str, str]) -> tuple[Path, list[str]] | None:
    """Where `dafny test` puts the compiled program for this target, and the command that runs it."""
    build, stem = ws.build.parent, ws.build.name
    if target == "cs":
        return build / f"{stem}.dll", [str(build / stem)]
    if target == "py":
        python = shutil.which("python3", path=env.get("PATH")) or "python3"
        return build / f"{stem}-py" / "__main__.py", [python, str(build / f"{stem}-py" / "__main__.py")]
    if target == "js":
        return build / f"{stem}.js", ["node", str(build / f"{stem}.js")]
    return None  # go, java: the limit then counts from the start of compilation


def _fresh(path: Path, since: float) -> bool:
    try:
        return path.stat().st_mtime >= since - 1
    except OSError:
        return False


def _unexplained(completed: Completed, options: RunOptions) -> tuple[Status, str]:
    if completed.timed_out and not completed.started:
        return Status.TIMEOUT, (f"timed out: dafny did not finish compiling within {options.compile_timeout_s:g} s")
    if completed.timed_out:
        return Status.TIMEOUT, f"timed out: no verdict within {options.timeout_s:g} s (wall clock)"
    tail = (completed.stderr.strip() or completed.stdout.strip()).splitlines()[-3:]
    detail = " | ".join(line.strip() for line in tail) or f"exit code {completed.returncode}"
    return Status.ERROR, f"not run: dafny printed no verdict for this test ({detail})"


def _build_failure(ws: _Workspace, errors: tuple[Diagnostic, ...],
                   cases: list[TestCase]) -> tuple[dict[str, Verdict], dict]:
    errors = tuple(Diagnostic(ws.names.get(d.file, d.file), d.line, d.col, d.message, d.severity) for d in errors)
    missing = {m: d for d in errors if (m := no_body_member(d))}
    others = tuple(d for d in errors if not no_body_member(d))
    verdicts: dict[str, Verdict] = {}
    if missing and not others:
        names = ", ".join(missing)
        for tc in cases:
            member = _matching_member(tc, missing)
            message = (f"no implementation yet: {member} has no body" if member else
                       f"not run: Dafny cannot compile the program while {names} "
                       f"{'has' if len(missing) == 1 else 'have'} no body")
            verdicts[tc.name] = base_verdict(tc, Status.ERROR, message)
        return verdicts, {"no_body": tuple(missing)}
    first = others[0]
    more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
    for tc in cases:
        verdicts[tc.name] = base_verdict(tc, Status.ERROR, f"build failed: {first.render()}{more}")
    broken = any(d.file == ws.names[ws.program] for d in others)
    return verdicts, {"build_errors": others, "program_broken": broken}


def _matching_member(tc: TestCase, missing: dict[str, Diagnostic]) -> str | None:
    for member, diag in missing.items():
        if tc.method == member or (tc.line == diag.line and Path(tc.file).name == Path(diag.file).name):
            return member
    return None

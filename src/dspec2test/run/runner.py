"""Run generated tests against the program with real Dafny: one Verdict per TestCase.

One `dafny test` per round compiles program and tests together. A round that dies part-way (an uncaught
exception, or the wall-clock limit) gives the running test its verdict (error or timeout) and the tests
that printed nothing are run again in the next round (`--methods-to-test`), until every test has one.
`dafny test` shows the test program's output only once the program ends, so after a timeout the compiled
program is run directly to see which test hung.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from dspec2test.errors import Diagnostic
from dspec2test.records import Status, TestCase, Verdict
from dspec2test.run.output import Outcome, RoundOutput, no_body_member, parse_case_output
from dspec2test.run.process import Completed, run_limited
from dspec2test.run.verdicts import base_verdict, verdict_from_output
from dspec2test.toolchain import find_toolchain


@dataclass(frozen=True)
class RunOptions:
    target: str = "cs"
    timeout_s: float = 60.0  # wall clock per dafny invocation (compile and run)


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


@dataclass
class _Workspace:
    """The temp folder of one run: the program under its own name, the tests beside it."""

    root: Path
    program: str  # file name of the program copy
    tests: str  # file name of the tests copy
    names: dict[str, str] = field(default_factory=dict)  # file name there -> path to report


def run_tests(program: str | Path, tests_text: str, cases: Sequence[TestCase], options: RunOptions = RunOptions(),
              progress: Progress | None = None, tests_path: str | None = None) -> RunResult:
    """Verdicts for `cases` (tests in `tests_text`) run against the program at `program`."""
    progress = progress or _Silent()
    start = time.monotonic()
    program = str(program)
    tools = find_toolchain()
    unique = list(dict.fromkeys(tc.name for tc in cases))
    by_name = {tc.name: tc for tc in cases}
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
            out, completed = _round(tools.dafny, ws, pending, len(pending) < len(unique), options, env)
            if out.build_errors and not out.tests:
                verdicts, result_extra = _build_failure(ws, out.build_errors, [by_name[n] for n in pending])
                done.update(verdicts)
                break
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
    verdicts = tuple(done[tc.name] for tc in cases)
    return RunResult(program, verdicts, rounds=rounds, wall_s=time.monotonic() - start, **result_extra)


def _workspace(root: Path, program: str, tests_text: str, tests_path: str | None) -> _Workspace:
    prog_name = Path(program).name
    tests_name = Path(prog_name).stem + "_dspec2test_tests.dfy"
    shutil.copyfile(program, root / prog_name)
    (root / tests_name).write_text(tests_text)
    names = {prog_name: program, tests_name: tests_path or tests_name}
    return _Workspace(root, prog_name, tests_name, names)


def _round(dafny: str, ws: _Workspace, pending: list[str], select: bool, options: RunOptions,
           env: dict[str, str]) -> tuple[RoundOutput, Completed]:
    argv = [dafny, "test", "--no-verify", "--allow-warnings", "--target", options.target]
    if select:
        argv += ["--methods-to-test", methods_regex(pending)]
    argv += [ws.program, ws.tests]
    began = time.time()
    completed = run_limited(argv, ws.root, env, options.timeout_s)
    out = parse_case_output(completed.stdout, completed.stderr, pending, completed.timed_out)
    if completed.timed_out and not out.tests:
        direct = _compiled_program(ws, options.target, began, env)
        if direct:
            completed = run_limited(direct, ws.root, env, options.timeout_s)
            out = parse_case_output(completed.stdout, completed.stderr, pending, completed.timed_out)
    return out, completed


def methods_regex(names: list[str]) -> str:
    """A regex over fully qualified names that selects exactly these test methods."""
    return r"(^|\.)(" + "|".join(re.escape(n) for n in names) + r")$"


def _compiled_program(ws: _Workspace, target: str, since: float, env: dict[str, str]) -> list[str] | None:
    """The command that runs what this round's `dafny test` compiled, if it got that far."""
    stem = Path(ws.program).stem
    candidates = {
        "cs": (ws.root / stem, [str(ws.root / stem)]),
        "py": (ws.root / f"{stem}-py" / "__main__.py",
               [shutil.which("python3", path=env.get("PATH")) or "python3", f"{stem}-py/__main__.py"]),
        "js": (ws.root / f"{stem}.js", ["node", f"{stem}.js"]),
    }
    if target not in candidates:
        return None
    path, argv = candidates[target]
    if not path.exists() or path.stat().st_mtime < since - 1:
        return None
    if target == "cs" and not os.access(path, os.X_OK):
        return None
    return argv


def _unexplained(completed: Completed, options: RunOptions) -> tuple[Status, str]:
    if completed.timed_out:
        return Status.TIMEOUT, (f"timed out: dafny did not finish compiling and starting the tests within "
                                f"{options.timeout_s:g} s (wall clock)")
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

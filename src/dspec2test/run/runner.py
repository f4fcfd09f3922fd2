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

from dspec2test.dafny import ast
from dspec2test.dafny.parser import iter_members, parse_file
from dspec2test.emit.metadata import read_metadata, test_blocks, without_tests
from dspec2test.errors import Diagnostic
from dspec2test.records import Status, TestCase, Verdict
from dspec2test.run.output import Outcome, RoundOutput, no_body_member, parse_case_output
from dspec2test.run.process import Completed, group_runs, run_limited
from dspec2test.run.verdicts import base_verdict, verdict_from_output
from dspec2test.run.verify import SourceFacts, source_facts
from dspec2test.toolchain import find_toolchain


_NO_BODY_STUB = "dspec2test: no body yet"


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
    tests_text: str = ""  # what the tests file holds now (tests whose build failed are taken out)
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
        verdicts = [base_verdict(tc, Status.NOT_TESTED, "dafny not found (run scripts/setup.sh or set DSPEC2TEST_DAFNY)")
                    for tc in cases]
        return RunResult(program, tuple(verdicts))
    env = tools.dafny_env()
    env["PYTHONUNBUFFERED"] = "1"  # the Python target's output must survive a kill
    progress.started(len(unique), program, options.target)
    done: dict[str, Verdict] = {}
    rounds = 0
    result_extra: dict = {}
    no_body: tuple[str, ...] = ()
    with tempfile.TemporaryDirectory(prefix="dspec2test-run-") as tmp:
        ws = _workspace(Path(tmp), program, tests_text, tests_path)
        pending = unique
        while pending:
            rounds += 1
            out, completed = _round(tools.dafny, ws, pending, set(pending) != in_file, options, env)
            if out.build_errors and not out.tests:
                stub = None if no_body else _stubbed(ws, out.build_errors)
                if stub:
                    # TDD red state: body-less methods get a failing body so the other members still run.
                    ws, no_body = stub
                    continue
                dropped = _without_broken_tests(ws, out.build_errors, pending)
                if dropped:
                    # Our bug in some generated tests: report those, run the others.
                    ws, broken = dropped
                    for name, diagnostic in broken.items():
                        done[name] = base_verdict(by_name[name], Status.NOT_TESTED, f"build failed: {diagnostic.render()}")
                    pending = [n for n in pending if n not in done]
                    continue
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
    if no_body:
        verdicts = tuple(_no_implementation(v, tc, no_body) for v, tc in zip(verdicts, cases))
        result_extra.setdefault("no_body", no_body)
    if any(_wants_facts(v) for v in verdicts):
        facts = source_facts(program)
        verdicts = tuple(_with_facts(v, facts) for v in verdicts)
    return RunResult(program, verdicts, rounds=rounds, wall_s=time.monotonic() - start, **result_extra)


def _wants_facts(v: Verdict) -> bool:
    return bool(v.clause_line and not v.clause) or v.status in (Status.FAILED, Status.TIMEOUT)


def _with_facts(v: Verdict, facts: SourceFacts) -> Verdict:
    """The broken clause's text, and for a failure its member's assume lines, from the program."""
    if not _wants_facts(v):
        return v
    clause = v.clause or (facts.clauses.get(v.clause_line) if v.clause_line else None)
    failed = v.status in (Status.FAILED, Status.TIMEOUT)
    return replace(v, clause=clause, assumes=facts.assumes.get(v.method, ()) if failed else v.assumes)


def _workspace(root: Path, program: str, tests_text: str, tests_path: str | None) -> _Workspace:
    absolute = str(Path(program).resolve())
    tests_name = Path(program).stem + "_dspec2test_tests.dfy"
    (root / tests_name).write_text(tests_text)
    names = {absolute: program, tests_name: tests_path or tests_name}
    return _Workspace(root, absolute, tests_name, root / "build" / Path(program).stem, tests_text=tests_text,
                      names=names)


def _round(dafny: str, ws: _Workspace, pending: list[str], select: bool, options: RunOptions,
           env: dict[str, str]) -> tuple[RoundOutput, Completed]:
    argv = [dafny, "test", "--no-verify", "--allow-warnings", "--target", options.target]
    if select:
        argv += ["--methods-to-test", methods_regex(pending)]
    argv += ["--output", str(ws.build), ws.program, ws.tests]
    began = time.time()
    artifact = _artifact(ws, options.target, env)
    started = None
    if artifact:
        def started(pgid: int) -> bool:
            running = group_runs(pgid, str(artifact[0]))
            return _fresh(artifact[0], began) if running is None else running
    # dafny test shows the program's output only when it ends, so once it has compiled and launched the
    # program, stop it and run the program ourselves: a hang then costs one timeout and shows where it is.
    completed = run_limited(argv, ws.root, env, options.timeout_s, started, options.compile_timeout_s,
                            hand_over=artifact is not None)
    out = parse_case_output(completed.stdout, completed.stderr, pending, completed.timed_out)
    if artifact and completed.started and not out.tests and (completed.handed_over or completed.timed_out):
        direct = run_limited(artifact[1], ws.root, env, options.timeout_s)
        direct_out = parse_case_output(direct.stdout, direct.stderr, pending, direct.timed_out)
        if direct_out.tests or direct.timed_out or not completed.handed_over:
            return direct_out, direct
        # The program would not run outside dafny (an environment difference): let dafny run it after all.
        completed = run_limited(argv, ws.root, env, options.timeout_s, started, options.compile_timeout_s)
        out = parse_case_output(completed.stdout, completed.stderr, pending, completed.timed_out)
    return out, completed


def methods_regex(names: list[str]) -> str:
    """A regex over fully qualified names that selects exactly these test methods."""
    return r"(^|\.)(" + "|".join(re.escape(n) for n in names) + r")$"


def _artifact(ws: _Workspace, target: str, env: dict[str, str]) -> tuple[Path, list[str]] | None:
    """Where `dafny test` puts the compiled program for this target, and the command that runs it."""
    build, stem = ws.build.parent, ws.build.name
    if target == "cs":
        dotnet = shutil.which("dotnet", path=env.get("PATH"))  # as dafny runs it
        return build / f"{stem}.dll", [dotnet, str(build / f"{stem}.dll")] if dotnet else [str(build / stem)]
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
    return Status.NOT_TESTED, f"not run: dafny printed no verdict for this test ({detail})"


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
            verdicts[tc.name] = base_verdict(tc, Status.NO_IMPLEMENTATION, message)
        return verdicts, {"no_body": tuple(missing)}
    first = others[0]
    more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
    for tc in cases:
        verdicts[tc.name] = base_verdict(tc, Status.NOT_TESTED, f"build failed: {first.render()}{more}")
    broken = any(d.file == ws.names[ws.program] for d in others)
    return verdicts, {"build_errors": others, "program_broken": broken}


def _without_broken_tests(ws: _Workspace, errors: tuple[Diagnostic, ...],
                          pending: list[str]) -> tuple[_Workspace, dict[str, Diagnostic]] | None:
    """When every build error lies inside some generated tests: a workspace without those tests, and the
    error of each. None when any error is elsewhere (the program, or outside every test)."""
    blocks = test_blocks(ws.tests_text)
    broken: dict[str, Diagnostic] = {}
    for d in errors:
        owner = next((name for name, first, last in blocks if first <= d.line <= last), None)
        if d.file != ws.tests or owner not in pending:
            return None
        shown = Diagnostic(ws.names.get(d.file, d.file), d.line, d.col, d.message, d.severity)
        broken.setdefault(owner, shown)
    text = without_tests(ws.tests_text, set(broken))
    (ws.root / ws.tests).write_text(text)
    return replace(ws, tests_text=text), broken


def _stubbed(ws: _Workspace, errors: tuple[Diagnostic, ...]) -> tuple[_Workspace, tuple[str, ...]] | None:
    """When the only build errors are methods without a body: a workspace whose program copy gives each a
    body that fails its tests (same lines, so clause lines still match). None when that cannot be done:
    other errors, a body-less function (no statement can stand for an expression), or `include`s."""
    missing = [no_body_member(d) for d in errors]
    if not missing or None in missing:
        return None
    parsed = parse_file(ws.program)
    if isinstance(parsed, Diagnostic) or parsed.includes:
        return None
    members = {name: m for name, m in iter_members(parsed) if name in missing}
    if set(members) != set(missing) or any(not isinstance(m, ast.Method) or m.body for m in members.values()):
        return None
    text = parsed.text or Path(ws.program).read_text()
    for member in sorted(members.values(), key=lambda m: m.span.end, reverse=True):
        text = text[: member.span.end] + f' {{ expect false, "{_NO_BODY_STUB}"; }}' + text[member.span.end:]
    copy = ws.root / Path(ws.program).name
    copy.write_text(text)
    names = {**ws.names, str(copy): ws.names[ws.program]}
    return replace(ws, program=str(copy), names=names), tuple(dict.fromkeys(m for m in missing if m))


def _no_implementation(v: Verdict, tc: TestCase, no_body: tuple[str, ...]) -> Verdict:
    if tc.method in no_body:
        return replace(v, status=Status.NO_IMPLEMENTATION, message=f"no implementation yet: {tc.method} has no body",
                       expected=None, actual=None, clause_line=None, clause=None)
    return v


def _matching_member(tc: TestCase, missing: dict[str, Diagnostic]) -> str | None:
    for member, diag in missing.items():
        if tc.method == member or (tc.line == diag.line and Path(tc.file).name == Path(diag.file).name):
            return member
    return None

"""Run generated tests against the program with real Dafny: one Verdict per TestCase.

Each run stamps its copy of the tests with a fresh nonce (emit/markers.py), runs them with the
target's executor until every test has been seen (observe.py), and maps what each test did to its
verdict (verdicts.py). When the build fails, the runner tries what can still give verdicts: members of
the program at fault (without a body, the TDD red state, or with code the target does not build) get,
in a copy of the program, a stub that says so when reached (recover.py, stubs.py), so the members that
do not reach them still run and a test that does is told which one it reached and why; tests of ours
that do not build are taken out (not-tested, with Dafny's error) and the others run.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from dspec2test.dafny.parser import parse_file
from dspec2test.emit.markers import new_nonce, stamp, stamp_of
from dspec2test.emit.metadata import needs_test_build, without_tests
from dspec2test.errors import Diagnostic
from dspec2test.model.program import load_program
from dspec2test.records import Status, TestCase, Verdict
from dspec2test.run.diagnostics import build_errors, no_body_member
from dspec2test.run.executors import Attempt, Limits, TestRef, make_executor
from dspec2test.run.hangs import short_note
from dspec2test.run.observe import Observed, observe
from dspec2test.run.recover import MAX_REPAIR_ROUNDS, broken_tests, faults_of
from dspec2test.run.stubs import Fault, stubbed
from dspec2test.run.verdicts import base_verdict, no_body_message, not_built_message, verdict_of
from dspec2test.run.verify import SourceFacts, source_facts
from dspec2test.testbuild import TestBuild, lift
from dspec2test.toolchain import DEFAULT_TARGET, find_toolchain



NO_SDK = "No .NET SDKs were found"  # what dotnet says when asked to build where only its runtime is


@dataclass(frozen=True)
class RunOptions:
    target: str = DEFAULT_TARGET
    timeout_s: float = 60.0  # wall clock: per test on py, per run of the compiled tests on other targets
    cpu_s: float = 0.0  # py: CPU seconds per test (0: none)
    compile_timeout_s: float = 600.0  # separate cap on compilation, so a slow compile is not a hung test
    hang_rule: bool = True  # a member that timed out gets short limits for its other tests (run/hangs.py)

    @property
    def limits(self) -> Limits:
        return Limits(self.timeout_s, self.cpu_s, self.compile_timeout_s)


@dataclass(frozen=True)
class RunResult:
    program: str
    verdicts: tuple[Verdict, ...]  # one per TestCase, in the order given
    build_errors: tuple[Diagnostic, ...] = ()  # a build/resolution error: reported once, not per test
    program_broken: bool = False  # some build error is in the program itself (bad input)
    no_body: tuple[str, ...] = ()  # members without a body (TDD red state)
    # build errors in members of the program that the test build routed around (run/stubs.py): the tests
    # that reach those members are not-tested, the others ran
    unbuilt: tuple[Diagnostic, ...] = ()
    rounds: int = 0
    wall_s: float = 0.0
    ran: frozenset[str] = frozenset()  # tests seen running (any marker): not those that never built
    # every output each test printed after the call, passed or not (the verdicts keep them for failures)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)


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
    """The temp folder of one run. The program stays where it is (so its `include`s resolve) unless its
    test build compiles ghost state (a copy of every file of it, laid out as the user's) or members of it
    need stubs (then its files, or the test build's, are copied there in the same layout, so `include`s
    and a project file's globs resolve); the tests are a stamped copy."""

    root: Path
    program: str  # absolute path of the program (or of its stubbed copy)
    tests: str  # absolute path of the stamped tests copy
    inputs: tuple[str, ...]  # what dafny builds beside the tests: the program, or its project file
    tests_text: str  # the tests as generated (unstamped), minus tests taken out
    names: dict[str, str] = field(default_factory=dict)  # file as dafny names it -> path to report
    # each file of the program as reported -> its absolute path (empty: it cannot be copied)
    sources: dict[str, str] = field(default_factory=dict)
    copies: dict[str, str] = field(default_factory=dict)  # file as reported -> its copy ({}: none made)
    faults: tuple[Fault, ...] = ()  # members the copies route around
    repairs: int = 0  # builds that found faults

    @property
    def no_body(self) -> tuple[str, ...]:
        return tuple(f.member for f in self.faults if f.no_body)

    @property
    def unbuilt(self) -> dict[str, Fault]:
        """Members routed around for code that does not build, by name."""
        return {f.member: f for f in self.faults if f.error is not None}


def run_tests(program: str | Path, tests_text: str, cases: Sequence[TestCase], options: RunOptions = RunOptions(),
              progress: Progress | None = None, tests_path: str | None = None,
              inputs: Sequence[str] = (), files: Sequence[str] = (), build: TestBuild | None = None) -> RunResult:
    """Verdicts for `cases` (tests in `tests_text`) run against the program at `program`. `inputs`: what
    dafny must build beside the tests when that is not the program file alone (its project file, or the
    roots of several files' programs built at once); `files`: the other files of the program, where
    members of it may be declared (as reports name them); `build`: the program's test build, whose copy
    the tests compile against (testbuild/: the tests read the ghost state it compiles); None: found here
    when the tests file says it needs one (generation's is the same, found once per program version)."""
    progress = progress or _Silent()
    start = time.monotonic()
    program = str(program)
    tools = find_toolchain()
    by_name = {tc.name: tc for tc in cases}
    unique = list(by_name)
    if tools.dafny is None:
        why = "dafny not found (run scripts/setup.sh or set DSPEC2TEST_DAFNY)"
        return RunResult(program, tuple(base_verdict(tc, Status.NOT_TESTED, why) for tc in cases))
    if build is None:
        build = _test_build(program, tests_text, options.target)
    nonce = new_nonce()
    env = tools.dafny_env()
    progress.started(len(unique), program, options.target)
    done: dict[str, Verdict] = {}
    extra: dict = {}
    ran: set[str] = set()
    outputs: dict[str, dict[str, str]] = {}
    rounds = 0
    with tempfile.TemporaryDirectory(prefix="dspec2test-run-") as tmp:
        ws = _workspace(Path(tmp), program, tests_text, tests_path, nonce, tuple(inputs), tuple(files), build)
        pending = unique
        while pending:
            refs = [TestRef(name, name, "", stamp_of(nonce), by_name[name].method) for name in pending]
            workdir = ws.root / f"run{rounds}"
            workdir.mkdir()
            executor = make_executor(options.target, tools.dafny, env, workdir, (*ws.inputs, ws.tests), options.limits)
            got = observe(executor, refs, nonce, hang_limit_s=options.timeout_s if options.hang_rule else None)
            rounds += got.attempts
            if got.build is not None:
                errors = _named(ws, build_errors(got.build.build_output))
                if (routed := _routed_around(ws, errors, nonce)) is not None:
                    ws = routed  # members at fault get stubs: the members that do not reach them still run
                    continue
                if (dropped := _without_broken_tests(ws, errors, pending, nonce)) is not None:
                    ws, broken = dropped  # our bug in some generated tests: report those, run the others
                    for name, diagnostic in broken.items():
                        done[name] = _broken_test_verdict(by_name[name], diagnostic, ws)
                    pending = [n for n in pending if n not in done]
                    continue
                failed, extra = _build_failure(ws, errors, got.build, [by_name[n] for n in pending], options)
                done.update(failed)
                break
            for key, obs in got.seen.items():
                name = key[1]
                short = got.limits.get(key)
                done[name] = verdict_of(by_name[name], obs, short or options.timeout_s)
                if short and done[name].status is Status.TIMEOUT:
                    done[name] = replace(done[name], message=f"{done[name].message}, {short_note(by_name[name].method)}")
                outputs[name] = dict(obs.actuals)
                ran.add(name)
            for (_, name), why in got.skipped.items():
                done[name] = base_verdict(by_name[name], Status.NOT_TESTED, why)
            for name in pending:
                if name not in done:
                    done[name] = base_verdict(by_name[name], *_unexplained(got, options))
            progress.round_done(len(done), len(unique))
            break
        no_body = ws.no_body
        unbuilt = tuple(dict.fromkeys(f.error for f in ws.unbuilt.values() if f.error is not None))
    # The member lives in the program that was run (a mutant, say), whatever file the tests came from,
    # unless it is declared in another file of a program of several files.
    others = set(files) - {program}
    verdicts = tuple(replace(done[tc.name], file=tc.file if tc.file in others else program) for tc in cases)
    if no_body:
        extra.setdefault("no_body", no_body)
    if unbuilt and "build_errors" not in extra:
        extra["unbuilt"] = unbuilt
    if any(_wants_facts(v) for v in verdicts):
        facts: dict[str, SourceFacts] = {}
        for v in verdicts:
            if v.file not in facts:
                facts[v.file] = source_facts(v.file)
        verdicts = tuple(_with_facts(v, facts[v.file]) for v in verdicts)
    return RunResult(program, verdicts, rounds=rounds, wall_s=time.monotonic() - start, ran=frozenset(ran),
                     outputs=outputs, **extra)


def _test_build(program: str, tests_text: str, target: str) -> TestBuild:
    """The test build the tests need, when their file says they read ghost state (the program as written
    otherwise, or where it cannot be read)."""
    if not needs_test_build(tests_text):
        return TestBuild()
    loaded = load_program(program)
    return lift(loaded, target) if not isinstance(loaded, Diagnostic) else TestBuild()


def _wants_facts(v: Verdict) -> bool:
    return bool(v.clause_line and not v.clause) or v.status in (Status.FAILED, Status.TIMEOUT)


def _with_facts(v: Verdict, facts: SourceFacts) -> Verdict:
    """The broken clause's text, and for a failure its member's assume lines, from the program."""
    if not _wants_facts(v):
        return v
    clause = v.clause or (facts.clauses.get(v.clause_line) if v.clause_line else None)
    failed = v.status in (Status.FAILED, Status.TIMEOUT)
    return replace(v, clause=clause, assumes=facts.assumes.get(v.method, ()) if failed else v.assumes)


def _workspace(root: Path, program: str, tests_text: str, tests_path: str | None, nonce: str,
               inputs: tuple[str, ...] = (), files: tuple[str, ...] = (),
               build: TestBuild = TestBuild()) -> _Workspace:
    absolute = str(Path(program).resolve())
    tests = root / (Path(program).stem + "_dspec2test_tests.dfy")
    tests.write_text(stamp(tests_text, nonce))
    # dafny names a file by its base name in its messages
    names = {absolute: program, Path(absolute).name: program, str(tests): tests_path or tests.name,
             tests.name: tests_path or tests.name}
    sources = _sources(program, files)
    inputs = inputs or (absolute,)
    if not build.as_written:
        # the copy in which ghost state runs: the program's own files and project file are its copies;
        # other inputs (extern code) stay where they are. Stubs, if needed, are made in a copy of it.
        placed = build.place(root / "lifted")
        inputs = tuple(placed.sources.get(str(Path(i).resolve()), i) for i in inputs)
        names.update(placed.names)
        # dafny names a file relative to where it runs (a sibling folder of the copy's: `run0`)
        names.update({os.path.relpath(path, root / "run0"): shown for path, shown in placed.names.items()
                      if os.path.isabs(path)})
        absolute = placed.sources.get(absolute, absolute)
        sources = {shown: path for path, shown in placed.names.items() if os.path.isabs(path)}
    for shown, path in sources.items():
        names.setdefault(path, shown)
    return _Workspace(root, absolute, str(tests), inputs, tests_text, names, sources)


def _sources(program: str, files: tuple[str, ...]) -> dict[str, str]:
    """Each file of the program as reported -> its absolute path: what a copy of the program copies.
    Empty when a file cannot be found, or when the files of a program of several are not known (a
    copy of one file of such a program elsewhere would not find the others)."""
    shown = list(dict.fromkeys((program, *files)))
    paths = {f: Path(f).resolve() for f in shown}
    if not all(p.is_file() for p in paths.values()):
        return {}
    if len(shown) == 1:
        parsed = parse_file(str(paths[program]))
        if isinstance(parsed, Diagnostic) or parsed.includes:
            return {}
    return {f: str(p) for f, p in paths.items()}


def _named(ws: _Workspace, errors: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
    """Diagnostics with the files named as the user knows them (not our temp copies; the other files of
    the program relative to the current folder)."""
    return tuple(replace(d, file=ws.names.get(d.file, ws.names.get(Path(d.file).name, _shown(d.file))))
                 for d in errors)


def _shown(file: str) -> str:
    path = Path(file)
    if not path.is_absolute():
        return file
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return file


def _unexplained(got: Observed, options: RunOptions) -> tuple[Status, str]:
    last = got.last or Attempt()
    if last.timed_out:
        return Status.NOT_TESTED, f"not run: the run was stopped at its limit of {options.timeout_s:g} s before this test began"
    tail = (last.stderr.strip() or last.stdout.strip()).splitlines()[-3:]
    detail = " | ".join(line.strip() for line in tail) or f"exit code {last.returncode}"
    return Status.NOT_TESTED, f"not run: the test program ended without running this test ({detail})"


def _build_failure(ws: _Workspace, errors: tuple[Diagnostic, ...], build: Attempt, cases: list[TestCase],
                   options: RunOptions) -> tuple[dict[str, Verdict], dict]:
    if build.build_timed_out:
        why = f"timed out: dafny did not finish compiling within {options.compile_timeout_s:g} s"
        return {tc.name: base_verdict(tc, Status.NOT_TESTED, why) for tc in cases}, {}
    if not errors and NO_SDK in build.build_output:
        why = (f"not run: target {options.target} builds with the .NET SDK, which is not installed here "
               f"(the action's default image has the .NET runtime only: `target: cs` needs its -cs variant)")
        return {tc.name: base_verdict(tc, Status.NOT_TESTED, why) for tc in cases}, {}
    if not errors:
        tail = " | ".join(line.strip() for line in build.build_output.strip().splitlines()[-3:])
        why = f"build failed: {tail or f'dafny exited with {build.returncode}'}"
        return {tc.name: base_verdict(tc, Status.NOT_TESTED, why) for tc in cases}, {}
    missing = {m: d for d in errors if (m := no_body_member(d))}
    others = tuple(d for d in errors if not no_body_member(d))
    verdicts: dict[str, Verdict] = {}
    if missing and not others:
        names = ", ".join(missing)
        for tc in cases:
            member = _matching_member(tc, missing)
            message = (no_body_message(member) if member else
                       f"not run: Dafny cannot compile the program while {names} "
                       f"{'has' if len(missing) == 1 else 'have'} no body")
            verdicts[tc.name] = base_verdict(tc, Status.NO_IMPLEMENTATION, message)
        return verdicts, {"no_body": tuple(missing)}
    first = others[0]
    more = f" (and {len(others) - 1} more)" if len(others) > 1 else ""
    for tc in cases:
        verdicts[tc.name] = base_verdict(tc, Status.NOT_TESTED, f"build failed: {first.render()}{more}")
    tests_shown = ws.names[ws.tests]
    broken = any(d.file != tests_shown for d in others)
    return verdicts, {"build_errors": others, "program_broken": broken}


def _without_broken_tests(ws: _Workspace, errors: tuple[Diagnostic, ...], pending: list[str],
                          nonce: str) -> tuple[_Workspace, dict[str, Diagnostic]] | None:
    """When every build error lies inside some generated tests: a workspace without those tests, and the
    error of each. None when any error is elsewhere (the program, or outside every test)."""
    broken = broken_tests(errors, ws.tests_text, {ws.names[ws.tests]}, pending)
    if broken is None:
        return None
    text = without_tests(ws.tests_text, set(broken))
    Path(ws.tests).write_text(stamp(text, nonce))
    return replace(ws, tests_text=text), broken


def _routed_around(ws: _Workspace, errors: tuple[Diagnostic, ...], nonce: str) -> _Workspace | None:
    """When build errors lie in members of the program: a workspace whose copy of the program routes
    around them (recover.py finds the members, stubs.py edits the copy; same lines, so clause lines still
    match), and around those found before. None when that cannot be done: an error where no repair
    reaches, nothing new found, the rounds spent, or a program whose files cannot be copied."""
    if ws.repairs >= MAX_REPAIR_ROUNDS or not ws.sources:
        return None
    texts = {shown: Path(ws.copies.get(shown, path)).read_text() for shown, path in ws.sources.items()}
    faults = faults_of(errors, texts, ws.faults)
    if faults is None:
        return None
    ws = ws if ws.copies else _copied(ws)
    for shown, original in ws.sources.items():
        text = Path(original).read_text()
        mine = [f for f in faults if f.file == shown]
        copy = stubbed(text, shown, mine, stamp_of(nonce)) if mine else text
        if copy is None:
            return None
        Path(ws.copies[shown]).write_text(copy)
    return replace(ws, faults=faults, repairs=ws.repairs + 1)


def _copied(ws: _Workspace) -> _Workspace:
    """The workspace building copies of the program's files (and of its project file), in the layout of
    the originals under their common folder, so that includes and a project's globs find the copies."""
    projects = [str(Path(i).resolve()) for i in ws.inputs if i.endswith(".toml") and Path(i).is_file()]
    originals = [*ws.sources.values(), *projects]
    common = Path(os.path.commonpath(originals)) if len(originals) > 1 else Path(originals[0]).parent
    copy_root = ws.root / "program"
    moved = {p: str(copy_root / Path(p).relative_to(common)) for p in originals}
    for original, copy in moved.items():
        Path(copy).parent.mkdir(parents=True, exist_ok=True)
        Path(copy).write_text(Path(original).read_text())
    names = dict(ws.names)
    for shown, original in ws.sources.items():
        names[moved[original]] = shown
        names.setdefault(Path(moved[original]).name, shown)
    inputs = tuple(moved.get(str(Path(i).resolve()), i) for i in ws.inputs)  # extern code stays where it is
    return replace(ws, program=moved.get(ws.program, ws.program), inputs=inputs, names=names,
                   copies={shown: moved[p] for shown, p in ws.sources.items()})


def _broken_test_verdict(tc: TestCase, diagnostic: Diagnostic, ws: _Workspace) -> Verdict:
    """A test of ours that does not build: its member's truth when the member is one the test build
    routed around (no body; code that does not build, made ghost), else Dafny's error."""
    if tc.method in ws.no_body:
        return base_verdict(tc, Status.NO_IMPLEMENTATION, no_body_message(tc.method))
    fault = ws.unbuilt.get(tc.method)
    if fault is not None and fault.error is not None:
        return base_verdict(tc, Status.NOT_TESTED, not_built_message(tc.method, tc.method, fault.error.render()))
    return base_verdict(tc, Status.NOT_TESTED, f"build failed: {diagnostic.render()}")


def _matching_member(tc: TestCase, missing: dict[str, Diagnostic]) -> str | None:
    for member, diag in missing.items():
        if tc.method == member or (tc.line == diag.line and Path(tc.file).name == Path(diag.file).name):
            return member
    return None

"""One tests file against many versions of a program (a mutation benchmark's original and mutants),
through the same executors, reader and verdict mapper as `run`.

Batched: one combined program, `module BenchSubjectNNN { <version text> <tests text> }` per version,
so each copy of the tests resolves the names it calls inside its own version, and each copy is
stamped with its own version's mark: a marker line says which version printed it. Built once. When
the combined program does not build (an `include`, a name Dafny will not nest, a version whose
changed signature the tests do not fit), every version runs alone instead, so the verdicts stay those
of one-at-a-time runs. Alone: the version and the tests as two files, as `dafny test prog tests`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dspec2test.emit.markers import new_nonce, stamp, stamp_of
from dspec2test.emit.metadata import read_metadata, without_tests
from dspec2test.records import Status, TestCase
from dspec2test.run.diagnostics import build_errors
from dspec2test.run.recover import MAX_REPAIR_ROUNDS, broken_tests, faults_of
from dspec2test.run.runner import RunOptions
from dspec2test.run.executors import TestRef, make_executor
from dspec2test.run.observe import observe
from dspec2test.run.reader import End
from dspec2test.run.stubs import Fault, stubbed
from dspec2test.run.verdicts import no_body_message, not_built_message, ran_unchecked, status_of
from dspec2test.toolchain import Toolchain

SUBJECT_MODULE = "BenchSubject"  # batched runs wrap program version k in module BenchSubject<kkk>
_TESTS_FILE = "prog_tests.dfy"  # a version's tests, as dafny names the file in its messages
_PROGRAM_FILE = "prog.dfy"  # a version run alone, as dafny names it


@dataclass(frozen=True)
class Version:
    key: str  # the mutant's name (or the program's, for the original)
    text: str


@dataclass(frozen=True)
class SuiteTest:
    """A test of the suite: its name as its `start` line says it, where it lives in a version (module
    path included), and the TestCase that resolves its checks (None for tests we did not write)."""

    name: str
    qualified: str
    case: TestCase | None = None


@dataclass(frozen=True)
class Suite:
    text: str  # the tests file, with its marks unstamped
    tests: tuple[SuiteTest, ...]


def our_suite(tests_text: str) -> Suite:
    """A tests file dspec2test wrote: its tests, by their metadata."""
    cases = list({tc.name: tc for tc in read_metadata(tests_text)}.values())
    return Suite(tests_text, tuple(SuiteTest(tc.name, tc.name, tc) for tc in cases))


@dataclass(frozen=True)
class Outcome:
    name: str
    status: Status
    message: str = ""
    unbuilt: bool = False  # not run for reaching a member whose code does not build (run/stubs.py)


@dataclass(frozen=True)
class VersionRun:
    """What the suite did on one version: the tests that ran (with stop-on-first-kill, those up to the
    first that did not pass), or why nothing ran."""

    outcomes: tuple[Outcome, ...] = ()
    build_error: str | None = None
    batched: bool = False
    slowest_test_cpu_s: float = 0.0  # the most CPU time one test took (py driver only; 0: not measured)
    seconds: float = 0.0
    stubbed: tuple[Fault, ...] = ()  # members at fault (no body, code that does not build) routed around to build


@dataclass(frozen=True)
class VersionsConfig:
    """How a suite runs on versions: as `run` runs tests (target and limits: RunOptions, the one type for
    that), plus what only a benchmark asks for."""

    run: RunOptions = RunOptions()
    stop_on_kill: bool = False
    batch: bool = True
    stubs: tuple[Fault, ...] = ()  # members to route around in every version (as the original needed: run/stubs.py)


def run_versions(versions: Sequence[Version], suite: Suite, config: VersionsConfig, tools: Toolchain,
                 workdir: Path) -> tuple[dict[str, VersionRun], int]:
    """key -> what the suite did on that version, and the number of builds it took."""
    if config.batch and len(versions) > 1:
        got = _batched(versions, suite, config, tools, workdir / "batch")
        if got is not None:
            return got, 1
    out = {v.key: run_alone(v, suite, config, tools, workdir / f"alone{i:03d}") for i, v in enumerate(versions)}
    return out, len(versions)


def run_alone(version: Version, suite: Suite, config: VersionsConfig, tools: Toolchain, workdir: Path) -> VersionRun:
    """One version on its own. When it does not build because of members of the program at fault, or
    because of errors inside some of our tests, again with those members routed around or those tests
    taken out (run/recover.py, as `run` does); the tests taken out are reported with their error."""
    stubs, tests, text = config.stubs, suite.tests, suite.text
    taken_out: dict[str, str] = {}
    repairs = 0
    for attempt in range(MAX_REPAIR_ROUNDS + 3):
        folder = workdir / f"try{attempt}"
        got = _alone(version, Suite(text, tests), config, tools, folder, stubs)
        if got.build_error is None:
            break
        errors = tuple(replace(d, file=Path(d.file).name) for d in build_errors(got.build_error))
        built = (folder / _PROGRAM_FILE).read_text() if (folder / _PROGRAM_FILE).is_file() else version.text
        faults = faults_of(errors, {_PROGRAM_FILE: built}, stubs) if repairs < MAX_REPAIR_ROUNDS else None
        if faults is not None:
            stubs, repairs = faults, repairs + 1
            continue
        broken = broken_tests(errors, text, {_TESTS_FILE}, {t.name for t in tests})
        if broken is None:
            break
        taken_out.update({name: d.render() for name, d in broken.items()})
        tests = tuple(t for t in tests if t.name not in broken)
        text = without_tests(text, set(broken))
    if not taken_out or got.build_error is not None:
        return got
    cases = {t.name: t.case for t in suite.tests}
    unbuilt = {f.member: f.error for f in stubs if f.error is not None}
    no_body = {f.member for f in stubs if f.error is None}
    dropped = tuple(Outcome(name, Status.NO_IMPLEMENTATION, no_body_message(case.method))
                    if (case := cases.get(name)) is not None and case.method in no_body
                    else Outcome(name, Status.NOT_TESTED, not_built_message(case.method, case.method, error.render()), True)
                    if case is not None and (error := unbuilt.get(case.method)) is not None
                    else Outcome(name, Status.NOT_TESTED, f"the test does not build: {message}")
                    for name, message in taken_out.items())
    return replace(got, outcomes=dropped + got.outcomes)


def _alone(version: Version, suite: Suite, config: VersionsConfig, tools: Toolchain, workdir: Path,
           stubs: tuple[Fault, ...]) -> VersionRun:
    workdir.mkdir(parents=True, exist_ok=True)
    nonce = new_nonce()
    program = workdir / _PROGRAM_FILE
    text = stubbed(version.text, program.name, stubs, stamp_of(nonce)) if stubs else version.text
    if text is None:
        names = ", ".join(f.member for f in stubs)
        return VersionRun(build_error=f"members at fault could not be routed around: {names}")
    program.write_text(text)
    tests = workdir / _TESTS_FILE
    tests.write_text(stamp(suite.text, nonce))
    refs = [TestRef(t.qualified, t.name, "", stamp_of(nonce)) for t in suite.tests]
    executor = make_executor(config.run.target, tools.dafny or "dafny", tools.dafny_env(), workdir,
                             (str(program), str(tests)), config.run.limits, config.stop_on_kill)
    got = observe(executor, refs, nonce, config.stop_on_kill)
    if got.build is not None:
        return VersionRun(build_error=_why(got.build.build_output, got.build.build_timed_out, config),
                          seconds=got.wall_s, stubbed=stubs)
    run = _collect(suite, {name: o for (_, name), o in got.seen.items()}, config, got.wall_s)
    return replace(run, stubbed=stubs)


def _batched(versions: Sequence[Version], suite: Suite, config: VersionsConfig, tools: Toolchain,
             workdir: Path) -> dict[str, VersionRun] | None:
    workdir.mkdir(parents=True, exist_ok=True)
    nonce = new_nonce()
    modules = [f"{SUBJECT_MODULE}{i:03d}" for i in range(len(versions))]
    texts = [stubbed(v.text, f"{m}.dfy", config.stubs, stamp_of(nonce, m)) if config.stubs else v.text
             for m, v in zip(modules, versions)]
    if any(t is None for t in texts):
        return None
    parts = [f"module {m} {{\n{t}\n\n{stamp(suite.text, nonce, m)}\n}}\n" for m, t in zip(modules, texts)]
    source = workdir / "batch.dfy"
    source.write_text("\n".join(parts))
    refs = [TestRef(f"{m}.{t.qualified}", t.name, m, stamp_of(nonce, m)) for m in modules for t in suite.tests]
    executor = make_executor(config.run.target, tools.dafny or "dafny", tools.dafny_env(), workdir, (str(source),),
                             config.run.limits, config.stop_on_kill)
    got = observe(executor, refs, nonce, config.stop_on_kill)
    if got.build is not None:
        return None
    out = {}
    for m, v in zip(modules, versions):
        seen = {name: o for (version, name), o in got.seen.items() if version == m}
        out[v.key] = _collect(suite, seen, config, got.wall_s / len(versions), batched=True)
    return out


def _collect(suite: Suite, seen: dict, config: VersionsConfig, seconds: float, batched: bool = False) -> VersionRun:
    outcomes: list[Outcome] = []
    cpu = 0.0
    for t in suite.tests:
        obs = seen.get(t.name)
        if obs is None:
            if config.stop_on_kill and any(o.status is not Status.PASSED and not ran_unchecked(o.status, o.message)
                                           for o in outcomes):
                continue  # skipped: the version is killed already
            outcomes.append(Outcome(t.name, Status.NOT_TESTED, "not run: the test program ended before this test"))
            continue
        status, message = status_of(obs, t.case, config.run.limits.wall_s)
        outcomes.append(Outcome(t.name, status, message, obs.end is End.NOT_BUILT))
        if obs.cpu_s is not None and (status is Status.PASSED or ran_unchecked(status, message)):
            cpu = max(cpu, obs.cpu_s)
    return VersionRun(tuple(outcomes), None, batched, cpu, seconds)


def _why(output: str, timed_out: bool, config: VersionsConfig) -> str:
    if timed_out:
        return f"the build did not finish within {config.run.limits.build_s:g} s"
    return output.strip() or "the build failed without a message"

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
from dataclasses import dataclass
from pathlib import Path

from dspec2test.emit.markers import new_nonce, stamp, stamp_of
from dspec2test.emit.metadata import read_metadata
from dspec2test.records import Status, TestCase
from dspec2test.run.executors import Limits, TestRef, make_executor
from dspec2test.run.observe import observe
from dspec2test.run.verdicts import status_of
from dspec2test.toolchain import Toolchain

SUBJECT_MODULE = "BenchSubject"  # batched runs wrap program version k in module BenchSubject<kkk>


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


@dataclass(frozen=True)
class VersionRun:
    """What the suite did on one version: the tests that ran (with stop-on-first-kill, those up to the
    first that did not pass), or why nothing ran."""

    outcomes: tuple[Outcome, ...] = ()
    build_error: str | None = None
    batched: bool = False
    slowest_test_cpu_s: float = 0.0  # the most CPU time one test took (py driver only; 0: not measured)
    seconds: float = 0.0


@dataclass(frozen=True)
class VersionsConfig:
    target: str
    limits: Limits
    stop_on_kill: bool = False
    batch: bool = True


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
    workdir.mkdir(parents=True, exist_ok=True)
    nonce = new_nonce()
    program = workdir / "prog.dfy"
    program.write_text(version.text)
    tests = workdir / "prog_tests.dfy"
    tests.write_text(stamp(suite.text, nonce))
    refs = [TestRef(t.qualified, t.name, "", stamp_of(nonce)) for t in suite.tests]
    executor = make_executor(config.target, tools.dafny or "dafny", tools.dafny_env(), workdir,
                             (str(program), str(tests)), config.limits, config.stop_on_kill)
    got = observe(executor, refs, nonce, config.stop_on_kill)
    if got.build is not None:
        return VersionRun(build_error=_why(got.build.build_output, got.build.build_timed_out, config),
                          seconds=got.wall_s)
    return _collect(suite, {name: o for (_, name), o in got.seen.items()}, config, got.wall_s)


def _batched(versions: Sequence[Version], suite: Suite, config: VersionsConfig, tools: Toolchain,
             workdir: Path) -> dict[str, VersionRun] | None:
    workdir.mkdir(parents=True, exist_ok=True)
    nonce = new_nonce()
    modules = [f"{SUBJECT_MODULE}{i:03d}" for i in range(len(versions))]
    parts = [f"module {m} {{\n{v.text}\n\n{stamp(suite.text, nonce, m)}\n}}\n" for m, v in zip(modules, versions)]
    source = workdir / "batch.dfy"
    source.write_text("\n".join(parts))
    refs = [TestRef(f"{m}.{t.qualified}", t.name, m, stamp_of(nonce, m)) for m in modules for t in suite.tests]
    executor = make_executor(config.target, tools.dafny or "dafny", tools.dafny_env(), workdir, (str(source),),
                             config.limits, config.stop_on_kill)
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
            if config.stop_on_kill and any(o.status is not Status.PASSED for o in outcomes):
                continue  # skipped: the version is killed already
            outcomes.append(Outcome(t.name, Status.NOT_TESTED, "not run: the test program ended before this test"))
            continue
        status, message = status_of(obs, t.case, config.limits.wall_s)
        outcomes.append(Outcome(t.name, status, message))
        if obs.cpu_s is not None and status is Status.PASSED:
            cpu = max(cpu, obs.cpu_s)
    return VersionRun(tuple(outcomes), None, batched, cpu, seconds)


def _why(output: str, timed_out: bool, config: VersionsConfig) -> str:
    if timed_out:
        return f"the build did not finish within {config.limits.build_s:g} s"
    return output.strip() or "the build failed without a message"

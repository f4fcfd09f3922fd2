"""The paper's protocol for every strategy in one run: classify, then per strategy generate, check
safety on the original, and kill-check the mutants that fail verification. Phases run one after the
other (so each has its own wall time); the work inside a phase runs on --jobs threads, each driving
its own Dafny process. Tests are run by run/ (run_versions): every strategy, ours and Dafny's own
alike, on the same executor, target and limits, read by the same reader and verdict mapper as `run`.
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from dspec2test.bench.classify import Classified, Classifier, Verification, read_recorded
from dspec2test.bench.corpus import Corpus, Label, MutantFile, CorpusProgram
from dspec2test.bench.genworker import GenerationPool
from dspec2test.bench.strategies import Prepared, Strategy, prepare, version_text
from dspec2test.emit.metadata import without_tests
from dspec2test.records import Status
from dspec2test.run.diagnostics import error_lines
from dspec2test.run.stubs import Fault
from dspec2test.run.verdicts import ran_unchecked
from dspec2test.run.verify import source_facts_of_text
from dspec2test.run import RunOptions, Suite, Version, VersionRun, VersionsConfig, run_alone, run_versions
from dspec2test.toolchain import Toolchain


T = TypeVar("T")
R = TypeVar("R")


class MutantStatus(str, Enum):
    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    ERROR = "error"
    UNSUPPORTED = "unsupported"


class MutantClass(str, Enum):
    BUG = "bug"  # fails verification: wrong with respect to the spec
    ALIVE = "alive"  # verifies: the spec does not see the change
    INCOMPETENT = "incompetent"  # does not resolve, or labelled incompetent


@dataclass(frozen=True)
class BenchConfig:
    strategies: tuple[Strategy, ...]
    jobs: int = 1
    timeout_s: float = 10.0  # per test (py driver); for all tests of a `dafny test` run, after its build
    target: str = "py"  # every strategy's tests run on this target
    batch: bool = True
    generate_timeout_s: float = 300.0
    verify_timeout_s: float = 300.0
    cache_dir: Path | None = None
    dafny_version: str = ""
    run_alive: bool = True  # also run our tests on mutants that verify: any failure there is a false alarm
    recorded: bool = True  # take verdicts from the corpus's verify-status.tsv where it has them
    # Kill phase, py driver: a test may use this many times the CPU time of the slowest test on the original,
    # at least the floor and at most timeout_s; timeout_s stays its wall-clock limit. A mutant that loops is
    # then a timeout in half a second, not after timeout_s (most of a run's wall time went to waiting out such
    # loops), and CPU time does not grow with the machine's load, so a working mutant is not mistaken for one.
    kill_time_factor: float = 20.0
    kill_time_floor_s: float = 0.5


@dataclass
class StrategyRun:
    strategy: Strategy
    prepared: dict[str, Prepared] = field(default_factory=dict)
    unsupported: dict[str, str] = field(default_factory=dict)  # program -> reason
    false_alarms: dict[str, list[str]] = field(default_factory=dict)  # program -> failing tests on the original
    # program -> tests failing on the original in a member whose proof assumes (its code may not meet its
    # contract at run time): reported apart, not as false alarms
    assumed: dict[str, list[str]] = field(default_factory=dict)
    # program -> tests of members without a body (nothing to run them on): listed apart
    no_body: dict[str, list[str]] = field(default_factory=dict)
    # program -> tests that reach a member whose code does not build for the target (routed around, not run)
    unbuilt: dict[str, list[str]] = field(default_factory=dict)
    stubs: dict[str, tuple[Fault, ...]] = field(default_factory=dict)  # program -> members the build routed around
    status: dict[str, MutantStatus] = field(default_factory=dict)  # mutant key -> status
    detail: dict[str, str] = field(default_factory=dict)  # mutant key -> first failing test / message
    wall: dict[str, float] = field(default_factory=dict)  # phase -> seconds
    builds: int = 0  # Dafny builds in the kill phase
    subjects_run: int = 0


@dataclass
class BenchRun:
    corpus: Corpus
    config: BenchConfig
    originals: dict[str, Classified]
    classes: dict[str, MutantClass]  # mutant key -> class
    verification: dict[str, Classified]
    runs: list[StrategyRun]
    classify_wall: float
    skipped: dict[str, str] = field(default_factory=dict)  # program -> why it was left out (original fails)
    recorded: int = 0  # verdicts taken from the corpus's verify-status.tsv rather than from dafny verify


def mutant_key(m: MutantFile) -> str:
    return f"{m.program}/{m.name}"


# (strategy, program, workdir, tools, generate timeout, worker pool) -> Prepared; tests pass fixed tests
# files here.
PrepareFn = Callable[[Strategy, CorpusProgram, Path, Toolchain, float, GenerationPool], Prepared]


def run_bench(corpus: Corpus, config: BenchConfig, tools: Toolchain, progress: Callable[[str], None],
              prepare_fn: PrepareFn = prepare) -> BenchRun:
    start = time.monotonic()
    verified, recorded = _classify(corpus, config, tools, progress)
    originals = {p.name: verified[f"program:{p.name}"] for p in corpus.programs}
    classify_wall = time.monotonic() - start
    # As the paper's protocol: a mutant is a bug relative to a spec its original meets. Where the
    # original does not verify, nothing measured on it would mean anything.
    skipped = {name: f"the original does not verify ({got.verification.value})"
               for name, got in originals.items() if got.verification is not Verification.VERIFIED}
    for name, got in originals.items():
        if name in skipped:
            progress(f"skipped: original {name} does not verify ({got.verification.value})"
                     f"{': ' + got.message.splitlines()[0] if got.message else ''}")
    corpus = Corpus(corpus.root, tuple(p for p in corpus.programs if p.name not in skipped),
                    tuple(m for m in corpus.mutants if m.program not in skipped))
    classes = {mutant_key(m): _class(m, verified[mutant_key(m)]) for m in corpus.mutants}
    mutant_verification = {mutant_key(m): verified[mutant_key(m)] for m in corpus.mutants}
    runs: list[StrategyRun] = []
    with tempfile.TemporaryDirectory(prefix="dspec2test-bench-") as tmp:
        for strategy in config.strategies:
            runs.append(_run_strategy(strategy, corpus, classes, config, tools, Path(tmp) / strategy.value,
                                      progress, prepare_fn))
    return BenchRun(corpus, config, originals, classes, mutant_verification, runs, classify_wall, skipped, recorded)


def _classify(corpus: Corpus, config: BenchConfig, tools: Toolchain,
              progress: Callable[[str], None]) -> tuple[dict[str, Classified], int]:
    """name -> verdict of every original (`program:P`) and mutant, and how many came from the corpus's
    verify-status.tsv; the rest are asked of `dafny verify` (cached by content)."""
    recorded = read_recorded(corpus.root) if config.recorded else {}
    items = [(f"program:{p.name}", p.path, p.text) for p in corpus.programs]
    items += [(mutant_key(m), m.path, m.text) for m in corpus.mutants]
    out: dict[str, Classified] = {}
    todo: list[tuple[str, str]] = []
    for name, path, text in items:
        try:
            verdict = recorded.get(path.resolve().relative_to(corpus.root.resolve()).as_posix())
        except ValueError:  # a label file outside the corpus folder
            verdict = None
        if verdict is None:
            todo.append((name, text))
        else:
            out[name] = Classified(verdict, "", 0.0, cached=True)
    if recorded:
        progress(f"classify: {len(out)} verdicts from {corpus.root / 'verify-status.tsv'}, {len(todo)} to verify")
    classifier = Classifier(tools, config.dafny_version, config.cache_dir, config.jobs, config.verify_timeout_s)
    counter = _Counter(len(todo), "classify", progress)
    out.update(classifier.classify(todo, lambda name, got: counter.tick(f"{name}: {got.verification.value}")))
    return out, len(items) - len(todo)


def _class(m: MutantFile, got: Classified) -> MutantClass:
    if m.label is Label.INCOMPETENT or got.verification is Verification.INCOMPETENT:
        return MutantClass.INCOMPETENT
    return MutantClass.BUG if got.verification is Verification.FAILS else MutantClass.ALIVE


def _run_strategy(strategy: Strategy, corpus: Corpus, classes: dict[str, MutantClass], config: BenchConfig,
                  tools: Toolchain, workdir: Path, progress: Callable[[str], None],
                  prepare_fn: PrepareFn) -> StrategyRun:
    out = StrategyRun(strategy)
    programs = {p.name: p for p in corpus.programs}

    # generate
    t0 = time.monotonic()
    counter = _Counter(len(programs), f"{strategy.value} generate", progress)

    def gen(name: str) -> Prepared:
        got = prepare_fn(strategy, programs[name], workdir / "gen" / name, tools, config.generate_timeout_s, pool)
        counter.tick(f"{name}: {got.tests} tests" + (f" (unsupported: {got.reason})" if got.reason else ""))
        return got

    # the longest programs first (size is a rough guess of the work): with the slowest one started last,
    # the other jobs sat idle while it ran
    order = sorted(programs, key=lambda n: -len(programs[n].text))
    with GenerationPool(config.jobs) as pool:
        generated = dict(zip(order, _parallel(gen, order, config.jobs)))
    out.prepared = {name: generated[name] for name in programs}
    out.wall["generate"] = time.monotonic() - t0

    # safety: every test passes on the original
    t0 = time.monotonic()
    for name, prepared in out.prepared.items():
        if prepared.reason:
            out.unsupported[name] = prepared.reason
    candidates = [n for n in programs if n not in out.unsupported]
    counter = _Counter(len(candidates), f"{strategy.value} safety", progress)

    def safe(name: str) -> VersionRun:
        version = Version(name, version_text(strategy, programs[name].text, out.prepared[name], str(programs[name].path)))
        got = run_alone(version, out.prepared[name].suite, _config(config), tools, workdir / "safety" / name)
        counter.tick(f"{name}: " + _safety_word(got))
        return got

    kill_limit: dict[str, float] = {}
    for name, original in zip(candidates, _parallel(safe, candidates, config.jobs)):
        kill_limit[name] = kill_time_limit(config, original.slowest_test_cpu_s)
        out.stubs[name] = original.stubbed
        if original.build_error:
            out.unsupported[name] = "tests do not build with the original: " + _first_line(original.build_error)
        elif not original.outcomes:
            out.unsupported[name] = "no test ran on the original"
        else:
            _sort_out_failures(out, name, programs[name], original)
    out.wall["safety"] = time.monotonic() - t0

    # kill check
    t0 = time.monotonic()
    wanted = {MutantClass.BUG} | ({MutantClass.ALIVE} if config.run_alive and strategy.ours else set())
    per_program: dict[str, list[MutantFile]] = {}
    for m in corpus.mutants:
        key = mutant_key(m)
        if classes[key] is not MutantClass.BUG and classes[key] not in wanted:
            continue
        if m.program in out.unsupported:
            if classes[key] is MutantClass.BUG:
                out.status[key] = MutantStatus.UNSUPPORTED
            continue
        if classes[key] in wanted:
            per_program.setdefault(m.program, []).append(m)
    total = sum(len(v) for v in per_program.values())
    counter = _Counter(total, f"{strategy.value} kill", progress)
    def kill_program(name: str) -> tuple[dict[str, VersionRun], int]:
        versions = [Version(mutant_key(m), version_text(strategy, m.text, out.prepared[name], str(m.path)))
                    for m in per_program[name]]
        got, builds = run_versions(versions, out.prepared[name].suite,
                                   _config(config, kill_limit[name], True, out.stubs.get(name, ())), tools,
                                   workdir / "kill" / name)
        for v in versions:
            counter.tick(f"{v.key}: {_status(got[v.key])[0].value}")
        return got, builds

    for runs, builds in _parallel(kill_program, sorted(per_program), config.jobs):
        out.builds += builds
        for key, run in runs.items():
            out.status[key], out.detail[key] = _status(run)
    out.subjects_run = total
    out.wall["kill"] = time.monotonic() - t0
    return out


def _sort_out_failures(out: StrategyRun, name: str, program: CorpusProgram, got: VersionRun) -> None:
    """Anything but passed on an original is a false alarm of ours, unless the test's member has no body,
    proves its contract with `assume`, or reaches a member whose code does not build (then it is listed
    apart). Either way the test is left out of the kill phase, as mutation analysis keeps only tests that
    pass on the original; a program left with no test is unsupported."""
    # a test with no clause to check at run time is not a pass to a user, and no false alarm either: it
    # still kills a version it makes crash or hang
    failing = [r for r in got.outcomes if r.status is not Status.PASSED and not ran_unchecked(r.status, r.message)]
    if not failing:
        return
    suite = out.prepared[name].suite
    methods = {t.name: t.case.method for t in suite.tests if t.case is not None}
    assumes = source_facts_of_text(program.text).assumes
    for r in failing:
        line = f"{r.name}: {r.status.value} {r.message}".strip()
        if r.status is Status.NO_IMPLEMENTATION:
            out.no_body.setdefault(name, []).append(line)
        elif r.unbuilt:
            out.unbuilt.setdefault(name, []).append(line)
        elif methods.get(r.name) in assumes:
            out.assumed.setdefault(name, []).append(line)
        else:
            out.false_alarms.setdefault(name, []).append(line)
    dropped = {r.name for r in failing}
    kept = tuple(t for t in suite.tests if t.name not in dropped)
    if not kept:
        out.unsupported[name] = f"all {len(failing)} tests fail on the original: {_first_line(failing[0].message)}"
        return
    # the failing tests' text goes too: one that does not build would stop every mutant's build
    out.prepared[name] = replace(out.prepared[name], suite=Suite(without_tests(suite.text, dropped), kept))


def _status(run: VersionRun) -> tuple[MutantStatus, str]:
    """A kill is a test that failed, crashed or timed out (the product's own statuses)."""
    if run.build_error:
        return MutantStatus.ERROR, "build: " + _first_line(run.build_error)
    if not run.outcomes:
        return MutantStatus.ERROR, "no test ran"
    for status, verdict in ((Status.FAILED, MutantStatus.KILLED), (Status.CRASHED, MutantStatus.KILLED),
                            (Status.TIMEOUT, MutantStatus.TIMEOUT), (Status.BAD_INPUT, MutantStatus.ERROR),
                            (Status.NO_IMPLEMENTATION, MutantStatus.ERROR), (Status.NOT_TESTED, MutantStatus.ERROR)):
        hit = next((r for r in run.outcomes if r.status is status and not ran_unchecked(r.status, r.message)), None)
        if hit:
            return verdict, f"{hit.name}: {hit.message}".strip()
    return MutantStatus.SURVIVED, ""


def _safety_word(run: VersionRun) -> str:
    if run.build_error:
        return "build error"
    passed = sum(r.status is Status.PASSED or ran_unchecked(r.status, r.message) for r in run.outcomes)
    return f"{passed}/{len(run.outcomes)} pass"


def _first_line(text: str) -> str:
    errors = [line for line in error_lines(text) if "did not attempt verification" not in line]
    lines = [line.strip() for line in text.splitlines() if line.strip() and "did not attempt verification" not in line]
    return (errors or lines or [""])[0][:300]


def kill_time_limit(config: BenchConfig, slowest_on_original_cpu_s: float) -> float:
    """The per-test CPU-time limit of the kill phase, from the slowest test on the original (0: not
    measured, then only the wall-clock limit applies)."""
    if slowest_on_original_cpu_s <= 0:
        return config.timeout_s
    return min(config.timeout_s, max(config.kill_time_floor_s, config.kill_time_factor * slowest_on_original_cpu_s))


def _config(config: BenchConfig, cpu_limit_s: float = 0.0, stop_on_kill: bool = False,
            stubs: tuple[Fault, ...] = ()) -> VersionsConfig:
    """How every strategy's tests run: the same target and limits for all (a CPU limit in the kill
    phase, on the py driver); `stubs`: the members at fault the original needed routed around."""
    return VersionsConfig(RunOptions(config.target, config.timeout_s, cpu_limit_s), stop_on_kill, config.batch, stubs)


def _parallel(fn: Callable[[T], R], items: Iterable[T], jobs: int) -> list[R]:
    items = list(items)
    if jobs <= 1 or len(items) <= 1:
        return [fn(i) for i in items]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, items))


class _Counter:
    """`[phase] k/n item` progress lines."""

    def __init__(self, total: int, phase: str, progress: Callable[[str], None]):
        self.total, self.phase, self.progress, self.done = total, phase, progress, 0

    def tick(self, what: str) -> None:
        self.done += 1  # called from worker threads: a lost increment only blurs the progress display
        self.progress(f"[{self.phase} {self.done}/{self.total}] {what}")

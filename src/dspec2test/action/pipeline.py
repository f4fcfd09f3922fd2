"""The seam between choosing members and testing them: (targets, options) -> verdicts.

The action and `check` take a Pipeline so that everything around testing (diff, reporting, gate)
is exercised with fake verdicts in tests; `real_pipeline` wires generate and run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from dspec2test.action.config import Settings
from dspec2test.errors import Diagnostic
from dspec2test.gencache import hits_line
from dspec2test.generate import GenerateOptions
from dspec2test.options import jobs_for, option
from dspec2test.pipeline import TestingProgress
from dspec2test.records import Verdict
from dspec2test.strength.engine import StrengthOptions
from dspec2test.strength.records import MemberStrength
from dspec2test.toolchain import DEFAULT_TARGET


@dataclass(frozen=True)
class Target:
    """One program file and the members of it to test (qualified names)."""

    file: str  # relative to the repository root
    methods: tuple[str, ...]


@dataclass(frozen=True)
class PipelineOptions:
    root: Path
    generate: GenerateOptions = field(default_factory=GenerateOptions)
    timeout: float = 60.0  # wall-clock limit per `dafny test`
    target: str = DEFAULT_TARGET
    progress: TestingProgress | None = field(default=None, compare=False)  # generation and runs, as they go
    strength: StrengthOptions | None = None  # contract strength of the tested members (None: off)
    # (file, member) whose strength is measured: those whose own text changed (None: every tested member)
    strength_members: frozenset[tuple[str, str]] | None = None


@dataclass(frozen=True)
class PipelineResult:
    verdicts: tuple[Verdict, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    report: str = ""  # the terminal report of `run` for each program, when the pipeline has one
    generation_s: float = 0.0  # wall time spent generating tests
    execution_s: float = 0.0  # wall time spent building and running them
    cached: tuple[str, ...] = ()  # members whose tests came from the cache (generation skipped)
    looked_up: int = 0  # members looked up in the cache (0: no cache)

    @property
    def cache_line(self) -> str:
        """What the cache saved, for the terminal and the job summary ("" without a cache)."""
        return hits_line(self.cached, self.looked_up)
    coverage: tuple[dict, ...] = ()  # clause coverage per tested member (report/coverage.py)
    strength: tuple[MemberStrength, ...] = ()  # contract strength per member, when asked for


Pipeline = Callable[[Sequence[Target], PipelineOptions], PipelineResult]


def pipeline_options(settings: Settings, root: Path, progress: TestingProgress | None = None) -> PipelineOptions:
    return PipelineOptions(
        progress=progress,
        root=root,
        generate=GenerateOptions(
            fdnf=settings.fdnf, bva=settings.bva, simplify=settings.simplify, repeat=settings.repeat,
            search=settings.search,
            max_partitions=settings.max_partitions, length_limit=settings.length_limit,
            timeout_s=settings.solver_timeout, member_timeout_s=settings.member_timeout,
            jobs=jobs_for(settings.jobs),
            cache_dir=str(root / settings.cache_dir) if settings.cache_dir else None,
        ),
        timeout=settings.timeout,
        target=settings.target,
        strength=StrengthOptions(budget_s=settings.strength_budget) if settings.strength else None,
    )


def run_pipeline(pipeline: Pipeline, targets: Sequence[Target], options: PipelineOptions) -> PipelineResult:
    """The pipeline's result; an exception in it is our internal error, reported for every target (its
    members then show as not-tested with this reason), never a traceback and never silence."""
    if not targets:
        return PipelineResult()
    try:
        return pipeline(targets, options)
    except Exception as exc:  # noqa: BLE001 - our own failure must reach the reports, not crash the run
        reason = f"internal error: {type(exc).__name__}: {exc}"[:500]
        return PipelineResult(diagnostics=tuple(Diagnostic(t.file, 0, 0, reason) for t in targets))


def generation_flags(options: PipelineOptions) -> list[str]:
    """The CLI flags that reproduce these options (for the "run it locally" hint)."""
    gen = options.generate
    flags = []
    if gen.bva is not None:
        flags += ["--bva"] if gen.bva == 100 else ["--bva", str(gen.bva)]
    if gen.fdnf:
        flags.append("--fdnf")
    if not gen.simplify:
        flags.append("--no-simplify")
    if not gen.search:
        flags.append("--no-search")
    if gen.repeat != 1 and gen.bva is None:
        flags += ["--repeat", str(gen.repeat)]
    for name, value in (("length_limit", gen.length_limit), ("max_partitions", gen.max_partitions)):
        if value != option(name).default:
            flags += [option(name).cli_flag, str(value)]
    if options.target != DEFAULT_TARGET:
        flags += ["--target", options.target]
    return flags


def reproduce_command(file: str, method: str, options: PipelineOptions) -> str:
    return " ".join(["dspec2test", "run", _quote(file), "--method", _quote(method), *generation_flags(options)])


def _quote(text: str) -> str:
    return text if all(ch.isalnum() or ch in "._/-:+" for ch in text) else "'" + text.replace("'", "'\\''") + "'"

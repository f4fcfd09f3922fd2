"""Run one tests file against many versions of a program: batched (one module per version) or alone.

Batched: one combined program, `module BenchSubjectNNN { <version text> <tests text> }` per version, so
each copy of the tests resolves the names it calls (unqualified, or qualified by a module of the
program) inside its own version. Built and run once; `BenchSubjectNNN.<test>` maps back. When the
combined program does not build (an `include`, a name Dafny will not nest, a version whose changed
signature the tests do not fit), every version runs alone instead, so the verdicts stay those of
one-at-a-time runs. Alone: the version text followed by the tests text, which is what
`dafny test prog.dfy tests.dfy` compiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from dspec2test.bench.dafnytest import TIMED_OUT
from dspec2test.bench.results import SUBJECT_MODULE, RunResult, TestResult, subject_of

# (source text, work directory) -> RunResult: the py driver or `dafny test` with some target.
Executor = Callable[[str, Path], RunResult]


@dataclass(frozen=True)
class Subject:
    key: str  # the mutant's name (or the program's, for the original)
    text: str


@dataclass(frozen=True)
class SubjectRun:
    """The verdicts of the tests on one version; names without the wrapping module."""

    results: tuple[TestResult, ...]
    build_error: str | None = None
    batched: bool = False
    slowest_test_cpu_s: float = 0.0


def alone_source(text: str, tests_text: str) -> str:
    return f"{text}\n\n{tests_text}\n"


def batched_source(subjects: list[Subject], tests_text: str) -> str:
    parts = [f"module {SUBJECT_MODULE}{i:03d} {{\n{s.text}\n\n{tests_text}\n}}\n" for i, s in enumerate(subjects)]
    return "\n".join(parts)


def run_alone(subject: Subject, tests_text: str, workdir: Path, execute: Executor) -> SubjectRun:
    got = execute(alone_source(subject.text, tests_text), workdir)
    return SubjectRun(got.results, got.build_error, slowest_test_cpu_s=got.slowest_test_cpu_s)


def run_batched(subjects: list[Subject], tests_text: str, workdir: Path, execute: Executor,
                batch: bool = True) -> tuple[dict[str, SubjectRun], int]:
    """key -> SubjectRun, and the number of Dafny builds it took."""
    if batch and len(subjects) > 1:
        got = execute(batched_source(subjects, tests_text), workdir / "batch")
        # A `dafny test` run killed on its wall-clock limit says nothing per test: redo those alone.
        if got.build_error is None and all(r.name != TIMED_OUT for r in got.results):
            return _split(subjects, got), 1
    out: dict[str, SubjectRun] = {}
    for i, subject in enumerate(subjects):
        out[subject.key] = run_alone(subject, tests_text, workdir / f"alone{i:03d}", execute)
    return out, len(subjects)


def _split(subjects: list[Subject], got: RunResult) -> dict[str, SubjectRun]:
    per: dict[int, list[TestResult]] = {i: [] for i in range(len(subjects))}
    for result in got.results:
        head = subject_of(result.name)
        if head:
            index, rest = int(head[len(SUBJECT_MODULE):]), result.name[len(head) + 1:]
            if index in per:
                per[index].append(TestResult(rest, result.status, result.message))
    return {s.key: SubjectRun(tuple(per[i]), None, batched=True) for i, s in enumerate(subjects)}

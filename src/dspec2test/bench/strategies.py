"""The strategies a benchmark compares, and how each turns an original program into a tests file."""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from dspec2test import generate as generation
from dspec2test.bench.corpus import Program
from dspec2test.bench.dtest import generate_block, wrap
from dspec2test.errors import DspecError, Severity
from dspec2test.generate import GenerateOptions
from dspec2test.toolchain import Toolchain


class Strategy(str, Enum):
    SPEC = "spec"  # Safe DNF
    SPEC_BVA = "spec-bva"  # Safe DNF with boundary values
    FDNF = "fdnf"  # Full DNF
    DTEST_BLOCK = "dtest-block"  # Dafny's own generate-tests Block (the baseline)

    @property
    def ours(self) -> bool:
        return self is not Strategy.DTEST_BLOCK


OPTIONS = {
    Strategy.SPEC: GenerateOptions(),
    Strategy.SPEC_BVA: GenerateOptions(bva=100),
    Strategy.FDNF: GenerateOptions(fdnf=True),
}


@dataclass(frozen=True)
class Prepared:
    """The tests one strategy generated from one original program, or why it generated none."""

    program: str
    tests_text: str
    tests: int
    reason: str | None  # set when the program is unsupported by this strategy
    seconds: float
    note: str = ""


def version_text(strategy: Strategy, text: str) -> str:
    """A program version as the strategy's tests expect it (dtest-block's import a wrapping module)."""
    return wrap(text) if strategy is Strategy.DTEST_BLOCK else text


def prepare(strategy: Strategy, program: Program, workdir: Path, tools: Toolchain, timeout_s: float) -> Prepared:
    if strategy is Strategy.DTEST_BLOCK:
        got = generate_block(program.name, program.text, workdir, tools, timeout_s)
        return Prepared(program.name, got.tests_text, got.tests, got.error, got.seconds, got.note)
    return _prepare_ours(strategy, program)


def _prepare_ours(strategy: Strategy, program: Program) -> Prepared:
    start = time.monotonic()
    generate = getattr(generation, "generate", None)
    if generate is None:
        return Prepared(program.name, "", 0, "dspec2test.generate.generate is not available", 0.0)
    try:
        got = generate(str(program.path), OPTIONS[strategy])
    except DspecError as exc:
        return Prepared(program.name, "", 0, f"{exc.line}:{exc.col}: {exc.message}", time.monotonic() - start)
    except Exception as exc:  # one program's internal error must not stop the benchmark; it is reported
        return Prepared(program.name, "", 0, f"internal error: {type(exc).__name__}: {exc}", time.monotonic() - start)
    seconds = time.monotonic() - start
    if not got.cases:
        problems = [d.render() for d in got.diagnostics if d.severity is not Severity.WARNING]
        return Prepared(program.name, "", 0, "no tests generated" + (": " + problems[0] if problems else ""), seconds)
    unsupported = [d for d in got.diagnostics if d.severity is Severity.UNSUPPORTED]
    note = f"{len(unsupported)} unsupported constructs" if unsupported else ""
    return Prepared(program.name, got.tests_text, len(got.cases), None, seconds, note)

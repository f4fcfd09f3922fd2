"""The strategies a benchmark compares, and how each turns an original program into a tests file."""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from dspec2test.bench.corpus import CorpusProgram
from dspec2test.bench.dtest import generate_block, wrap
from dspec2test.bench.genworker import GenerationPool
from dspec2test.errors import DspecError
from dspec2test.generate import GenerateOptions
from dspec2test.run.foreign import foreign_suite
from dspec2test.run.versions import Suite, our_suite
from dspec2test.testbuild import TestBuild, lifted_text
from dspec2test.toolchain import Toolchain


class Strategy(str, Enum):
    SPEC = "spec"  # Safe DNF
    SPEC_BVA = "spec-bva"  # Safe DNF with boundary values
    SPEC_SOLVER = "spec-solver"  # Safe DNF with the solver's inputs only (no search): the default before it
    FDNF = "fdnf"  # Full DNF
    DTEST_BLOCK = "dtest-block"  # Dafny's own generate-tests Block (the baseline)

    @property
    def ours(self) -> bool:
        return self is not Strategy.DTEST_BLOCK


# A mutant is a bug where `dafny verify` rejects it; one that breaks a lemma Dafny takes on trust verifies,
# so its kill by that lemma's test would count as a false alarm though the lemma is then false: the
# benchmark leaves such lemmas out, to measure only what its labels can judge.
OPTIONS = {
    Strategy.SPEC: GenerateOptions(trusted_lemmas=False),
    Strategy.SPEC_BVA: GenerateOptions(bva=100, trusted_lemmas=False),
    Strategy.SPEC_SOLVER: GenerateOptions(search=False, trusted_lemmas=False),
    Strategy.FDNF: GenerateOptions(fdnf=True, trusted_lemmas=False),
}


@dataclass(frozen=True)
class Prepared:
    """The tests one strategy generated from one original program, or why it generated none."""

    program: str
    tests_text: str
    tests: int
    reason: str | None  # set when the program is unsupported by this strategy
    seconds: float  # generation only (running is measured apart)
    note: str = ""
    suite: Suite = Suite("", ())  # what runs: our tests, or wrappers around Dafny's own
    build: TestBuild = TestBuild()  # what our tests compile against: every version is lifted as the original is


def version_text(strategy: Strategy, text: str, prepared: Prepared | None = None, path: str = "") -> str:
    """A program version as the strategy's tests expect it (dtest-block's import a wrapping module; ours
    read the ghost state the original's test build compiles, so the version's is compiled too)."""
    if strategy is Strategy.DTEST_BLOCK:
        return wrap(text)
    return lifted_text(text, path, prepared.build) if prepared is not None else text


def prepare(strategy: Strategy, program: CorpusProgram, workdir: Path, tools: Toolchain, timeout_s: float,
            pool: GenerationPool | None = None) -> Prepared:
    """`pool`: the workers our strategies generate in (without one, a worker of its own for this call)."""
    if strategy is Strategy.DTEST_BLOCK:
        got = generate_block(program.name, program.text, workdir, tools, timeout_s)
        if got.error:
            return Prepared(program.name, got.tests_text, got.tests, got.error, got.seconds, got.note)
        try:
            suite = foreign_suite(got.tests_text, f"{program.name}_tests.dfy")
        except DspecError as exc:
            return Prepared(program.name, got.tests_text, got.tests, f"cannot read the names of Dafny's tests: "
                            f"{exc.line}:{exc.col}: {exc.message}", got.seconds, got.note)
        return Prepared(program.name, got.tests_text, got.tests, None, got.seconds, got.note, suite)
    if pool is None:
        with GenerationPool(1) as own:
            return _prepare_ours(strategy, program, own, timeout_s)
    return _prepare_ours(strategy, program, pool, timeout_s)


def _prepare_ours(strategy: Strategy, program: CorpusProgram, pool: GenerationPool, timeout_s: float) -> Prepared:
    start = time.monotonic()
    try:
        data = pool.run(str(program.path), OPTIONS[strategy], timeout_s)
    except TimeoutError:
        return Prepared(program.name, "", 0, f"generation exceeded {timeout_s:g} s", time.monotonic() - start)
    seconds = time.monotonic() - start
    if "crash" in data:  # the worker itself died (generate() keeps Z3 in forked children)
        return Prepared(program.name, "", 0, f"generation crashed: {data['crash']}"[:300], seconds)
    if "error" in data:
        return Prepared(program.name, "", 0, data["error"], seconds)
    if not data["tests"]:
        problems = data["problems"]
        return Prepared(program.name, "", 0, "no tests generated" + (": " + problems[0] if problems else ""), seconds)
    note = f"{data['unsupported']} unsupported constructs" if data["unsupported"] else ""
    return Prepared(program.name, data["tests_text"], data["tests"], None, seconds, note, our_suite(data["tests_text"]),
                    data.get("build", TestBuild()))

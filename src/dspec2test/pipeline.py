"""Front door of testing a program: generate its tests (generate.py), run them (run/), and give every
selected member that got no test a `not-tested` verdict with the reason. `run`, `check` and the action
all test through here, in process, and get typed results.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from dspec2test.errors import Diagnostic, Severity
from dspec2test.generate import GenerateOptions, Generated, GenerationProgress, generate, search_cache, writable
from dspec2test.generation.manifest import manifest_of
from dspec2test.generation.shrinking import shrunk_tests
from dspec2test.records import MEMBER, Limitation, MemberResult, ScenarioStatus, Status, TestCase, Verdict
from dspec2test.run import RunOptions, RunResult, run_tests
from dspec2test.run.runner import Progress


class TestingProgress(Progress, GenerationProgress, Protocol):
    """Hears of generation (member by member) and of the runs (report/terminal.py shows both)."""


@dataclass(frozen=True)
class TestedProgram:
    result: RunResult  # the run's verdicts, then one not-tested verdict per selected member without a test
    diagnostics: tuple[Diagnostic, ...]  # generation's: parse errors, unsupported constructs, warnings
    cached: tuple[str, ...] = ()  # members whose tests came from the cache (generation skipped)
    looked_up: int = 0  # members looked up in the cache (0: no cache)
    generation_s: float = 0.0  # wall time of generation (the run's own is result.wall_s)
    members: tuple[MemberResult, ...] = ()  # generation's results, member by member
    cases: tuple[TestCase, ...] = ()  # the tests generated (contract strength runs mutants on their inputs)

    @property
    def manifest(self) -> dict:
        """Generation's manifest (clause coverage reads it)."""
        return manifest_of(self.members)

    @property
    def parse_error(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics) and not self.result.verdicts


def run_program(path: str, generate_options: GenerateOptions, run_options: RunOptions,
                 progress: TestingProgress | None = None, files: frozenset[str] | None = None) -> TestedProgram:
    """`files`: the files of the program whose members are tested (None: the file `path` itself)."""
    with tempfile.TemporaryDirectory(prefix="dspec2test-search-") as scratch:
        # the search's build, for shrinking too: kept by program version where it can be
        folder = writable(search_cache(generate_options.cache_dir)) or Path(scratch)
        return _run_program(path, generate_options, run_options, progress, files, folder)


def _run_program(path: str, generate_options: GenerateOptions, run_options: RunOptions,
                 progress: TestingProgress | None, files: frozenset[str] | None, folder: Path) -> TestedProgram:
    start = time.monotonic()
    generated = generate(path, replace(generate_options, target=run_options.target), files=files, progress=progress,
                         search_folder=folder)
    generation_s = time.monotonic() - start
    missing = untested(generated)
    cases = generated.cases
    if generated.cases:
        result = run_tests(path, generated.tests_text, list(generated.cases), run_options, progress,
                           inputs=generated.inputs, files=generated.files, build=generated.build)
        if generate_options.search and any(v.status in (Status.FAILED, Status.CRASHED) for v in result.verdicts):
            result, cases = _with_shrunk(path, generated, result, generate_options, run_options, progress)
        result = replace(result, verdicts=result.verdicts + missing)
    else:
        result = RunResult(path, missing)
    return TestedProgram(result, generated.diagnostics, generated.cached, generated.looked_up, generation_s,
                         generated.members, cases)


def _with_shrunk(path: str, generated: Generated, result: RunResult, generate_options: GenerateOptions,
                 run_options: RunOptions, progress: TestingProgress | None) -> tuple[RunResult, tuple[TestCase, ...]]:
    """The run with a test of each finding's failing input shrunk (generation/shrinking.py), run like the
    others: the reports put the smallest failing input first."""
    shrunk = shrunk_tests(path, generated.members, generated.cases, result.verdicts, generate_options,
                          generated.searched, generated.build) if generated.searched is not None else None
    if shrunk is None:
        return result, generated.cases
    more = run_tests(path, shrunk.tests_text, list(shrunk.cases), run_options, progress, inputs=generated.inputs,
                     files=generated.files, build=generated.build)
    merged = replace(result, verdicts=result.verdicts + more.verdicts, rounds=result.rounds + more.rounds,
                     wall_s=result.wall_s + more.wall_s, ran=result.ran | more.ran,
                     outputs={**result.outputs, **more.outputs})
    return merged, generated.cases + shrunk.cases


def untested(generated: Generated) -> tuple[Verdict, ...]:
    """A not-tested verdict for each member generation selected that got no test, saying why: our
    failure to test a member is never silent."""
    out = []
    for m in generated.members:
        if any(s.test for s in m.scenarios):
            continue
        out.append(Verdict("", m.name, MEMBER, 0, Status.NOT_TESTED, message=_why(m),
                           file=m.file or generated.program, member_line=m.line))
    return tuple(out)


def _why(m: MemberResult) -> str:
    if m.blocked:
        return f"{m.blocked} (line {m.line})"
    if m.unsupported:
        return "; ".join(dict.fromkeys(_unsupported(u, m.name) for u in m.unsupported[:3]))
    if m.stopped:
        return f"generation stopped: {m.stopped}"
    statuses = [s.status for s in m.scenarios]
    if not m.partitions:
        return "no partition of the contract is satisfiable"
    if statuses and all(s is ScenarioStatus.UNSAT for s in statuses):
        return "the solver found every scenario unsatisfiable"
    return "the solver found no input for any scenario (unknown or out of time)"


def _unsupported(u: Limitation, member: str) -> str:
    """`unsupported: <construct> (<where>)`, and what the message adds to it: messages often restate the
    construct after the member's name, which the verdict names already."""
    said = u.message
    for name in (member, member.rsplit(".", 1)[-1]):
        said = said.removeprefix(f"{name}: ")
    construct = u.construct or said
    where = f"{u.file}:{u.line}" if u.file else f"line {u.line}"
    # what the message adds: without the construct at its start or end (`X: ...`, `cannot build this: X`)
    said = said.removeprefix(construct).removesuffix(construct).strip(": ")
    extra = "" if said in ("", "is not supported") else f": {said}"
    return f"unsupported: {construct} ({where}){extra}"

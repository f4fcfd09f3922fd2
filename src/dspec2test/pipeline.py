"""Front door of testing a program: generate its tests (generate.py), run them (run/), and give every
selected member that got no test a `not-tested` verdict with the reason. `run`, `check` and the action
all test through here, in process, and get typed results.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Protocol

from dspec2test.errors import Diagnostic, Severity
from dspec2test.generate import GenerateOptions, Generated, GenerationProgress, generate
from dspec2test.records import MEMBER, Status, TestCase, Verdict
from dspec2test.run import RunOptions, RunResult, run_tests
from dspec2test.run.runner import Progress


class TestingProgress(Progress, GenerationProgress, Protocol):
    """Hears of generation (member by member) and of the runs (report/terminal.py shows both)."""


@dataclass(frozen=True)
class Tested:
    result: RunResult  # the run's verdicts, then one not-tested verdict per selected member without a test
    diagnostics: tuple[Diagnostic, ...]  # generation's: parse errors, unsupported constructs, warnings
    cached: tuple[str, ...] = ()  # members whose tests came from the cache (generation skipped)
    looked_up: int = 0  # members looked up in the cache (0: no cache)
    generation_s: float = 0.0  # wall time of generation (the run's own is result.wall_s)
    manifest: dict = field(default_factory=lambda: {"methods": []})  # generation's (clause coverage reads it)
    cases: tuple[TestCase, ...] = ()  # the tests generated (contract strength runs mutants on their inputs)

    @property
    def parse_error(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics) and not self.result.verdicts


def run_program(path: str, generate_options: GenerateOptions, run_options: RunOptions,
                 progress: TestingProgress | None = None, files: frozenset[str] | None = None) -> Tested:
    """`files`: the files of the program whose members are tested (None: the file `path` itself)."""
    start = time.monotonic()
    generated = generate(path, replace(generate_options, target=run_options.target), files=files, progress=progress)
    generation_s = time.monotonic() - start
    missing = untested(generated)
    if generated.cases:
        result = run_tests(path, generated.tests_text, list(generated.cases), run_options, progress,
                           inputs=generated.inputs, files=generated.files)
        result = replace(result, verdicts=result.verdicts + missing)
    else:
        result = RunResult(path, missing)
    return Tested(result, generated.diagnostics, generated.cached, generated.looked_up, generation_s,
                  generated.manifest, generated.cases)


def untested(generated: Generated) -> tuple[Verdict, ...]:
    """A not-tested verdict for each member generation selected that got no test, saying why: our
    failure to test a member is never silent."""
    out = []
    for entry in generated.manifest.get("methods", []):
        has_test = any(s.get("test") for p in entry.get("partitions", []) for s in p.get("scenarios", []))
        if has_test:
            continue
        out.append(Verdict("", entry["name"], MEMBER, 0, Status.NOT_TESTED, message=_why(entry),
                           file=entry.get("file") or generated.program, member_line=int(entry.get("line") or 0)))
    return tuple(out)


def _why(entry: dict) -> str:
    unsupported = entry.get("unsupported") or []
    if entry.get("blocked"):
        return f"{entry['blocked']} (line {entry.get('line')})"
    if unsupported:
        return "; ".join(f"unsupported: {u['construct']} (line {u['line']}): {u['message']}" for u in unsupported[:3])
    if entry.get("stopped"):
        return f"generation stopped: {entry['stopped']}"
    statuses = [s.get("status") for p in entry.get("partitions", []) for s in p.get("scenarios", [])]
    if not entry.get("partitions"):
        return "no partition of the contract is satisfiable"
    if statuses and all(s == "unsat" for s in statuses):
        return "the solver found every scenario unsatisfiable"
    return "the solver found no input for any scenario (unknown or out of time)"

"""Verdicts grouped into what reports talk about: one Finding per failing partition of a member."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from dspec2test.records import Status, Verdict


@dataclass(frozen=True)
class Finding:
    file: str  # relative to the repository root
    method: str
    partition: int
    verdicts: tuple[Verdict, ...]  # the ones that did not pass, worst status first
    passed: int  # scenarios of this partition that passed

    @property
    def key(self) -> str:
        return partition_key(self.file, self.method, self.partition)

    @property
    def first(self) -> Verdict:
        return self.verdicts[0]

    @property
    def line(self) -> int:
        """Where the failure is best shown: the broken clause, else the member."""
        return self.first.clause_line or self.first.member_line or 1

    @property
    def status(self) -> Status:
        return self.first.status


def partition_key(file: str, method: str, partition: int) -> str:
    return f"{file}::{method}::p{partition}"


def relative(path: str, root: Path) -> str:
    if not path:
        return path
    p = Path(path)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return p.as_posix()
    return p.as_posix().removeprefix("./")


def group(verdicts: Iterable[Verdict]) -> tuple[list[Finding], set[str]]:
    """Failing partitions (ordered by file, member, partition) and the keys of every partition tested."""
    buckets: dict[tuple[str, str, int], list[Verdict]] = {}
    for v in verdicts:
        buckets.setdefault((v.file, v.method, v.partition), []).append(v)
    findings, tested = [], set()
    for (file, method, partition), vs in sorted(buckets.items()):
        tested.add(partition_key(file, method, partition))
        # worst first, so the headline is the worst scenario: a bad input in one never hides a failure in another
        failing = tuple(sorted((v for v in vs if v.status is not Status.PASSED), key=lambda v: (v.status.rank, v.scenario)))
        if failing:
            findings.append(Finding(file, method, partition, failing, len(vs) - len(failing)))
    return findings, tested


@dataclass(frozen=True)
class Totals:
    tests: int
    passed: int
    failed: int  # everything not passed: failed, timeout, error
    methods: int

    @classmethod
    def of(cls, verdicts: Iterable[Verdict]) -> "Totals":
        vs = list(verdicts)
        passed = sum(v.status is Status.PASSED for v in vs)
        return cls(len(vs), passed, len(vs) - passed, len({(v.file, v.method) for v in vs}))


def verb(f: Finding) -> str:
    return {Status.FAILED: "fails", Status.CRASHED: "crashes", Status.TIMEOUT: "times out",
            Status.BAD_INPUT: "got a bad generated input (dspec2test's bug)",
            Status.NO_IMPLEMENTATION: "has no implementation yet", Status.NOT_TESTED: "was not tested"}[f.status]


def headline(f: Finding) -> str:
    label = f.first.label or f"partition {f.partition}"
    return f"{f.method}: partition {f.partition} ({label}) {verb(f)}"


def facts(f: Finding) -> list[tuple[str, str]]:
    """(name, value) pairs that explain a failing partition, in the order a reader wants them."""
    v = f.first
    out: list[tuple[str, str]] = []
    if v.inputs:
        out.append(("inputs", ", ".join(f"{k} = {val}" for k, val in v.inputs.items())))
    if v.expected:
        out.append(("expected", v.expected))
    if v.actual:
        out.append(("actual", v.actual))
    if v.clause:
        out.append(("clause", v.clause))
    if v.clause_line:
        out.append(("clause line", f"{v.file}:{v.clause_line}" if v.file else str(v.clause_line)))
    if v.message and not v.clause:  # the clause already says what the oracle message says
        out.append(("message", v.message))
    if v.assumes:
        out.append(("assumes", f"line{'s' * (len(v.assumes) > 1)} {', '.join(map(str, v.assumes))} of "
                               f"{v.method}: its proof takes that on trust"))
    out.append(("test", f"{v.test} ({v.status.value})"))
    if len(f.verdicts) > 1:
        others = ", ".join(str(x.scenario) for x in f.verdicts[1:])
        out.append(("also failing", f"scenario{'s' if len(f.verdicts) > 2 else ''} {others} of this partition"))
    return out

"""Verdicts grouped into what every report talks about: one Finding per partition that did not wholly
pass, and the Totals by status.

The action's terminal lines, the results JSON, SARIF, the job summary, review comments, check runs
and annotations all read these, so a status is named the same everywhere (records.Status). Partition 0
stands for a member as a whole: one that got no test at all (not-tested, with the reason).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from dspec2test.records import MEMBER, Status, Verdict


@dataclass(frozen=True)
class Finding:
    file: str  # relative to the repository root
    method: str
    partition: int  # MEMBER for a member that got no test
    verdicts: tuple[Verdict, ...]  # every scenario of the partition, worst status first

    @property
    def key(self) -> str:
        return partition_key(self.file, self.method, self.partition)

    @property
    def first(self) -> Verdict:
        """The worst scenario: the partition's headline."""
        return self.verdicts[0]

    @property
    def status(self) -> Status:
        return self.first.status

    @property
    def failing(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.status is not Status.PASSED)

    @property
    def passed(self) -> int:
        return len(self.verdicts) - len(self.failing)

    @property
    def line(self) -> int:
        """Where the failure is best shown: the broken clause, else the member."""
        return self.first.clause_line or self.first.member_line or 1


def partition_key(file: str, method: str, partition: int) -> str:
    return f"{file}::{method}::p{partition}"


def group(verdicts: Iterable[Verdict]) -> tuple[list[Finding], set[str]]:
    """Partitions with a scenario that did not pass (ordered by file, member, partition), and the keys
    of every partition tested."""
    buckets: dict[tuple[str, str, int], list[Verdict]] = {}
    for v in verdicts:
        buckets.setdefault((v.file, v.method, v.partition), []).append(v)
    findings, tested = [], set()
    for (file, method, partition), vs in sorted(buckets.items()):
        tested.add(partition_key(file, method, partition))
        # worst first, so the headline is the worst scenario: a bad input in one never hides a failure in another
        ordered = tuple(sorted(vs, key=lambda v: (v.status.rank, v.scenario)))
        if ordered[0].status is not Status.PASSED:
            findings.append(Finding(file, method, partition, ordered))
    return findings, tested


@dataclass(frozen=True)
class Totals:
    counts: tuple[int, ...]  # one per Status, in Status order
    methods: int

    @classmethod
    def of(cls, verdicts: Iterable[Verdict]) -> "Totals":
        vs = list(verdicts)
        counter = Counter(v.status for v in vs)
        return cls(tuple(counter.get(s, 0) for s in Status), len({(v.file, v.method) for v in vs}))

    def count(self, status: Status) -> int:
        return self.counts[list(Status).index(status)]

    @property
    def tests(self) -> int:
        return sum(self.counts)

    @property
    def passed(self) -> int:
        return self.count(Status.PASSED)

    @property
    def not_passing(self) -> int:
        return self.tests - self.passed

    @property
    def tested(self) -> int:
        """Verdicts of tests that were generated (everything but not-tested)."""
        return self.tests - self.count(Status.NOT_TESTED)

    def by_status(self) -> dict[str, int]:
        return {s.value: n for s, n in zip(Status, self.counts)}

    def sentence(self) -> str:
        """`8 tests, 4 passed, 4 not passing (3 failed, 1 crashed)`: for the log lines of every command."""
        return (f"{self.tests} test{'s' * (self.tests != 1)}, {self.passed} passed, {self.not_passing} not passing"
                + (f" ({self.breakdown()})" if self.not_passing else ""))

    def breakdown(self) -> str:
        """`2 failed, 1 crashed`: the statuses other than passed that occur, worst first."""
        return ", ".join(f"{self.count(s)} {s.value}" for s in sorted(Status, key=lambda s: s.rank)
                         if s is not Status.PASSED and self.count(s))


GLOSS = {Status.BAD_INPUT: "dspec2test generated an input the contract does not allow: our bug",
         Status.NO_IMPLEMENTATION: "it, or a method it calls, has no body yet"}


def verb(f: Finding) -> str:
    """The headline status in the words of every report, with a gloss where the word alone may mislead."""
    gloss = GLOSS.get(f.status)
    return f"{f.status.value} ({gloss})" if gloss else f.status.value


def headline(f: Finding) -> str:
    if f.partition == MEMBER:
        return f"{f.method}: {verb(f)}"
    label = f.first.label or f"partition {f.partition}"
    return f"{f.method}: partition {f.partition} ({label}): {verb(f)}"


def facts(f: Finding) -> list[tuple[str, str]]:
    """(name, value) pairs that explain a partition, in the order a reader wants them."""
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
        out.append(("reason" if f.partition == MEMBER else "message", v.message))
    if v.assumes:
        out.append(("assumes", f"line{'s' * (len(v.assumes) > 1)} {', '.join(map(str, v.assumes))} of "
                               f"{v.method}: its proof takes that on trust"))
    if v.test:
        out.append(("test", f"{v.test} ({v.status.value})"))
    if len(f.verdicts) > 1:
        out.append(("scenarios", ", ".join(f"s{x.scenario} {x.status.value}"
                                           for x in sorted(f.verdicts, key=lambda x: x.scenario))))
    return out

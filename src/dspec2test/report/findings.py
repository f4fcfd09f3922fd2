"""Verdicts grouped into what every report talks about: one Finding per broken clause and member, with
every input that broke it, and the Totals by status.

A wrong line usually breaks one clause on many inputs (each partition and boundary scenario that reaches
it): that is one finding, listing those inputs with the value expected and the one returned, not one
finding per test. Tests that fail without a clause to blame are grouped by member and status (all the
inputs a member crashed on, all those it timed out on); a member that got no test at all is one
not-tested finding with the reason. Findings are ordered failures first (records.WORST_FIRST), then by
file, member and line.

The action's terminal lines, SARIF, the job summary, review comments, check runs and annotations all
read these, so a status is named the same everywhere (records.Status). A finding's key names the member
and the clause by its text (not its line, which moves when lines are added above it), so a re-run finds
its own earlier comment.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from dspec2test.records import MEMBER, Status, Verdict


@dataclass(frozen=True)
class Finding:
    file: str  # relative to the repository root
    method: str
    tag: str  # what broke: the status, and for a clause a digest of its text (`failed-1a2b3c4d`)
    verdicts: tuple[Verdict, ...]  # the tests that broke it, worst first, then by partition and scenario
    tests: int = 0  # the member's tests, passing ones included

    @property
    def key(self) -> str:
        return finding_key(self.file, self.method, self.tag)

    @property
    def first(self) -> Verdict:
        """The headline test: the worst, then the earliest."""
        return self.verdicts[0]

    @property
    def status(self) -> Status:
        return self.first.status

    @property
    def failing(self) -> tuple[Verdict, ...]:
        return self.verdicts

    @property
    def partition(self) -> int:
        """The headline test's partition (MEMBER for a member that got no test)."""
        return self.first.partition

    @property
    def partitions(self) -> tuple[int, ...]:
        return tuple(sorted({v.partition for v in self.verdicts}))

    @property
    def clause(self) -> str | None:
        return self.first.clause

    @property
    def whole_member(self) -> bool:
        """A member that got no test at all."""
        return self.first.partition == MEMBER

    @property
    def line(self) -> int:
        """Where the failure is best shown: the broken clause, else the member."""
        return self.first.clause_line or self.first.member_line or 1

    @property
    def path(self) -> str:
        """The file `line` is in: the broken clause's (a clause inherited by refines is written in the
        refined module's file), else the member's."""
        return self.first.clause_path if self.first.clause_line else self.file


def finding_key(file: str, method: str, tag: str) -> str:
    return f"{file}::{method}::{tag}"


def partition_key(file: str, method: str, partition: int) -> str:
    """The key findings had when there was one per partition (comments of earlier versions carry it)."""
    return f"{file}::{method}::p{partition}"


def tag_of(v: Verdict) -> str:
    """The group a test that did not pass belongs to, within its member."""
    if v.partition == MEMBER:
        return "member"
    broken = v.clause or (f"line {v.clause_line}" if v.clause_line else "")
    if v.status in (Status.FAILED, Status.BAD_INPUT) and broken:
        digest = hashlib.sha1(" ".join(broken.split()).encode("utf-8")).hexdigest()[:8]
        return f"{v.status.value}-{digest}"
    return v.status.value


def group(verdicts: Iterable[Verdict]) -> tuple[list[Finding], set[tuple[str, str]]]:
    """The findings (failures first), and the members tested (file, member)."""
    vs = list(verdicts)
    tests = Counter((v.file, v.method) for v in vs if v.partition != MEMBER)
    buckets: dict[tuple[str, str, str], list[Verdict]] = {}
    for v in vs:
        if v.status is not Status.PASSED:
            buckets.setdefault((v.file, v.method, tag_of(v)), []).append(v)
    # within a finding, the smallest input first (a shrunk one, `s = [0, 1]`), then by partition and scenario
    findings = [Finding(file, method, tag, tuple(sorted(group, key=lambda v: (v.status.rank, input_length(v),
                                                                                v.partition, v.scenario))),
                        tests[(file, method)])
                for (file, method, tag), group in buckets.items()]
    findings.sort(key=lambda f: (f.status.rank, f.file, f.method, f.line, f.tag))
    return findings, {(v.file, v.method) for v in vs}


def input_length(v: Verdict) -> int:
    """How big a test's inputs look: the length of their literals (shorter collections, smaller numbers)."""
    return sum(len(text) for text in v.inputs.values())


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


def expected_of(v: Verdict) -> str | None:
    """The value expected, `r = 94`, where the clause pins one; from results of earlier versions (or a
    --simplify value check), the expected text where it says more than the clause."""
    if v.expected_value:
        return v.expected_value
    return v.expected if v.expected and v.expected != v.clause else None


def inputs_text(v: Verdict) -> str:
    return ", ".join(f"{k} = {val}" for k, val in v.inputs.items())


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def extent(f: Finding) -> str:
    """`on 6 of 11 tests`, or `on 2 tests` when every test of the member broke it."""
    n = len(f.verdicts)
    return f"on {n} of {plural(f.tests, 'test')}" if f.tests > n else f"on {plural(n, 'test')}"


def headline(f: Finding) -> str:
    """`LastOrDefault: failed: ensures |s| > 0 ==> r == s[|s| - 1] (line 19) on 6 of 11 tests`."""
    if f.whole_member:
        return f"{f.method}: {verb(f)}"
    on = extent(f)
    if f.clause:
        return f"{f.method}: {verb(f)}: {' '.join(f.clause.split())} (line {f.line}) {on}"
    return f"{f.method}: {verb(f)} {on}"


def scenario_of(v: Verdict) -> str:
    """`p1 s3: |s| > 1`: which partition and scenario a test is, with its pin."""
    return f"p{v.partition} s{v.scenario}" + (f": {v.pin}" if v.pin else "")


def case_facts(v: Verdict, f: Finding) -> list[tuple[str, str]]:
    """One failing test of a finding: its inputs, the value expected and the one returned, and what
    happened where it differs from the finding's headline."""
    out: list[tuple[str, str]] = [("inputs", inputs_text(v) or "(none)")] if v.inputs else []
    expected = expected_of(v)
    if expected:
        out.append(("expected", expected))
    if v.actual:
        out.append(("actual", v.actual))
    if v is not f.first and v.message and not v.clause and v.message != f.first.message:
        out.append(("message", v.message))  # crashes on several inputs, each with its own message
    if v.status is not f.status:
        out.append(("status", v.status.value))
    return out


def facts(f: Finding) -> list[tuple[str, str]]:
    """(name, value) pairs that explain a finding, in the order a reader wants them: the clause, then the
    first failing input with expected and actual, then how many more."""
    v = f.first
    out: list[tuple[str, str]] = []
    if v.clause:
        out.append(("clause", v.clause))
    if v.clause_line:
        out.append(("clause line", f"{v.clause_path}:{v.clause_line}" if v.clause_path else str(v.clause_line)))
    if not f.whole_member:
        out += case_facts(v, f)
    if v.message and not v.clause:  # the clause already says what the oracle message says
        out.append(("reason" if f.whole_member else "message", v.message))
    if v.assumes:
        out.append(("assumes", f"line{'s' * (len(v.assumes) > 1)} {', '.join(map(str, v.assumes))} of "
                               f"{v.method}: its proof takes that on trust"))
    if v.test:
        out.append(("test", v.test))
    if v.label and not f.whole_member:
        out.append(("partition", f"p{v.partition}: {v.label}"))
    if len(f.verdicts) > 1:
        more = [f"{inputs_text(x) or x.test}" + "".join(f", {n} {val}" for n, val in case_facts(x, f) if n != "inputs")
                for x in f.verdicts[1:MAX_LISTED]]
        left = len(f.verdicts) - MAX_LISTED
        out.append(("also failing", "; ".join(more) + (f"; and {left} more" if left > 0 else "")))
    return out


MAX_LISTED = 10  # failing inputs a one-paragraph report lists (the JUnit and JSON files have them all)

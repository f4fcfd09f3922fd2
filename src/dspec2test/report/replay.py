"""What `replay` reports: one row per commit of a branch's history (what `check` would have said on
it), the totals, and the same as JSON (`replay --json`), which scripts/replay_summary.py reads."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from dspec2test.records import Status

# statuses that mean a test ran against the implementation (whatever it found)
RAN = (Status.PASSED, Status.FAILED, Status.CRASHED, Status.TIMEOUT)
# table headings of the status columns, in Status order (no-implementation is too wide for a column)
STATUS_HEADINGS = {Status.PASSED: "passed", Status.FAILED: "failed", Status.CRASHED: "crashed",
                   Status.TIMEOUT: "timeout", Status.BAD_INPUT: "bad-input", Status.NO_IMPLEMENTATION: "no-impl",
                   Status.NOT_TESTED: "not-tested"}
SUBJECT_WIDTH = 34


@dataclass(frozen=True)
class MemberOutcome:
    """One affected member of one commit and what its tests said."""

    name: str  # qualified
    file: str
    line: int
    kind: str  # method, function, predicate, lemma, constructor, ...
    ghost: bool  # a lemma, ghost function or ghost predicate
    has_contract: bool
    reason: str  # why the change affects it
    statuses: dict[str, int] = field(default_factory=dict)  # status -> verdicts
    not_tested: tuple[str, ...] = ()  # the distinct reasons of its not-tested verdicts

    @property
    def ran(self) -> bool:
        """A test of it ran against the implementation."""
        return any(self.statuses.get(s.value) for s in RAN)

    def to_json(self) -> dict:
        return {"name": self.name, "file": self.file, "line": self.line, "kind": self.kind, "ghost": self.ghost,
                "has_contract": self.has_contract, "reason": self.reason, "statuses": dict(self.statuses),
                "not_tested": list(self.not_tested)}


@dataclass(frozen=True)
class CommitOutcome:
    """`check --base C^ --head C` on one commit C, or why it could not run."""

    sha: str
    subject: str
    seconds: float = 0.0  # check's own time: choosing the members, generating, building, running
    wall_seconds: float = 0.0  # with the scratch worktree's checkout and removal
    error: str | None = None  # why check could not run on this commit
    members: tuple[MemberOutcome, ...] = ()
    statuses: dict[str, int] = field(default_factory=dict)  # every verdict of the commit, by status
    notes: tuple[str, ...] = ()  # diagnostics worth a look: parse errors in the files it changed
    proved: tuple[str, ...] = ()  # changed lemmas Dafny proves: counted, not tested


    @property
    def checked(self) -> bool:
        return self.error is None

    def to_json(self) -> dict:
        return {"sha": self.sha, "subject": self.subject, "seconds": round(self.seconds, 2),
                "wall_seconds": round(self.wall_seconds, 2), "error": self.error, "notes": list(self.notes),
                "statuses": dict(self.statuses), "members": [m.to_json() for m in self.members],
                "proved": list(self.proved)}


@dataclass(frozen=True)
class ReplayTotals:
    commits: int
    checked: int  # commits check ran on
    affected: int
    ghost: int
    proved: int  # changed lemmas Dafny proves
    tested: int  # members a test of which ran
    statuses: dict[str, int]
    median_seconds: float | None  # check's time per commit, of the commits checked
    check_seconds: float  # check's time, all commits
    total_seconds: float  # with the scratch worktrees

    @classmethod
    def of(cls, outcomes: Sequence[CommitOutcome]) -> "ReplayTotals":
        checked = [o for o in outcomes if o.checked]
        members = [m for o in outcomes for m in o.members]
        return cls(
            commits=len(outcomes), checked=len(checked), affected=len(members),
            ghost=sum(m.ghost for m in members), proved=sum(len(o.proved) for o in outcomes), tested=sum(m.ran for m in members),
            statuses={s.value: sum(o.statuses.get(s.value, 0) for o in outcomes) for s in Status},
            median_seconds=statistics.median(o.seconds for o in checked) if checked else None,
            check_seconds=sum(o.seconds for o in outcomes),
            total_seconds=sum(o.wall_seconds for o in outcomes),
        )

    def to_json(self) -> dict:
        return {"commits": self.commits, "checked": self.checked, "affected": self.affected, "ghost": self.ghost,
                "proved": self.proved, "tested": self.tested, "statuses": dict(self.statuses),
                "median_seconds": None if self.median_seconds is None else round(self.median_seconds, 2),
                "check_seconds": round(self.check_seconds, 2), "total_seconds": round(self.total_seconds, 2)}


def _cells(first: str, second: str, numbers: Iterable[object], seconds: str) -> str:
    nums = "".join(f"{str(n):>{max(len(h), 4) + 1}}" for n, h in zip(numbers, _number_headings()))
    return f"{first:<9} {second:<{SUBJECT_WIDTH}}{nums}{seconds:>9}\n"


def _number_headings() -> list[str]:
    return ["affected", "ghost", "proved", "tested", *STATUS_HEADINGS.values()]


def header() -> str:
    return _cells("commit", "subject", _number_headings(), "seconds")


def row(o: CommitOutcome) -> str:
    """The commit's line, and below it why check could not run, or its notes."""
    subject = o.subject if len(o.subject) <= SUBJECT_WIDTH - 1 else o.subject[:SUBJECT_WIDTH - 4] + "..."
    if o.error is not None:
        return _cells(o.sha[:9], subject, ["-"] * len(_number_headings()), f"{o.wall_seconds:.1f}") \
            + f"{'':10}error: {o.error}\n"
    numbers = [len(o.members), sum(m.ghost for m in o.members), len(o.proved), sum(m.ran for m in o.members),
               *(o.statuses.get(s.value, 0) for s in STATUS_HEADINGS)]
    notes = "".join(f"{'':10}note: {n}\n" for n in o.notes)
    return _cells(o.sha[:9], subject, numbers, f"{o.seconds:.1f}") + notes


def totals_lines(t: ReplayTotals, interrupted: bool = False) -> str:
    numbers = [t.affected, t.ghost, t.proved, t.tested, *(t.statuses.get(s.value, 0) for s in STATUS_HEADINGS)]
    lines = _cells("total", f"{t.commits} commits", numbers, f"{t.check_seconds:.1f}")
    median = "-" if t.median_seconds is None else f"{t.median_seconds:.1f} s"
    lines += (f"dspec2test: {t.commits} commit{'s' * (t.commits != 1)}, {t.checked} checked, "
              f"{t.commits - t.checked} could not be; {t.affected} affected members ({t.ghost} ghost), "
              f"{t.proved} lemma{'s' * (t.proved != 1)} proved by Dafny, "
              f"{t.tested} with tests that ran; median check per commit {median}, "
              f"{t.total_seconds:.0f} s in all")
    return lines + ("; interrupted\n" if interrupted else "\n")


def dumps(outcomes: Sequence[CommitOutcome], options: dict, interrupted: bool = False) -> str:
    return json.dumps({"options": options, "interrupted": interrupted,
                       "commits": [o.to_json() for o in outcomes],
                       "totals": ReplayTotals.of(outcomes).to_json()}, indent=2) + "\n"

"""What contract strength found, per member: records every report reads (terminal, JSON, SARIF, summary,
review comments)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Measured(str, Enum):
    """Whether a member's strength was measured."""

    MEASURED = "measured"  # every chosen mutant got a verdict (possibly some left out by the budget)
    SKIPPED = "skipped"  # nothing to mutate: a lemma, no body, an extern, a constructor
    ERROR = "error"  # the member does not verify here, the program with the mutants does not build, ...


@dataclass(frozen=True)
class WeakFinding:
    """"The contract of M accepts this change": a mutant Dafny verifies, and an input on which its
    outputs differ from the member's."""

    member: str  # qualified name
    file: str
    member_line: int
    mutant: int
    operator: str  # ROR, AOR, ... (strength/mutate.py)
    line: int  # the mutated line
    before: str  # the line as written
    after: str  # the line with the change
    change: str  # "`x < 0` -> `x <= 0`"
    inputs: dict[str, str]  # the differing input
    original: dict[str, str]  # the member's outputs on it
    mutated: dict[str, str]  # the mutant's
    test: str = ""  # the spec test whose input it is
    partition: int = 0
    label: str = ""  # that test's partition
    clause: str | None = None  # what the contract could say to rule it out, when it is obvious
    differing_inputs: int = 1  # of the inputs compared, how many told the two apart


@dataclass(frozen=True)
class MemberStrength:
    member: str
    file: str
    line: int
    status: Measured
    reason: str = ""  # for skipped and error, and notes (budget, cap)
    mutants: int = 0  # made by the operators
    chosen: int = 0  # verified (the cap and the budget may leave some out)
    incompetent: int = 0  # do not resolve
    killed: int = 0  # fail verification
    survived: int = 0  # verify
    equivalent: int = 0  # verify, and no input told them apart from the member (counted, never reported)
    unrun: int = 0  # verify, but were not run (no inputs, or the budget ran out)
    findings: tuple[WeakFinding, ...] = ()
    inputs: int = 0  # inputs compared
    nondeterministic: int = 0  # inputs left out because the member's own outputs vary
    seconds: dict[str, float] = field(default_factory=dict)  # verify, run, inputs, total

    @property
    def weak(self) -> bool:
        return bool(self.findings)

"""Records that flow from stage to stage: Scenario -> TestCase -> Verdict, and what generation hands back
for each member (MemberResult: its partitions and scenarios, with the status of each, and its tests).

Each is frozen; a later stage derives variants with dataclasses.replace. Dafny text (labels, pins,
literals) is kept as text here because that is what the reports and the emitted tests need.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum

from dspec2test.errors import Diagnostic


class ScenarioKind(str, Enum):
    BASE = "base"
    BVA = "bva"
    REPEAT = "repeat"
    DIVERSE = "diverse"  # with --bva, after the boundary ones: inputs unlike the earlier ones (partition/diversity.py)
    SEARCH = "search"  # an input the search found (search/), admitted by running the requires
    SHRUNK = "shrunk"  # after a run: a failing input made as small as it goes while it fails the same way


class CheckKind(str, Enum):
    """What an emitted check tests, and so whom its failure blames."""

    TYPE = "type"  # an input's subset-type or newtype constraint (before the call)
    REQUIRES = "requires"  # a precondition on the generated input (before the call)
    INVARIANT = "invariant"  # a compiled class invariant of a generated object (before the call)
    ENSURES = "ensures"  # a compiled postcondition on the actual outputs
    VALUE = "value"  # an output equals the value the contract makes unique for the inputs (not with --no-simplify)
    # a lemma's ensures on its inputs (no call: a lemma is ghost): a property of the functions it calls
    PROPERTY = "property"

    @property
    def blames_input(self) -> bool:
        """A failed check of our own generated input: bad-input, never the implementation's fault."""
        return self in (CheckKind.TYPE, CheckKind.REQUIRES, CheckKind.INVARIANT)

    @property
    def checks_output(self) -> bool:
        """A check of what the member did (after the call), the one kind a pass can rest on."""
        return self in (CheckKind.ENSURES, CheckKind.VALUE, CheckKind.PROPERTY)


@dataclass(frozen=True)
class Check:
    """One check a generated test makes; its id is what the test prints when the check fails, so a
    verdict is read from the id, never from message text."""

    id: str  # unique within its test: "c1", "c2", ...
    kind: CheckKind
    line: int  # the clause's line in the program (for a type check: the member's)
    text: str  # the clause as written, or `n is a nat`, or `r == 3`
    file: str = ""  # the clause's file where it is not the member's (a clause inherited by refines)
    # what the check rests on beyond the clause, where that is more (`the axioms TriZero (line 3), TriSucc
    # (line 4)` of a value, or the bound a witness search was proved complete within)
    source: str = ""


class Status(str, Enum):
    """A test's verdict: the one vocabulary of every report (terminal, JSON, JUnit, SARIF, summary,
    review comments, bench). Only FAILED blames the implementation's logic; CRASHED and TIMEOUT are
    the implementation's too; the others are our problem or not yet testable, and say why."""

    PASSED = "passed"
    FAILED = "failed"  # the implementation broke a checked clause
    CRASHED = "crashed"  # the implementation halted or threw (out of bounds, division by zero, its own expect)
    TIMEOUT = "timeout"
    BAD_INPUT = "bad-input"  # our generated input violated a requires or a type constraint: our bug
    NO_IMPLEMENTATION = "no-implementation"  # the member, or a method it calls, has no body
    NOT_TESTED = "not-tested"  # unsupported construct, solver failure, member stopped, build or internal error

    @property
    def rank(self) -> int:
        """Worst first: a partition's headline is its scenario with the lowest rank."""
        return WORST_FIRST.index(self)

    @property
    def is_failure(self) -> bool:
        """What `fail_on: failures` counts: the implementation's fault."""
        return self in (Status.FAILED, Status.CRASHED, Status.TIMEOUT)


WORST_FIRST = (Status.FAILED, Status.CRASHED, Status.TIMEOUT, Status.BAD_INPUT, Status.NO_IMPLEMENTATION,
               Status.NOT_TESTED, Status.PASSED)


MEMBER = 0  # the partition number of a verdict about a whole member that got no test


def worst(statuses: Iterable[Status]) -> Status:
    """The headline of several verdicts (PASSED when there are none)."""
    return min(statuses, key=lambda s: s.rank, default=Status.PASSED)


@dataclass(frozen=True)
class Scenario:
    """A partition, possibly with one variable pinned to a boundary (BVA), a property its earlier inputs
    lack (diverse), or previous inputs excluded."""

    partition: int
    id: int  # 1-based within the partition; 1 is the base scenario
    kind: ScenarioKind
    pin: str | None = None  # Dafny text of the pin, e.g. "x == |s| - 1"


@dataclass(frozen=True)
class TestCase:
    """A solved scenario: concrete inputs and (when unique, unless --no-simplify) expected outputs."""

    name: str  # the Dafny {:test} method name
    method: str  # qualified name of the member under test
    file: str  # source file of the member under test
    line: int  # line of the member's declaration
    partition: int
    scenario: int
    label: str
    kind: ScenarioKind
    pin: str | None
    inputs: dict[str, str] = field(default_factory=dict)  # parameter -> Dafny literal
    outputs: dict[str, str] = field(default_factory=dict)  # out-parameter -> Dafny literal (model value)
    unique: bool = False  # outputs proved unique for these inputs
    clauses: tuple[int, ...] = ()  # lines of the clauses the partition came from
    checks: tuple[Check, ...] = ()  # what the test checks, in order; a failure names one by id
    also: tuple[tuple[int, str | None], ...] = ()  # (scenario, pin) of later scenarios with the same inputs
    instantiation: dict[str, str] = field(default_factory=dict)  # type parameter -> the type it was tested at
    diverges: int = 0  # line of the member's `decreases *` (it may not terminate); 0: it must
    # the trusted lemmas that decided the unique outputs (functions without a body): `TriSucc (line 4)`, ...
    axioms: tuple[str, ...] = ()
    # where the member has ensures and the test can check none of them (only its inputs): how many, and the
    # first with why (`ensures (line 8) IsSquare(r): IsSquare is ghost ...`); such a test never passes
    unchecked: int = 0
    unchecked_first: str = ""
    # the first requires the test cannot check at run time (`requires (line 300) Valid(s[..])`): its inputs
    # may break it, so a hang or a crash in the call is no sign of a bug
    unchecked_requires: str = ""

    def check(self, check_id: str) -> Check | None:
        return next((c for c in self.checks if c.id == check_id), None)


@dataclass(frozen=True)
class Verdict:
    """What running one generated test told us."""

    test: str  # test method name
    method: str
    partition: int
    scenario: int
    status: Status
    message: str = ""  # Dafny's message for a failure (expect text), timeout or error
    line: int | None = None  # line in the tests file of the failing expect, when Dafny reports one
    clause_line: int | None = None  # line of the broken contract clause in the program, when known
    clause_file: str = ""  # its file, where not the member's (a clause inherited by refines)
    clause: str | None = None  # source text of the broken clause, when known
    expected: str | None = None  # what the failed check required: the clause, or `r == 3` (a value check)
    actual: str | None = None  # the outputs the member returned, `r = 95`
    inputs: dict[str, str] = field(default_factory=dict)
    file: str = ""  # program file of the member
    member_line: int = 0  # line of the member's declaration
    label: str = ""  # partition label
    pin: str | None = None  # the scenario's boundary pin, when it has one
    assumes: tuple[int, ...] = ()  # a failure's member has `assume` statements at these lines
    instantiation: dict[str, str] = field(default_factory=dict)  # type parameter -> the type it was tested at
    # the values the broken clause pins the outputs to on these inputs, `r = 94` (emit/expected.py);
    # None where the clause pins no value (`ensures r > x`) or the test did not get that far
    expected_value: str | None = None

    @property
    def clause_path(self) -> str:
        """The file the broken clause is written in: its own where it is not the member's, else the member's."""
        return self.clause_file or self.file


# ---------------------------------------------------------------- what generation gives per member


class ScenarioStatus(str, Enum):
    """What became of a scenario."""

    SOLVED = "solved"  # the solver found an input: a test (or an earlier test with the same input) carries it
    UNSAT = "unsat"  # no input has the scenario's constraints
    UNKNOWN = "unknown"  # the solver gave up, or the calls that make an object are not known to meet the requires
    BAD_INPUT = "bad-input"  # the solved inputs, as the test would write them, break a requires: no test
    SLOW_CONTRACT = "slow-contract"  # its test was left out: the contract could not be evaluated in time on it


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario of a partition and what the solver made of it."""

    id: int  # 1-based within the partition
    kind: ScenarioKind
    pin: str | None  # Dafny text of its pin, if any
    status: ScenarioStatus = ScenarioStatus.SOLVED
    test: str | None = None  # the test that carries it
    inputs: dict[str, str] = field(default_factory=dict)  # parameter -> Dafny literal
    outputs: dict[str, str] = field(default_factory=dict)  # out-parameter -> the model's value
    unique: bool = False  # outputs proved unique for these inputs (value checks)
    same_as: int | None = None  # the earlier scenario whose test has the same inputs and carries this one
    message: str | None = None  # why no test was written (bad-input, unknown)
    bounded: str | None = None  # the small shape the solver's bounded fallback fixed to find it (`|s| == 2`)


@dataclass(frozen=True)
class PartitionResult:
    """One equivalence class of a member's contract (a conjunction of literals) and its scenarios."""

    id: int  # 1-based within the member
    label: str  # the literals joined with " && ", printed as Dafny
    constraint: str  # the whole constraint solved for (label plus implicit type constraints), as Dafny
    clauses: tuple[int, ...]  # source lines of the requires/ensures clauses it came from
    status: str  # "sat", or "unknown" (the solver could not rule it out)
    scenarios: tuple[ScenarioResult, ...] = ()
    branches: tuple[int, ...] = ()  # which branch of each clause (ClauseBranches, in order) it took


@dataclass(frozen=True)
class ClauseBranches:
    """A clause the member was partitioned on, with its branches (clause coverage reads them)."""

    kind: str  # requires, ensures
    line: int
    text: str
    labels: tuple[str, ...]  # each branch, printed as Dafny
    vacuous: tuple[bool, ...]  # per branch: a test in it meets the clause only vacuously (`!A` of `A ==> B`)


@dataclass(frozen=True)
class Unsatisfiable:
    """A combination of clause branches no input meets (named by its literals; the lines it combines)."""

    label: str
    clauses: tuple[int, ...]


@dataclass(frozen=True)
class Limitation:
    """A construct or a reason that keeps (part of) a member from being tested."""

    construct: str
    line: int
    message: str
    file: str = ""  # where line is, when not in the member's own file (an included function's body)


@dataclass(frozen=True)
class UncheckedClause:
    """A contract clause no test can check (ghost, or not compilable), with the reason."""

    line: int
    kind: str  # requires, ensures
    text: str
    reason: str


@dataclass(frozen=True)
class MemberResult:
    """What generating one member gave: its partitions with their scenarios, what kept parts of it from
    being tested, and its tests (the emitted methods and their test cases) with the diagnostics.

    It crosses from a member's child process to the parent, so it holds plain picklable values."""

    name: str  # qualified member name, e.g. "M.C.Find"
    file: str
    line: int
    kind: str  # method, function, lemma, constructor, ...
    body: bool  # it has a body (a member without one can only be found not implemented)
    partitions: tuple[PartitionResult, ...] = ()
    unsupported: tuple[Limitation, ...] = ()
    unchecked: tuple[UncheckedClause, ...] = ()
    capped: bool = False  # the partition cap stopped the enumeration
    instantiation: dict[str, str] | None = None  # a generic member: type parameter -> the type it is tested at
    blocked: str | None = None  # a reason no test can call it
    stopped: str | None = None  # why its generation stopped before the end (its tests so far are kept)
    opaque_recursion: bool = False  # solved with its recursive functions left open (a second try)
    clauses: tuple[ClauseBranches, ...] | None = None  # None: its clauses were not partitioned
    unsatisfiable: tuple[Unsatisfiable, ...] = ()  # at most MAX_UNSAT_SHOWN of them
    unsatisfiable_more: int = 0  # how many more there were
    tests: tuple[str, ...] = ()  # the emitted {:test} methods
    cases: tuple[TestCase, ...] = ()  # one per test, in the same order
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def scenarios(self) -> Iterable[ScenarioResult]:
        return (s for p in self.partitions for s in p.scenarios)

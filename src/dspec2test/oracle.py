"""What the stages ask of the solver, and what it answers: the door to Z3 as partition/ and generate.py
see it (implemented by dspec2test.solve.Solver).

A Protocol and plain records, so that the stages depend on the shape of the door and not on Z3; unit
tests pass a fake.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from dspec2test.dafny import ast


class SolveResult(str, Enum):
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Unbounded:
    """The optimised term has no bound in the asked direction."""


@dataclass(frozen=True)
class Model:
    values: dict[str, str]  # variable -> Dafny literal text
    raw: dict[str, Any] = field(default_factory=dict, compare=False)  # variable -> plain value (exclusion, pins)
    bounded: str = ""  # the small shape the bounded fallback fixed to find it (`|s| == 2`), if it did
    fixed: str = ""  # inputs built from witnesses for the requires alone (Solver._requires_alone): how, for the user
    # inputs whose value in Z3's model is an irrational real: their literals are approximations
    inexact: tuple[str, ...] = field(default=(), compare=False)
    # the trusted lemmas whose instances decided its outputs (`TriSucc (line 4)`): functions without a body
    axioms: tuple[str, ...] = ()


class SolverLike(Protocol):
    """Z3 queries about one member's variables (its inputs and outputs)."""

    timeouts: int  # queries stopped by the time limit so far (not those stopped by a resource budget)
    status_of_last: SolveResult  # what the last query found

    def check(self, constraints: Sequence[ast.Expr], budget: int = 0) -> SolveResult:
        """Satisfiability; `budget` (Z3 resource units, 0: the clock only) limits each query."""
        ...

    def valid(self, e: ast.Expr, budget: int) -> bool:
        """Does `e` hold for every value of the variables (their types' constraints assumed), within `budget`?"""
        ...

    def solve(self, constraints: Sequence[ast.Expr], exclude: Sequence[Model] = (),
              relevant: Sequence[ast.Expr] | None = None, avoid: Sequence[Model] = ()) -> Model | None:
        """A model of the constraints whose inputs differ from `exclude`'s, and preferably from `avoid`'s."""
        ...

    def optimize(self, term: ast.Expr, constraints: Sequence[ast.Expr], maximize: bool) -> int | Unbounded | None:
        """The integer optimum of term under the constraints (None: not found)."""
        ...

    def solve_at(self, constraints: Sequence[ast.Expr], pins: dict[str, object], budget: int = ...) -> Model | None:
        """A model of the constraints with the inputs fixed to plain values (None: they are not in it, or Z3
        gave up: status_of_last says which)."""
        ...

    def var_types(self) -> dict[str, Any]:
        """The resolved type (model.resolve.RType) of each variable, by name."""
        ...

    def literal_of(self, value: object, t: Any) -> str:
        """A plain value of a resolved type as the Dafny literal a test writes."""
        ...

    def literals(self, values: dict[str, object]) -> dict[str, str]:
        """Plain values of inputs as the Dafny literals a test writes."""
        ...

    def outputs_unique(self, constraints: Sequence[ast.Expr], model: Model) -> Model | None:
        """With the model's inputs fixed, are its outputs the only ones? The model (with the outputs the
        axioms of bodiless functions give, where they decide them), or None: not shown."""
        ...

    def holds(self, e: ast.Expr, model: Model) -> bool | None:
        """e on a model's values; None: not decided without a query."""
        ...

    def admits(self, inputs: dict[str, str], constraints: Sequence[ast.Expr],
               raw: dict[str, Any] | None = None) -> bool | None:
        """Do the inputs, as the literals a test holds, meet the constraints and their types'? None: undecided."""
        ...

    def state_entailed(self, constraints: Sequence[ast.Expr], model: Model) -> bool:
        """Does every state the calls that make the model's objects can leave meet the constraints?"""
        ...

    def hidden_input_types(self) -> list[str]:
        """Input datatypes a test outside their module cannot construct."""
        ...

    def make_from_functions(self) -> list[str]:
        """Make inputs whose type's constraint is about functions by the program's function that returns
        that type (what was done)."""
        ...

    def build_from_witnesses(self, requires_only: bool = False, rebuild: bool = False) -> list[str]:
        """Build large inputs from their type's witness, solving only what the contract reads (what was done)."""
        ...

    def inputs_out_of_reach(self, pending: Callable[[str], None] = ...) -> str | None:
        """Why Z3 finds no value of the inputs' types alone in a short time (None: it does, or they are small);
        `pending` hears that reason before the check, which Z3 may never end."""
        ...

    def rebuilt_for_requires(self, exclude: Sequence[Model]) -> Model | None:
        """Once: large inputs built again solving only what the requires read, every constraint back (None:
        done before, nothing to build, or no model)."""
        ...

    def defer_field_constraints(self) -> bool:
        """Solve without datatype fields' own constraints, left to each test's admission (False: none to defer)."""
        ...

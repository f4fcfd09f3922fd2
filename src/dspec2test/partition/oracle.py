"""What the partition stage needs from the solver (implemented by dspec2test.solve.Solver).

A Protocol, so the stage depends on the shape of the door and not on Z3; unit tests pass a fake.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from dspec2test.dafny import ast


class SolverLike(Protocol):
    # SolveResult: SAT / UNSAT / UNKNOWN; `budget` (Z3 resource units, 0: none) limits each query
    def check(self, constraints: Sequence[ast.Expr], budget: int = 0) -> Any: ...

    def solve(self, constraints: Sequence[ast.Expr], exclude: Sequence[Any] = (),
              relevant: Sequence[ast.Expr] | None = None, avoid: Sequence[Any] = ()) -> Any: ...  # Model | None

    def optimize(self, term: ast.Expr, constraints: Sequence[ast.Expr], maximize: bool) -> Any: ...

    def outputs_unique(self, constraints: Sequence[ast.Expr], model: Any) -> bool: ...

    def holds(self, e: ast.Expr, model: Any) -> bool | None: ...  # e on a model's values; None: undecided


def result_name(res: Any) -> str:
    """"SAT", "UNSAT" or "UNKNOWN" whatever enum the solver uses."""
    name = getattr(res, "name", None) or str(getattr(res, "value", res))
    return name.upper()


def is_unsat(res: Any) -> bool:
    return result_name(res) == "UNSAT"

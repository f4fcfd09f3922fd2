"""Solve stage: Dafny contract expressions to Z3 and models back to Dafny literals.

The only door to Z3 in the project: `Solver(program, vars, ...)` with `check`, `solve`, `optimize`,
`outputs_unique` and `status_of_last`. Constructs it cannot encode raise `errors.Unsupported`.
"""

from dspec2test.solve.solver import Model, SolveResult, Solver, Unbounded, fresh_z3, skip_python_checks

__all__ = ["Model", "SolveResult", "Solver", "Unbounded", "fresh_z3", "skip_python_checks"]

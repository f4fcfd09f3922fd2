"""Solve stage: Dafny contract expressions to Z3 and models back to Dafny literals.

The only door to Z3 in the project: `Solver(program, vars, ...)`, which implements oracle.SolverLike
(`check`, `solve`, `optimize`, `outputs_unique`, `holds`, `admits`, ...). Constructs it cannot encode
raise `errors.Unsupported`.
"""

from dspec2test.oracle import Model, SolveResult, Unbounded
from dspec2test.solve.context import fresh_z3, skip_python_checks
from dspec2test.solve.solver import Solver

__all__ = ["Model", "SolveResult", "Solver", "Unbounded", "fresh_z3", "skip_python_checks"]

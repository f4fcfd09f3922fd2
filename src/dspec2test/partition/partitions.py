"""Partitions of a contract: the cross product of every clause's branches, pruned by the solver.

The product is walked depth first, clause by clause, asking the solver about each prefix, so an
unsatisfiable prefix cuts its whole subtree and the product never materialises. The walk stops at the
cap (and says so) or when a budget of solver calls is spent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import Contract, ContractClause
from dspec2test.partition.dnf import branches
from dspec2test.oracle import SolveResult, SolverLike
from dspec2test.partition.lift import Definitions
from dspec2test.model.walk import conj, free_names


@dataclass(frozen=True)
class PartitionSpec:
    id: int  # 1-based within the member
    literals: tuple[ast.Expr, ...]
    label: str
    clause_lines: tuple[int, ...]
    status: str = "SAT"  # "SAT" or "UNKNOWN" (solver gave up; kept, it may still solve)
    branches: tuple[int, ...] = ()  # which branch of each clause it took, in clause order (clause coverage)


@dataclass
class Enumeration:
    """The partitions a contract's clauses enumerate to, and whether a cap or budget cut that short."""

    partitions: list[PartitionSpec] = field(default_factory=list)
    capped: bool = False  # the cap or the solver budget cut the enumeration
    messages: list[str] = field(default_factory=list)
    clause_branches: list[list[str]] = field(default_factory=list)  # each clause's branches, printed
    # per clause and branch: an ensures branch that constrains no output while another branch does (the
    # `!A` of `A ==> B`): a test in it exercises the clause only vacuously
    vacuous: list[list[bool]] = field(default_factory=list)
    # combinations of branches found unsatisfiable (the first clauses' branches: every extension is too)
    unsat: list[tuple[tuple[int, ...], str]] = field(default_factory=list)


def label_of(literals: tuple[ast.Expr, ...]) -> str:
    return print_expr(conj(literals))


def partition(contract: Contract, clauses: tuple[ContractClause, ...], solver: SolverLike, *, full: bool = False,
              cap: int = 64, budget: int | None = None, defs: Definitions | None = None,
              known: Callable[[tuple[int, ...], tuple[ast.Expr, ...]], bool] | None = None) -> Enumeration:
    """Partitions over `clauses` (the contract's clauses the solver can encode). `defs`: the program's
    datatypes and functions defined by cases (see `lift`). `known(path, literals)`: True where a combination
    of branches is known satisfiable without asking the solver in general (an input the search found in it).

    Raises Unsupported when the solver cannot encode a literal.
    """
    result = Enumeration()
    budget = budget if budget is not None else max(256, cap * 32)
    budget_left = [budget]
    lines = tuple(sorted({c.line for c in contract.clauses}))

    def dedupe(lits: tuple[ast.Expr, ...]) -> tuple[ast.Expr, ...]:
        seen: list[ast.Expr] = []
        for lit in lits:
            if lit not in seen and not (isinstance(lit, ast.BoolLit) and lit.value):
                seen.append(lit)
        return tuple(seen)

    splits = [list(branches(c.expr, True, full, defs)) for c in clauses]
    result.clause_branches = [[label_of(br) for br in split] for split in splits]
    outputs = {v.name for v in contract.vars if v.is_output} | set(contract.pre_state)
    for c, split in zip(clauses, splits):
        constrains = [bool(free_names(conj(br)) & outputs) for br in split]
        result.vacuous.append([c.kind == "ensures" and not k and any(constrains) for k in constrains])

    def walk(i: int, prefix: tuple[ast.Expr, ...], unknown: bool, path: tuple[int, ...]) -> bool:
        """False when the enumeration must stop (cap or budget)."""
        if i == len(clauses):
            if len(result.partitions) >= cap:
                result.capped = True
                return False
            result.partitions.append(PartitionSpec(len(result.partitions) + 1, prefix, label_of(prefix), lines,
                                                   "UNKNOWN" if unknown else "SAT", path))
            return True
        for k, br in enumerate(splits[i]):
            lits = dedupe(prefix + br)
            if any(isinstance(lit, ast.BoolLit) and not lit.value for lit in lits):
                result.unsat.append((path + (k,), label_of(lits)))
                continue
            if budget_left[0] <= 0:
                result.capped = True
                result.messages.append(f"stopped after {budget} solver calls")
                return False
            budget_left[0] -= 1
            res = SolveResult.SAT if known is not None and known(path + (k,), lits) else solver.check(lits)
            if res is SolveResult.UNSAT:
                result.unsat.append((path + (k,), label_of(lits)))
                continue
            if not walk(i + 1, lits, unknown or res is SolveResult.UNKNOWN, path + (k,)):
                return False
        return True

    walk(0, (), False, ())
    if result.capped and len(result.partitions) >= cap:
        result.messages.append(f"partition cap of {cap} reached; more combinations were not explored "
                               f"(raise --max-partitions)")
    return result


def check_clauses(clauses: tuple[ContractClause, ...], solver: SolverLike) -> tuple[
        tuple[ContractClause, ...], list[tuple[ContractClause, Unsupported]]]:
    """Split clauses into those the solver encodes and those it reports unsupported."""
    try:  # the common case in one query; clause by clause only to name the culprits
        solver.check([c.expr for c in clauses])
        return clauses, []
    except Unsupported:
        pass
    ok, bad = [], []
    for c in clauses:
        try:
            solver.check([c.expr])
        except Unsupported as exc:
            bad.append((c, exc))
        else:
            ok.append(c)
    return tuple(ok), bad

"""Scenarios of a partition: the base one, and with BVA one per (variable, edge) with one variable pinned.

Numeric edges are the least and greatest values of `v - t` inside the partition, for t = 0 and every
term the partition compares `v` with, so symbolic edges (`x == |s| - 1`) are found as well as literal
ones (`x == 0`). Inputs with no finite edge on a side are pinned at -N / N; outputs only at finite
edges, and one step inside them. Booleans get true and false, collections length 0, 1 and > 1 (or,
where the partition needs more, their least length, one more and beyond). Pins the partition
contradicts or already implies are dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import Contract, Var
from dspec2test.oracle import SolveResult, SolverLike
from dspec2test.partition.partitions import PartitionSpec
from dspec2test.model.types import TypeIndex
from dspec2test.model.walk import free_names, negate, walk
from dspec2test.records import Scenario, ScenarioKind

_COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}
_LENGTHED = {"seq", "set", "multiset", "map"}


@dataclass(frozen=True)
class ScenarioSpec:
    scenario: Scenario
    constraints: tuple[ast.Expr, ...]  # the partition's literals plus the pin, if any


def base_scenario(part: PartitionSpec) -> ScenarioSpec:
    return ScenarioSpec(Scenario(part.id, 1, ScenarioKind.BASE), part.literals)


# Z3 resource units of a question about a pin (is it possible; is it implied): a contract Z3 decides slowly
# (objects holding sets of strings) spent seconds a pin there; undecided counts as possible and not implied
USEFUL_RLIMIT = 1_000_000

def bva_scenarios(contract: Contract, part: PartitionSpec, solver: SolverLike, types: TypeIndex,
                  extreme: int = 100, witness: Any = None) -> list[ScenarioSpec]:
    """Base scenario first, then one per surviving pin, ids 1, 2, ... `witness`: a model of the partition
    (its base scenario's), which settles one of a pin's two questions without asking Z3."""
    out = [base_scenario(part)]
    seen: set[str] = set()
    names = {v.name for v in contract.vars}
    optimum = Optima(solver, part.literals)

    def useful(pin: Pin) -> bool:
        text = print_expr(pin.expr)
        if text in seen:
            return False
        seen.add(text)
        try:
            return _useful(pin)
        except Unsupported:  # a pin the solver cannot encode (the size of a string it holds as an atom)
            return False

    def _useful(pin: Pin) -> bool:
        on_witness = solver.holds(pin.expr, witness) if witness is not None else None
        if not pin.attained and on_witness is not True and solver.check(part.literals + (pin.expr,), budget=USEFUL_RLIMIT) is SolveResult.UNSAT:
            return False  # the partition does not allow this edge
        if pin.strict or on_witness is False:
            return True
        # the partition already implies it: nothing new to test
        return solver.check(part.literals + (negate(pin.expr),), budget=USEFUL_RLIMIT) is not SolveResult.UNSAT

    for var in contract.vars:
        if var.ghost and "." in var.name:
            continue  # a ghost field: no test sets it, the compiled fields it ties to have pins of their own
        groups = object_pins(contract, var, types) if types.kind(var.type) == "class" else \
            candidate_pins(var, part.literals, solver, types, names, optimum)
        for group in groups:
            kept = [p for p in group.pins if useful(p)]
            if not kept and group.fallback is not None and (group.outputs_too or not var.is_output):
                kept = [p for p in map(Pin, group.fallback(extreme)) if useful(p)]
            for pin in kept:
                out.append(ScenarioSpec(Scenario(part.id, len(out) + 1, ScenarioKind.BVA, print_expr(pin.expr)),
                                        part.literals + (pin.expr,)))
    return out


@dataclass(frozen=True)
class Pin:
    expr: ast.Expr
    attained: bool = False  # an optimum the solver reached: satisfiable without asking
    strict: bool = False  # the pinned term takes other values in the partition: not implied, without asking


@dataclass(frozen=True)
class PinGroup:
    """Pins for one side of one variable; `fallback(N)` gives the pins to try when none of them survives
    (an input at -N / N; a collection at its least size in the partition)."""

    pins: tuple[Pin, ...]
    fallback: Callable[[int], tuple[ast.Expr, ...]] | None = None
    outputs_too: bool = False  # the fallback applies to outputs as well


class Optima:
    """The optima a partition's pins need, each asked of the solver once: `b - a` is `-(a - b)`, so the
    least of one is minus the greatest of the other (variables compared with each other, such as i, j
    and k, would otherwise cost every pair's two optimisations twice)."""

    def __init__(self, solver: SolverLike, literals: tuple[ast.Expr, ...]):
        self.solver, self.literals = solver, literals
        self.known: dict[tuple[ast.Expr, bool], Any] = {}
        self.mirrored: set[ast.Expr] = set()  # terms whose optima came from their mirror's

    def __call__(self, term: ast.Expr, maximize: bool) -> Any:
        if (term, maximize) not in self.known:
            mirror = _mirror(term)
            if mirror is not None and (mirror, not maximize) in self.known:
                other = self.known[(mirror, not maximize)]
                self.known[(term, maximize)] = -other if _finite(other) else other  # unbounded or unknown alike
                self.mirrored.add(term)
            else:
                self.known[(term, maximize)] = self.solver.optimize(term, self.literals, maximize)
        return self.known[(term, maximize)]


def _mirror(term: ast.Expr) -> ast.Expr | None:
    """`b - a` for `a - b` over two names; None for any other term."""
    if isinstance(term, ast.BinOp) and term.op == "-" and isinstance(term.left, ast.Name) \
            and isinstance(term.right, ast.Name):
        return ast.BinOp("-", term.right, term.left)
    return None


def candidate_pins(var: Var, literals: tuple[ast.Expr, ...], solver: SolverLike, types: TypeIndex,
                   names: set[str], optimum: Optima) -> list[PinGroup]:
    kind = types.kind(var.type)
    v = var.term
    if kind == "bool":
        return [PinGroup((Pin(v), Pin(ast.UnOp("!", v))))]
    if kind in _LENGTHED or kind == "array":
        size: ast.Expr = ast.MemberSelect(v, "Length") if kind == "array" else ast.Cardinality(v)

        def at_least(_n: int) -> tuple[ast.Expr, ...]:
            # none of 0, 1, > 1 fits (the partition needs two or more): start from the least size instead
            try:
                least = solver.optimize(size, literals, False)
            except Unsupported:
                return ()
            return tuple(p.expr for p in _size_pins(size, least)) if _finite(least) and least > 1 else ()

        return [PinGroup(_size_pins(size, 0), at_least, outputs_too=True)]
    if kind in ("array2", "array3"):  # each extent 0, 1 and more, where the partition allows
        return [PinGroup(_size_pins(ast.MemberSelect(v, f"Length{d}"), 0)) for d in range(int(kind[-1]))]
    if kind != "int":
        return []
    lower: list[Pin] = []
    upper: list[Pin] = []
    for t in [ast.IntLit(0), *edge_terms(compared_terms(var.name, literals, names, v))]:
        term = v if _is_zero(t) else ast.BinOp("-", v, t)
        try:
            lo = optimum(term, False)
            hi = optimum(term, True)
        except Unsupported:
            continue
        if term in optimum.mirrored:
            continue  # `j == i + 2` is `i == j - 2`: the mirror's pins are these scenarios already
        lo_ok, hi_ok = _finite(lo), _finite(hi)
        if lo_ok and hi_ok and lo == hi:
            continue  # v - t is constant in the partition: pinning it adds nothing
        # With the other side unbounded or a different value, the pin is known not to be implied.
        if lo_ok:
            lower.append(Pin(ast.BinOp("==", v, shifted(t, lo)), True, hi_ok or hi is not None))
        if hi_ok:
            upper.append(Pin(ast.BinOp("==", v, shifted(t, hi)), True, lo_ok or lo is not None))
        if var.is_output:
            # one step inside each edge too (an answer at index 1 or |a| - 2): a search that skips or
            # stops one short of an edge hands back the edge, and the edge pins alone pass it
            wide = lo_ok and hi_ok and hi - lo >= 2
            if lo_ok and (wide or (hi is not None and not hi_ok)):
                lower.append(Pin(ast.BinOp("==", v, shifted(t, lo + 1)), False, True))
            if hi_ok and (wide or (lo is not None and not lo_ok)):
                upper.append(Pin(ast.BinOp("==", v, shifted(t, hi - 1)), False, True))
    return [PinGroup(tuple(lower), lambda n: (ast.BinOp("==", v, _int(-n)),)),
            PinGroup(tuple(upper), lambda n: (ast.BinOp("==", v, _int(n)),))]


def object_pins(contract: Contract, var: Var, types: TypeIndex) -> list[PinGroup]:
    """An object input is null or not (where its type allows null), and the same object as an earlier
    input of a type it shares, where the partition allows."""
    if var.is_output:
        return []
    v = var.term
    pins: list[Pin] = []
    if isinstance(var.type, ast.NamedType) and var.type.name.endswith("?"):
        pins += [Pin(ast.BinOp("==", v, ast.NullLit())), Pin(ast.BinOp("!=", v, ast.NullLit()))]
    mine = types.decls.get(var.type.name.rstrip("?")) if isinstance(var.type, ast.NamedType) else None
    for other in contract.inputs:
        if other is var:
            break
        if isinstance(other.type, ast.NamedType) and types.decls.get(other.type.name.rstrip("?")) is mine \
                and mine is not None:
            pins.append(Pin(ast.BinOp("==", v, other.term)))
    return [PinGroup(tuple(pins))] if pins else []


def _size_pins(size: ast.Expr, least: int) -> tuple[Pin, ...]:
    """The least size, one more, and more than that: 0, 1 and > 1 for a collection that may be empty."""
    return tuple(Pin(e) for e in (ast.BinOp("==", size, ast.IntLit(least)),
                                  ast.BinOp("==", size, ast.IntLit(least + 1)),
                                  ast.BinOp(">", size, ast.IntLit(least + 1))))


def _finite(k: object) -> TypeGuard[int]:
    return isinstance(k, int) and not isinstance(k, bool)


def compared_terms(name: str, literals: tuple[ast.Expr, ...], names: set[str],
                   term: ast.Expr | None = None) -> list[ast.Expr]:
    """Terms that some comparison in the literals puts directly against `name` (or the `term` that names
    the variable in the contract, such as `old(this.n)`), in first-seen order."""
    out: list[ast.Expr] = []
    term = term if term is not None else ast.Name(name)

    def consider(a: ast.Expr, b: ast.Expr) -> None:
        for x, y in ((a, b), (b, a)):
            if x == term:
                fv = free_names(y)
                if name not in fv and fv <= names and y not in out and not _is_zero(y) and term not in walk(y):
                    out.append(y)

    for lit in literals:
        for n in walk(lit):
            if isinstance(n, ast.BinOp) and n.op in _COMPARISONS:
                consider(n.left, n.right)
            elif isinstance(n, ast.Chain):
                for a, b in zip(n.operands, n.operands[1:]):
                    consider(a, b)
    return out


def edge_terms(terms: list[ast.Expr]) -> list[ast.Expr]:
    """The terms whose edges can differ: `v - (t + k)` has the optimum of `v - t` shifted by k, so a
    constant (an edge of `v` itself) and a term differing from an earlier one by a constant add nothing but
    solver work. Each term is kept without its constant, in first-seen order."""
    out: list[ast.Expr] = []
    for t in terms:
        core = _without_constant(t)
        if core is not None and core not in out:
            out.append(core)
    return out


def _without_constant(t: ast.Expr) -> ast.Expr | None:
    """t with a trailing `+ k` / `- k` removed; None for a constant."""
    if isinstance(t, ast.IntLit) or (isinstance(t, ast.UnOp) and t.op == "-" and isinstance(t.operand, ast.IntLit)):
        return None
    if isinstance(t, ast.BinOp) and t.op in ("+", "-") and isinstance(t.right, ast.IntLit):
        return _without_constant(t.left)
    if isinstance(t, ast.BinOp) and t.op == "+" and isinstance(t.left, ast.IntLit):
        return _without_constant(t.right)
    return t


def shifted(t: ast.Expr, k: int) -> ast.Expr:
    """`t + k` printed nicely: a literal when t is one, `t`, `t + k` or `t - |k|`."""
    if isinstance(t, ast.IntLit):
        return _int(t.value + k)
    if isinstance(t, ast.UnOp) and t.op == "-" and isinstance(t.operand, ast.IntLit):
        return _int(k - t.operand.value)
    if k == 0:
        return t
    return ast.BinOp("+" if k > 0 else "-", t, ast.IntLit(abs(k)))


def _int(k: int) -> ast.Expr:
    return ast.IntLit(k) if k >= 0 else ast.UnOp("-", ast.IntLit(-k))


def _is_zero(t: ast.Expr) -> bool:
    return isinstance(t, ast.IntLit) and t.value == 0

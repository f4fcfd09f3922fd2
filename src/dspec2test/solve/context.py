"""Z3 contexts and queries of the Solver's own: term translation, recursive definitions, the watchdog
that stops a query at its time limit, and the process-wide switches (fresh_z3, skip_python_checks)."""

from __future__ import annotations

import z3

from collections.abc import Callable

from dspec2test.solve.watchdog import STALL_S, Watchdog

SEED = 0


def model_int(model: z3.ModelRef, term) -> int | None:
    """The value a model gives an integer term, or None where Z3's evaluator leaves it a term: an
    application of a recursive function (Z3 4.8.12 does not unfold those in a model), the integer part of an
    irrational real. (Such a term has no `as_long`: reading it so was an internal error.)"""
    value = model.eval(term, model_completion=True)
    if z3.is_int_value(value) or z3.is_bv_value(value):
        return value.as_long()
    if z3.is_rational_value(value) and value.denominator_as_long() == 1:
        return value.numerator_as_long()
    return None


class Z3Context:
    """A Z3 context of the Solver's own, so a query searches the same way whatever else ran before in
    this process (Z3's heuristics follow term ids, which depend on everything created earlier). Terms are
    built in the main context and translated here once."""

    def __init__(self, rec_defs: list, on_stall: Callable[[], None] | None = None, stall_s: float = STALL_S):
        self.ctx = z3.Context()
        self.rec_defs = rec_defs  # the encoder's recursive functions, defined here as they appear
        self.defined = 0
        self._cache: dict[int, tuple] = {}
        self.interrupted = False
        self.watch = Watchdog(self.ctx.interrupt, on_stall, stall_s)

    def tr(self, term):
        hit = self._cache.get(term.get_id())
        if hit is None:
            hit = (term, term.translate(self.ctx))  # keep the source alive so its id stays unique
            self._cache[term.get_id()] = hit
        return hit[1]

    def sync(self) -> None:
        for rec, formals, body in self.rec_defs[self.defined:]:
            sorts = [_sort_in(rec.domain(i), self.ctx) for i in range(rec.arity())]
            here = z3.RecFunction(rec.name(), *sorts, _sort_in(rec.range(), self.ctx))
            z3.RecAddDefinition(here, [f.translate(self.ctx) for f in formals], body.translate(self.ctx))
        self.defined = len(self.rec_defs)


class Query:
    """One Z3 solver in the Solver's context.

    The time limit is the context's watchdog (watchdog.py), not Z3's own `timeout`."""

    def __init__(self, z: Z3Context, timeout_ms: int, optimize: bool = False, budget: int = 0):
        self.z = z
        self.timeout_ms = timeout_ms
        self.timed_out = False  # the last check was stopped by the time limit
        self.solver = z3.Optimize(ctx=z.ctx) if optimize else z3.Solver(ctx=z.ctx)
        if not optimize:
            self.solver.set("random_seed", SEED)
            self.set_budget(budget)

    def set_budget(self, units: int) -> None:
        """Z3 resource limit of each later check (0: none); z3.Optimize ignores it, so never call it there."""
        self.solver.set("rlimit", units)

    def add(self, *formulas) -> None:
        self.z.sync()
        self.solver.add(*[self.z.tr(f) for f in formulas])

    def check(self, *assumptions):
        self.z.watch.arm(self.timeout_ms / 1000.0)
        try:
            return self.solver.check(*[self.z.tr(a) for a in assumptions])
        finally:
            self.timed_out = self.z.watch.disarm()
            if self.timed_out:
                self.z.interrupted = True  # the context may keep the cancel flag: later queries use a new one

    def model(self) -> z3.ModelRef:
        return self.solver.model()

    def core_names(self) -> set[str]:
        return {str(a) for a in self.solver.unsat_core()}

    def value(self, term) -> int | None:
        return model_int(self.model(), self.z.tr(term))

    def keep_model(self) -> None:
        """Remember the current model, for `first_value` after later checks have replaced it."""
        self.kept = self.solver.model()

    def first_value(self, term) -> int | None:
        return model_int(self.kept, self.z.tr(term))

    def push(self) -> None:
        self.solver.push()

    def pop(self) -> None:
        self.solver.pop()


def skip_python_checks() -> None:
    """Turn off the Python-side argument checks of Z3's API (`z3_debug`) in this process: they cost 10
    to 20% of generation, the encoder builds well-sorted terms, and Z3's C API still rejects ill-sorted
    ones. For the entry points (the CLI, the bench's generation worker), not for library use."""
    z3.z3.Z3_DEBUG = False


def fresh_z3() -> None:
    """Start Z3 afresh in this process: a new main context, so that a member's models do not depend on
    what the process solved before (Z3 shares terms and their order within a context). For a member's
    child process, before it builds any term; Z3 objects made earlier must not be used after it."""
    z3.z3._main_ctx = None


def _sort_in(sort: z3.SortRef, ctx: z3.Context) -> z3.SortRef:
    # SortRef.translate fails on sequence sorts in z3 4.8.12; a constant's translation carries the sort
    return z3.Const("_", sort).translate(ctx).sort()

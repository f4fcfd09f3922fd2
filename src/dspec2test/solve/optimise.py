"""Integer optimisation of a term under the constraints: Z3's optimiser where the facts are linear, else a
gallop away from a first model and a bisection, with one incremental probe solver per constraint set
and the optimum of the linear relaxation as a bound."""

from __future__ import annotations

from typing import Sequence

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.oracle import SolveResult, Unbounded
from dspec2test.solve.context import Query, Z3Context
from dspec2test.solve.core import SolverCore

PROBE_RLIMIT = 150_000  # one optimisation probe after the first model
# the probe far beyond a first model that tells unbounded terms apart: giving up there counts as unbounded
# anyway, so a larger budget only buys time for Z3 to unfold recursive functions at huge arguments
FAR_PROBE_RLIMIT = 15_000
UNBOUNDED_STEP = 1 << 20  # an optimum further than this from a first model counts as unbounded


class Optimisation(SolverCore):
    def optimize(self, term: ast.Expr, constraints: Sequence[ast.Expr], maximize: bool) -> int | Unbounded | None:
        """Integer optimum of term under the constraints; sequence lengths are not limited here."""
        try:
            self._unlimited = frozenset(v.name for v in self.vars)
            return self._optimize(term, constraints, maximize)
        except Unsupported:
            # some encodings (multiset of a sequence) need a length bound: optimise within the limit
            self._unlimited = frozenset()
            return self._optimize(term, constraints, maximize)
        finally:
            self._unlimited = frozenset()

    def _optimize(self, term: ast.Expr, constraints: Sequence[ast.Expr], maximize: bool) -> int | Unbounded | None:
        # z3.Optimize aborts the process on some sequence formulas (4.8.12), so search with a plain solver:
        # gallop away from a first model's value, then bisect between the last sat and the first unsat.
        goal = self.encoder._int(self.encoder.enc(term, self.env))
        if goal.sort() == z3.RealSort():
            goal = z3.ToInt(goal)
        facts = self._wf() + self._encode(constraints)
        if is_linear(facts + [goal >= 0]):  # Z3's optimiser is safe and quick only on linear arithmetic
            o = self._new(optimize=True)
            o.add(*facts)
            h = o.solver.maximize(o.z.tr(goal)) if maximize else o.solver.minimize(o.z.tr(goal))
            if self._run(o) is SolveResult.SAT:
                bound = o.solver.upper(h) if maximize else o.solver.lower(h)
                if "oo" in str(bound):
                    return Unbounded()
                if z3.is_int_value(bound):
                    return bound.as_long()
        prober = self._probe_solver(constraints, facts)
        if prober is None:
            return None
        s = prober
        sign = 1 if maximize else -1
        best = s.first_value(goal)
        if best is None:
            return None  # the model leaves the goal a term (a recursive function's value): no gallop from it
        # the optimum of the linear part bounds the true one: probes beyond it are unsat without asking
        # (and Z3's sequence solver, asked, often gives up on them instead)
        relaxed = self._relaxed_optimum(constraints, facts, goal, maximize)
        if relaxed == best or (relaxed is not None and self._attains(facts, goal, relaxed)):
            self.status_of_last = SolveResult.SAT
            return relaxed

        def beyond(v: int, budget: int = PROBE_RLIMIT) -> tuple[SolveResult, int | None]:
            # is a value at least as good as v possible?
            s.push()
            s.add(goal >= v if maximize else goal <= v)
            # set even when unchanged: setting a parameter resets Z3's search state, and skipping it
            # changes the models (and torneo's pins) that later probes find
            s.set_budget(budget)
            r = self._run(s)
            s.set_budget(PROBE_RLIMIT)
            found = s.value(goal) if r is SolveResult.SAT else None
            s.pop()
            if r is SolveResult.SAT and found is None:
                r = SolveResult.UNKNOWN  # a model whose goal Z3 does not evaluate tells no value
            if r is SolveResult.UNKNOWN:
                self._renew_prober(s, facts)
            return r, found

        if relaxed is None:
            # One probe far out settles the common unbounded case at once (galloping there takes ten); Z3
            # giving up that far beyond the length limit also counts as unbounded, as below.
            r, _ = beyond(best + sign * UNBOUNDED_STEP, FAR_PROBE_RLIMIT)
            if r is not SolveResult.UNSAT:
                self.status_of_last = SolveResult.SAT
                return Unbounded()
        step, worst_unsat = 1, None
        while worst_unsat is None:
            if relaxed is not None and sign * (best + sign * step - relaxed) > 0:
                worst_unsat = relaxed + sign  # the gallop would pass the bound: bisect up to it
                break
            if step > UNBOUNDED_STEP:
                self.status_of_last = SolveResult.SAT
                return Unbounded()
            r, found = beyond(best + sign * step)
            if r is SolveResult.UNKNOWN:
                # Z3's sequence theory gives up on long sequences: far beyond the length limit, call it unbounded
                if step > self.limit and relaxed is None:
                    self.status_of_last = SolveResult.SAT
                    return Unbounded()
                return None
            if r is SolveResult.SAT:
                assert found is not None  # a model gives a value
                best, step = found, step * 4
            else:
                worst_unsat = best + sign * step
        while abs(worst_unsat - best) > 1:
            mid = (best + worst_unsat) // 2
            r, found = beyond(mid)
            if r is SolveResult.UNKNOWN:
                return None
            if r is SolveResult.SAT:
                assert found is not None
                best = found
            else:
                worst_unsat = mid
        self.status_of_last = SolveResult.SAT
        return best

    def _attains(self, facts: list[z3.BoolRef], goal, value: int) -> bool:
        """Can goal be exactly value? Asked of a fresh solver: where the relaxation's bound is the optimum
        (most partitions), one query settles it, and Z3's incremental prober, pushed to a long array's far
        end, often gives up where a fresh search finds a model at once."""
        s = self._new(budget=PROBE_RLIMIT)
        s.add(*facts, goal == value)
        return self._run(s) is SolveResult.SAT

    def _relaxed_optimum(self, constraints: Sequence[ast.Expr], facts: list[z3.BoolRef], goal,
                         maximize: bool) -> int | None:
        """The optimum of goal under the facts' linear part, with each collection variable's length an integer
        of its own (a bound of the true optimum, found by Z3's optimiser in milliseconds where the full
        facts take a gallop of sequence queries); None when that part leaves the goal unbounded or is not
        linear."""
        key = (tuple(constraints), self._limits)
        if key not in self._relaxations:
            self._relaxations[key] = self._linear_part(facts)
        lengths, linear = self._relaxations[key]
        goal = z3.substitute(goal, *lengths) if lengths else goal
        if not linear or not is_linear(linear + [goal >= 0]):
            return None
        # a context of its own: the optimiser and the sequence solver sharing one crashes Z3 4.8.12
        if self._linear_z is None:
            self._linear_z = Z3Context([], self.on_stall)
        o = Query(self._linear_z, self.timeout_ms, optimize=True)
        o.add(*linear, *[n >= 0 for _, n in lengths])
        h = o.solver.maximize(o.z.tr(goal)) if maximize else o.solver.minimize(o.z.tr(goal))
        if o.check() != z3.sat:
            return None
        bound = o.solver.upper(h) if maximize else o.solver.lower(h)
        return bound.as_long() if z3.is_int_value(bound) else None

    def _linear_part(self, facts: list[z3.BoolRef]) -> tuple[list[tuple[z3.ArithRef, z3.ArithRef]], list[z3.BoolRef]]:
        lengths = [(z3.Length(v.tv.v), z3.Int(f"len!{v.name}")) for v in self._seq_vars()]
        linear = []
        for f in facts:
            g = z3.substitute(f, *lengths) if lengths else f
            if is_linear([g]):
                linear.append(g)
        return lengths, linear

    def _renew_prober(self, old: Query, facts: list[z3.BoolRef]) -> None:
        """A search cut by the resource limit can leave Z3 4.8.12's sequence solver broken (the next check
        on it may crash), so later optimisations get a new solver with the same facts and first model."""
        for key, q in list(self._probers.items()):
            if q is old and q.z is self.z:
                fresh = self._new(budget=PROBE_RLIMIT)
                fresh.add(*facts)
                fresh.kept = old.kept
                self._probers[key] = fresh

    def _probe_solver(self, constraints: Sequence[ast.Expr], facts: list[z3.BoolRef]) -> Query | None:
        """One incremental solver per constraint set, kept with its first model: every optimisation of a
        partition (each variable, term and direction) probes the same solver, which keeps what it learnt."""
        key = (tuple(constraints), self._limits)
        hit = self._probers.get(key)
        if hit is None or hit.z is not self.z:  # a new context after an interrupt: start over
            s = self._new()
            s.add(*facts)
            if self._run(s) is not SolveResult.SAT:
                return None
            s.keep_model()
            s.set_budget(PROBE_RLIMIT)
            self._probers[key] = hit = s
        return hit


def is_linear(facts: list) -> bool:
    """Quantifier-free linear integer/real arithmetic, no sequences and no (recursive) functions."""
    ctx = facts[0].ctx
    goal = z3.Goal(ctx=ctx)
    goal.add(*facts)
    # Z3 4.8.12's probe rejects subtraction (`i - j`); simplified, that is `i + -1*j`, which it accepts
    simple = z3.Tactic("simplify", ctx=ctx)(goal)
    return all(z3.Probe("is-qflira", ctx=ctx)(g) == 1.0 for g in simple)

"""The one place that runs Z3, put together from its concerns (core.py and the modules it names):
satisfiability and models, with readable preferences, the relevance tier and the bounded fallback;
optimisation; uniqueness; questions about given values."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from math import floor
from typing import Sequence

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.oracle import Model, SolveResult
from dspec2test.solve.bounded import BoundedFallback
from dspec2test.solve.factories import Factories
from dspec2test.solve.optimise import Optimisation
from dspec2test.solve.prefer import NICE_UNSAT, Pref, PreferenceTier, Tier
from dspec2test.solve.probing import Probing
from dspec2test.solve.readable import chars_in
from dspec2test.solve.standard import StandardFunctions
from dspec2test.solve.types import DATA_DEPTH
from dspec2test.solve.uniqueness import Uniqueness
from dspec2test.solve.values import and_

PREFER_RLIMIT = 300_000  # a preference tier: fall back to the next tier when it is not met quickly


class Solver(BoundedFallback, PreferenceTier, Optimisation, Uniqueness, StandardFunctions, Factories, Probing):
    """Z3 queries about one member's variables (oracle.SolverLike). Each query starts a fresh Z3 solver."""

    def check(self, constraints: Sequence[ast.Expr], budget: int = 0) -> SolveResult:
        """Satisfiability; `budget` limits each query by Z3's resource counter (0: the clock only)."""
        def fallback() -> SolveResult:
            # a standard function where Z3 found none (standard.py): adopted, the question is asked again
            return self._widened(self._check, constraints, budget) if self.standard_functions() \
                else SolveResult.UNKNOWN

        return self._widened(self._check, constraints, budget, fallback=fallback)

    def valid(self, e: ast.Expr, budget: int) -> bool:
        """Does `e` hold for every value of the member's variables (their types' constraints assumed)? Within
        `budget`; never adopting anything on the way (check's fallback may), so asking changes no later answer."""
        try:
            return self._widened(self._check, [ast.UnOp("!", e)], budget) is SolveResult.UNSAT
        except Unsupported:
            return False

    def _check(self, constraints: Sequence[ast.Expr], budget: int = 0) -> SolveResult:
        s = self._new(budget=budget)
        s.add(*self._wf(), *self._encode(constraints))
        return self._run(s)

    def solve(self, constraints: Sequence[ast.Expr], exclude: Sequence[Model] = (),
              relevant: Sequence[ast.Expr] | None = None, avoid: Sequence[Model] = ()) -> Model | None:
        """A model of the constraints whose inputs differ from those of `exclude`, and preferably from
        those of `avoid` (earlier scenarios of the partition). `relevant`: the contract literals among the
        constraints whose relevance is preferred (default all; a BVA pin is no contract literal)."""
        self._bounded_done = False
        preferred = constraints if relevant is None else relevant

        def fallback() -> Model | None:
            found = None if self._bounded_done else self._bounded(constraints, exclude, avoid)
            if found is None and self.standard_functions():
                found = self._solve(constraints, exclude, preferred, avoid)
            return found if found is not None else self._requires_alone(exclude)

        found = self._widened(self._solve, constraints, exclude, preferred, avoid, fallback=fallback)
        # an irrational real in Z3's model (x * x == 2.0 || x == 1.5 met at sqrt(2)): its literal is an
        # approximation the requires reject. Solved again away from it, a few times, where another value
        # may be rational
        away: tuple[ast.Expr, ...] = ()
        for _ in range(IRRATIONAL_RETRIES):
            if found is None or not found.inexact:
                return found
            away += tuple(_away_from(name, found.raw[name]) for name in found.inexact if "." not in name)
            again = self._widened(self._solve, (*constraints, *away), exclude, preferred, avoid)
            if again is None:
                return found
            found = again
        return found

    def _solve(self, constraints: Sequence[ast.Expr], exclude: Sequence[Model],
               relevant: Sequence[ast.Expr], avoid: Sequence[Model] = ()) -> Model | None:
        base = self._wf() + self._encode(constraints)
        for m in exclude:
            base += self._differs(m)
        mentioned = frozenset(chars_in(constraints))
        nice = self._nice(mentioned)
        distinct = self._distinct()
        # ranks (0 most wanted): relevance goals, distinct elements, values away from 0 and 1, values above 1
        # and three elements, inputs new to the partition
        prefs: list[Pref] = [(lit, 0, f) for lit, f in self.relevance.goals(relevant, limited=not self._unlimited)]
        prefs += [("distinct", 1, and_(distinct))] if distinct else []
        # where the partition needs a repeated element, neighbours still differ: "abcb", not "bbbb"
        prefs += [("neighbours", 1, and_(self._neighbours()))] if distinct else []
        # objects whose fields differ from each other's: a copy that copies nothing shows
        prefs += [("objects differ", 1, and_(self._objects_differ))] if self._objects_differ else []
        prefs += [((name, k, n), 2 + k, f) for n, (name, k, f) in enumerate(self._nontrivial(len(avoid)))]
        fresh = [d for m in avoid for d in self._differs(m)]
        prefs += [("fresh", 4, and_(fresh))] if fresh else []
        found: Model | Tier | None = None
        if prefs:
            found = self._relevant(base + nice, prefs)
            if isinstance(found, Model):
                return found
        tiers = ([nice + distinct] if distinct else []) + [nice, self._nice(None), []]
        if prefs and found is NICE_UNSAT:
            tiers = tiers[-2:]  # the constraints with `nice` are unsat: the tiers with it would be too
        for k, extra in enumerate(tiers):
            last = k == len(tiers) - 1
            if last and k > 0 and self.status_of_last is SolveResult.UNKNOWN and not self._unlimited:
                # the tier before gave up within its budget: small shapes first, before the last tier
                # waits out the clock (which, as a backstop, also makes the answer depend on the machine)
                found = self._bounded(constraints, exclude, avoid)
                self._bounded_done = True
                if found is not None:
                    return found
            # a preference only: do not spend the whole time limit on it; the last tier has none
            s = self._new(budget=PREFER_RLIMIT if not last else 0)
            s.add(*base, *extra)
            if self._run(s) is SolveResult.SAT:
                return self._model(s.model())
        return None

    def rebuilt_for_requires(self, exclude: Sequence[Model]) -> Model | None:
        """Where inputs solved without their datatype fields' constraints (defer_field_constraints) broke
        them: once per member, those constraints back and the inputs built solving what the requires read."""
        if self.fixed_given or not self.large:
            return None
        deferred, built = self.types.field_depth, dict(self.built)
        self.types.field_depth = DATA_DEPTH
        self._wf_cache.clear()
        found = self._requires_alone(exclude)
        if self.built == built:  # nothing built again: the fields' constraints stay deferred, as before
            self.types.field_depth = deferred
            self._wf_cache.clear()
        return found

    def _requires_alone(self, exclude: Sequence[Model]) -> Model | None:
        """Once per member with large inputs, where Z3 gave up on a scenario: the inputs built from their
        witnesses solving only what the requires read (probing.fixed_inputs), and solved for the requires
        alone. The test checks every clause on them, whichever partition they fall in."""
        fixed, notes = self.fixed_inputs()
        why = "; ".join(notes)
        if fixed is not None:
            return replace(fixed, fixed=f"{why}: no usable input was solved for the scenario, so the test has these "
                                        f"values whatever the partition")
        if not notes or self.contract is None:
            return None
        requires = [cl.expr for cl in self.contract.requires]
        found = self._solve(requires, exclude, requires)
        return replace(found, fixed=f"{why}: no usable input was solved for the scenario, so the test's inputs "
                                    f"are solved for the requires alone, whatever the partition") if found else None


IRRATIONAL_RETRIES = 2
_WIDTH = Fraction(1, 10 ** 5)  # the interval around an irrational value a model held, left out when solving again


def _away_from(name: str, value: Fraction) -> ast.Expr:
    """`x < lo || x > hi`: an interval of finite decimals around an approximated value, left out."""
    lo = Fraction(floor(value / _WIDTH)) * _WIDTH - _WIDTH
    hi = lo + 3 * _WIDTH
    return ast.BinOp("||", ast.BinOp("<", ast.Name(name), _real(lo)), ast.BinOp(">", ast.Name(name), _real(hi)))


def _real(x: Fraction) -> ast.Expr:
    """The literal of a finite decimal (a multiple of _WIDTH)."""
    digits = 5
    whole, frac = divmod(abs(int(x * 10 ** digits)), 10 ** digits)
    text = ast.RealLit(f"{whole}.{frac:0{digits}d}")
    return ast.UnOp("-", text) if x < 0 else text

"""The first preference tier of a solve (DESIGN.md section 3, Relevance): the relevance goals and the
readability preferences as tracked assumptions, given up by unsat cores and timeouts, and what was given
up remembered for the partition's later scenarios."""

from __future__ import annotations

from enum import Enum
from typing import Hashable

import z3

from dspec2test.oracle import Model, SolveResult
from dspec2test.solve.readable import ReadableModels

RELEVANCE_TRIES = 2  # relevance queries per solve that may give up; the quick unsat-core ones count apart
RELEVANCE_CORES = 8  # relevance queries per solve at most
RELEVANCE_RLIMIT = 300_000  # each relevance query


class Tier(Enum):
    NICE_UNSAT = "nice-unsat"  # `_relevant`'s answer when its base (constraints and readability) is unsat


NICE_UNSAT = Tier.NICE_UNSAT
Pref = tuple[Hashable, int, z3.BoolRef]  # a preference: its key (a literal or a name), rank (0 most wanted), formula


class PreferenceTier(ReadableModels):
    def _relevant(self, base: list, prefs: list[Pref]) -> Model | Tier | None:
        """The first preference tier (DESIGN.md section 3, Relevance): every preference as a tracked
        assumption, a few short queries at most. An unsat core drops its least wanted preferences; a
        timeout drops all but the goals, then the last goal, and is remembered for the next scenario
        with the same preferences. None: fall back to the ordinary tiers; NICE_UNSAT: the same, knowing
        that `base` itself is unsat."""
        keys = [k for k, _, _ in prefs if k != "fresh"]  # scenarios of a partition share these
        dropped = self.relevance.learned(keys)
        cored = self.relevance.cored(keys)
        # a formula, not only its key, must match: the sign preference changes from scenario to scenario
        live = [p for p in prefs if p[0] not in dropped
                and not any(p[0] == k and p[2].eq(f) for k, f in cored or ())]
        first = list(live)
        if not live:
            return None
        fixed = self._fixed_lengths()
        if fixed is not None:
            prefs = prefs + [fixed]
            if frozenset(keys) in self._fix_lengths:  # an earlier scenario needed them: from the start
                live = [fixed] + live
        flag = {k: z3.Bool(f"prefer!{n}") for n, (k, _, _) in enumerate(prefs)}
        found: Model | Tier | None = None
        slow: set[Hashable] = set()
        timeouts, s = 0, None
        for _ in range(RELEVANCE_CORES):
            if s is None:  # a fresh query after a timeout: an interrupted search leaves Z3 worse off
                s = self._new(budget=RELEVANCE_RLIMIT)
                s.add(*base)
                s.add(*[z3.Implies(flag[k], f) for k, _, f in live])
            r = self._run(s, *[flag[k] for k, _, _ in live])
            if r is SolveResult.SAT:
                found = self._model(s.model())
                break
            timeouts += r is SolveResult.UNKNOWN
            core = s.core_names() if r is SolveResult.UNSAT else set()
            if r is SolveResult.UNSAT and not core:
                found = NICE_UNSAT  # unsat without any preference: the tiers with `nice` would be too
                break
            if core:  # the least wanted (highest rank) in the core go
                blamed = [p for p in live if str(flag[p[0]]) in core]
                least = max(rank for _, rank, _ in blamed)
                out = [p for p in blamed if p[1] == least]
            elif fixed is not None and fixed not in live:
                # a timeout with free lengths: Z3's sequence solver is far quicker on fixed ones, so try
                # those before giving anything up (remembered for the partition's next scenarios)
                live = [fixed] + live
                self._fix_lengths.add(frozenset(keys))
                timeouts -= 1
                s = None
                continue
            else:  # a timeout: the query is hard, keep only the goals, then one goal fewer
                out = [p for p in live if p[1] > 0] or live[-1:]
            live = [p for p in live if p not in out]
            if not core:
                slow |= {k for k, _, _ in out}
                s = None
            if not live or timeouts >= RELEVANCE_TRIES:
                break
        if slow:  # timeouts are remembered for every later scenario with these preferences
            self.relevance.learn(keys, dropped | slow)
        if cored is None and isinstance(found, Model):
            kept = {id(p) for p in live}
            self.relevance.learn_cored(keys, tuple((p[0], p[2]) for p in first
                                                   if id(p) not in kept and p[0] not in slow and p[0] != "fresh"))
        return found

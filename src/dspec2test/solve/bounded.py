"""Small shapes for the bounded fallback of the solver.

When Z3 gives up on a scenario (unknown, or out of its budget), a witness of small size often still
exists (`[[], [0]]` for "not all rows have one length"). Fixing every collection input's length (0 to 3,
then up to 6) and, failing that, small values of the integer inputs leaves a problem Z3 decides at once:
quantifier expansions over the fixed ranges are exact, and the sequence theory has no length to guess.
A shape is a set of such equalities; shapes come smallest first.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import z3

from dspec2test.dafny import ast
from dspec2test.oracle import Model, SolveResult
from dspec2test.solve.core import SolverVar
from dspec2test.solve.readable import ReadableModels, chars_in
from dspec2test.solve.values import MapV, MultisetV, SetV, and_

SMALL_LENGTHS = (0, 1, 2, 3)
MORE_LENGTHS = (0, 1, 2, 3, 4, 5, 6)
SMALL_INTS = (0, 1, -1, 2, -2, 3, -3)
MAX_DIMS = 4  # variables fixed at once; the others stay free
# Each small shape is one query of this budget, at most BOUNDED_TRIES shapes per scenario (it stops after
# BOUNDED_GIVE_UPS give-ups in a row: what defeats Z3 then is no length it could guess), and at most
# core.BOUNDED_QUERIES for all of a member's scenarios. Counted, not timed, so that a busy machine gives the
# same tests.
BOUNDED_RLIMIT = 200_000
BOUNDED_TRIES = 24
BOUNDED_GIVE_UPS = 6
BOUNDED_MS = 3000  # the clock's backstop for one of them


@dataclass(frozen=True)
class Dim:
    """One quantity a shape fixes: a collection's length or an integer input."""

    text: str  # how a reader writes it: `|s|`, `a.Length`, `x`
    term: z3.ArithRef


@dataclass(frozen=True)
class Shape:
    text: str  # `|s| == 2, x == 0`
    facts: tuple[z3.BoolRef, ...]


def shapes(lengths: list[Dim], ints: list[Dim]) -> Iterator[Shape]:
    """Lengths within SMALL_LENGTHS, then within MORE_LENGTHS; then small integers as well (lengths small).
    Each stage smallest total first; a shape is never offered twice."""
    seen: set[tuple] = set()
    lengths, ints = lengths[:MAX_DIMS], ints[:MAX_DIMS]
    stages: list[list[tuple[Dim, tuple[int, ...]]]] = []
    if lengths:
        stages += [[(d, SMALL_LENGTHS) for d in lengths], [(d, MORE_LENGTHS) for d in lengths]]
    if ints:
        stages.append([(d, SMALL_LENGTHS) for d in lengths] + [(d, SMALL_INTS) for d in ints])
    for stage in stages:
        for pick in _smallest_first([len(values) for _, values in stage]):
            chosen = tuple((d.text, values[k]) for (d, values), k in zip(stage, pick))
            if chosen in seen:
                continue
            seen.add(chosen)
            yield Shape(", ".join(f"{t} == {v}" for t, v in chosen),
                        tuple(d.term == values[k] for (d, values), k in zip(stage, pick)))


def _smallest_first(sizes: list[int]) -> Iterator[tuple[int, ...]]:
    """Index tuples over ranges of the given sizes, by increasing sum (values are ordered smallest first),
    made lazily: the caller stops after a few."""
    for total in range(sum(n - 1 for n in sizes) + 1):
        yield from _with_sum(sizes, total)


def _with_sum(sizes: list[int], total: int) -> Iterator[tuple[int, ...]]:
    if not sizes:
        if total == 0:
            yield ()
        return
    rest_max = sum(n - 1 for n in sizes[1:])
    for k in range(max(0, total - rest_max), min(sizes[0] - 1, total) + 1):
        for tail in _with_sum(sizes[1:], total - k):
            yield (k,) + tail


class BoundedFallback(ReadableModels):
    """The fallback for a scenario Z3 gave up on: the first small shape under which it finds a model."""

    def _bounded(self, constraints: Sequence[ast.Expr], exclude: Sequence[Model],
                 avoid: Sequence[Model] = ()) -> Model | None:
        """The bounded fallback (bounded.py): the first small shape of the inputs under which Z3 finds a model,
        within BOUNDED_TRIES shapes and the member's BOUNDED_QUERIES. In the shape that has one, readable values
        with distinct elements, new to the partition (`avoid`), are asked for next, as the ordinary tiers do."""
        found = None
        base = self._wf() + self._encode(constraints) + [d for m in exclude for d in self._differs(m)]
        wanted = and_(self._nice(frozenset(chars_in(constraints))) + self._distinct()
                      + [d for m in avoid for d in self._differs(m)])
        gave_up = 0
        # its queries are the fallback's own: one the clock stops (Z3 past its budget on a busy machine)
        # must not shorten the limit of the member's later queries, nor wait out the whole limit
        timeouts, limit = self.timeouts, self.timeout_ms
        self.timeout_ms = min(limit, BOUNDED_MS)
        try:
            for k, shape in enumerate(shapes(*self._shape_dims())):
                if k >= BOUNDED_TRIES or self.bounded_left <= 0 or gave_up >= BOUNDED_GIVE_UPS:
                    break
                self.bounded_left -= 1
                s = self._new(budget=BOUNDED_RLIMIT)
                s.add(*base, *shape.facts)
                r = self._run(s)
                if r is SolveResult.SAT:
                    found = replace(self._model(s.model()), bounded=shape.text)
                    # the shape has a model: a readable one, new to the partition, if one is as quick
                    s.add(wanted)
                    if self._run(s) is SolveResult.SAT:
                        found = replace(self._model(s.model()), bounded=shape.text)
                    break
                gave_up = gave_up + 1 if r is SolveResult.UNKNOWN else 0
        finally:
            self.timeouts, self.timeout_ms = timeouts, limit
        self.status_of_last = SolveResult.SAT if found is not None else SolveResult.UNKNOWN
        return found

    def _shape_dims(self) -> tuple[list[Dim], list[Dim]]:
        """What a shape fixes: the lengths of the collection inputs (of the outputs, for a member without
        any), and the integer inputs."""
        ins = [v for v in self.vars if not v.output]
        lengths = [d for v in ins if (d := self._length_dim(v)) is not None]
        if not lengths:
            lengths = [d for v in self.vars if v.output and (d := self._length_dim(v)) is not None]
        ints = [Dim(v.name, v.tv.v) for v in ins if v.tv.t.base.kind == "int" and isinstance(v.tv.v, z3.ArithRef)]
        return lengths, ints

    def _length_dim(self, v: SolverVar) -> Dim | None:
        b = v.tv.t.base
        if b.kind == "array" and isinstance(v.tv.v, z3.SeqRef):
            return Dim(f"{v.name}.Length", z3.Length(v.tv.v))
        if b.kind == "seq" and isinstance(v.tv.v, z3.SeqRef):
            return Dim(f"|{v.name}|", z3.Length(v.tv.v))
        if isinstance(v.tv.v, (SetV, MultisetV)) and v.tv.v.rep is not None:
            return Dim(f"|{v.name}|", z3.Length(v.tv.v.rep))
        if isinstance(v.tv.v, MapV) and v.tv.v.rep is not None:
            return Dim(f"|{v.name}|", z3.Length(self.types.sort(b).accessor(0, 0)(v.tv.v.rep)))
        return None

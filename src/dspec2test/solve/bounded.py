"""Small shapes for the bounded fallback of the solver.

When Z3 gives up on a scenario (unknown, or out of its budget), a witness of small size often still
exists (`[[], [0]]` for "not all rows have one length"). Fixing every collection input's length (0 to 3,
then up to 6) and, failing that, small values of the integer inputs leaves a problem Z3 decides at once:
quantifier expansions over the fixed ranges are exact, and the sequence theory has no length to guess.
A shape is a set of such equalities; shapes come smallest first.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import z3

SMALL_LENGTHS = (0, 1, 2, 3)
MORE_LENGTHS = (0, 1, 2, 3, 4, 5, 6)
SMALL_INTS = (0, 1, -1, 2, -2, 3, -3)
MAX_DIMS = 4  # variables fixed at once; the others stay free


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

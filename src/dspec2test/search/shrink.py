"""Shrinking a failing input, as property-based testing tools do: smaller neighbours of it (shorter
collections, smaller numbers, simpler constructors) that the requires still admit, that stay in the same
partition, and that still fail the same check (or still crash), run on the implementation through the
compiled harness; the smallest becomes the input, and again until none is smaller.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from dspec2test.model.resolve import RType
from dspec2test.search.domains import Fields, int_bounds, size
from dspec2test.search.harness import Entry
from dspec2test.search.worker import CRASHED, Descriptors, Worker, WorkerDied
from dspec2test.solve.literal import Data

ROUNDS = 60  # improvements at most
PER_ROUND = 300  # neighbours tried per round at most
SHRINK_S = 6.0  # wall time of one input's shrinking
CANDIDATE_CPU_S = 0.5  # CPU time of one candidate's run (the implementation runs)


def total_size(values: Sequence[Any]) -> tuple[int, int]:
    parts = [size(v) for v in values]
    return (sum(n for n, _ in parts), sum(m for _, m in parts))


def shrink(worker: Worker, entry: Entry, d: Descriptors, types: Sequence[RType], fields: Fields,
           start: tuple, code: int, projections: Sequence[str]) -> tuple:
    """The smallest input found from `start` that the requires admit, on which `projections` hold (its
    partition), and whose run ends in `code` (a failed check's number, or CRASHED) as start's does."""
    current = start
    began = time.monotonic()
    want = set(projections)
    for _ in range(ROUNDS):
        if time.monotonic() - began > SHRINK_S:
            break
        here = total_size(current)
        seen: set[str] = set()
        cands = []
        for cand in _neighbours(current, types, fields):
            key = repr(cand)
            if key in seen or total_size(cand) >= here:
                continue
            seen.add(key)
            cands.append(cand)
            if len(cands) >= PER_ROUND:
                break
        if not cands:
            break
        cands.sort(key=total_size)
        try:
            rows = worker.admit(entry.admit, tuple(want), d, cands, CANDIDATE_CPU_S)
            inside = [c for c, row in zip(cands, rows) if row is not None and row[0] == 0
                      and all(bit is True for bit in row[1])]
            if not inside:
                break
            ran = worker.run(entry.run, d, inside, CANDIDATE_CPU_S)
        except WorkerDied:
            break
        same = [c for c, got in zip(inside, ran) if got == code and (code != CRASHED or got == CRASHED)]
        if not same:
            break
        current = min(same, key=total_size)
    return current


def _neighbours(values: tuple, types: Sequence[RType], fields: Fields) -> Iterator[tuple]:
    """The inputs one step smaller than `values`: one input at a time made smaller."""
    for i, (v, t) in enumerate(zip(values, types)):
        for smaller in smaller_values(v, t, fields):
            yield values[:i] + (smaller,) + values[i + 1:]


def smaller_values(v: Any, t: RType, fields: Fields, depth: int = 0) -> Iterator[Any]:
    """Values of t like v but smaller, the boldest first."""
    b = t.base
    k = b.kind
    if k in ("int", "bv") and isinstance(v, int) and not isinstance(v, bool):
        lo, hi = int_bounds(t)
        for x in dict.fromkeys((0, lo, v // 2, v - 1 if v > 0 else v + 1, -v if v < 0 else v)):
            if x is not None and x != v and (lo is None or x >= lo) and (hi is None or x <= hi):
                yield x
    elif k == "bool" and v is True:
        yield False
    elif k == "real" and isinstance(v, Fraction) and v != 0:
        yield Fraction(0)
        if v.denominator != 1:
            yield Fraction(int(v))
    elif k in ("seq", "array", "multiset") and isinstance(v, tuple):
        n = len(v)
        if n:
            yield ()
        if n > 1:
            yield v[:n // 2]
            yield v[n // 2:]
        for i in range(n):
            yield v[:i] + v[i + 1:]
        if depth < 2:
            for i, x in enumerate(v):
                for s in smaller_values(x, b.args[0], fields, depth + 1):
                    yield v[:i] + (s,) + v[i + 1:]
    elif k == "set" and isinstance(v, frozenset):
        if v:
            yield frozenset()
        for x in sorted(v, key=repr):
            yield v - {x}
    elif k == "map" and isinstance(v, tuple):
        if v:
            yield ()
        for i in range(len(v)):
            yield v[:i] + v[i + 1:]
        if depth < 2:
            for i, (key, val) in enumerate(v):
                for s in smaller_values(val, b.args[1], fields, depth + 1):
                    yield v[:i] + ((key, s),) + v[i + 1:]
    elif k == "tuple" and isinstance(v, tuple):
        for i, (x, et) in enumerate(zip(v, b.args)):
            for s in smaller_values(x, et, fields, depth + 1):
                yield v[:i] + (s,) + v[i + 1:]
    elif k == "data" and isinstance(v, Data):
        decl, _ = b.datatype
        for ctor in decl.ctors:  # a constructor without fields, then a part of the same type
            if not fields(b, ctor) and ctor.name != v.ctor:
                yield Data(ctor.name, ())
        same = [c for c in decl.ctors if c.name == v.ctor]
        if not same:
            return
        fts = fields(b, same[0])
        for x, (_, ft) in zip(v.args, fts):
            if ft.base == b and isinstance(x, Data):
                yield x
        if depth < 3:
            for i, (x, (_, ft)) in enumerate(zip(v.args, fts)):
                for s in smaller_values(x, ft, fields, depth + 1):
                    yield Data(v.ctor, v.args[:i] + (s,) + v.args[i + 1:])

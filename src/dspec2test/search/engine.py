"""One member's search: candidates (every small input first, then biased random ones) run through the compiled
contract in batches, admitted by its requires and sorted into partitions by their projections, then a few of
each partition's chosen for variety (select.py). Deterministic: the random candidates are seeded by the
member's name, the worker's answers depend only on the program.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from dspec2test.model.resolve import RType
from dspec2test.search.compiled import Compiled
from dspec2test.search.domains import Domain, Fields, Unsearchable, Vocabulary, combined, size
from dspec2test.search.harness import Entry
from dspec2test.search.objects import Calls
from dspec2test.search.select import choose
from dspec2test.search.worker import Descriptors, Worker, WorkerDied, descriptors

SMALL_BUDGET = 3000  # small-scope candidates at most
RANDOM_BUDGET = 1500  # random ones at most
BATCH = 250
ENOUGH = 48  # admitted candidates of each origin a partition needs no more than
CANDIDATE_CPU_S = 0.1  # CPU time the checks may take on one candidate
SEARCH_S = 8.0  # wall time of one member's search at most


@dataclass(frozen=True)
class Candidate:
    values: dict[str, object]  # input -> plain value
    origin: str  # "small" (exhaustive small scope) or "random"
    state: frozenset[str] = frozenset()  # features of what its objects hold once made (worker.state)

    @property
    def objects(self) -> bool:
        """Some input is an object made by calls (no solver can fix its state)."""
        return any(isinstance(v, Calls) for v in self.values.values())

    @property
    def size(self) -> tuple[int, int]:
        parts = [size(v) for v in self.values.values()]
        return (sum(n for n, _ in parts), sum(m for _, m in parts))


@dataclass(frozen=True)
class Pool:
    """The candidates the requires admitted, each with the projections (clause branches) that hold on it."""

    found: tuple[tuple[Candidate, frozenset[str]], ...] = ()
    tried: int = 0
    reason: str = ""  # why the search found nothing (an input type it cannot make, the worker died, ...)

    def matching(self, names: Sequence[str]) -> list[Candidate]:
        """The admitted candidates on which all the named projections hold, in the order found."""
        want = set(names)
        return [c for c, holds in self.found if want <= holds]

    def choose(self, partitions: Sequence[tuple[int, tuple[str, ...]]], types: dict[str, RType], per: int,
               chars: Sequence[int] = ()) -> dict[int, tuple[Candidate, ...]]:
        """Per partition (id, its projections), up to `per` candidates in it, chosen for variety."""
        chosen: dict[int, tuple[Candidate, ...]] = {}
        for pid, ps in partitions:
            mine = self.matching(ps)
            picks = choose([c.values for c in mine], types, per, chars, [c.state for c in mine])
            if picks:
                chosen[pid] = tuple(mine[i] for i in picks)
        return chosen


def seed_of(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")


def search_member(compiled: Compiled, entry: Entry, types: dict[str, RType], fields: Fields, vocab: Vocabulary) -> Pool:
    """Candidates run through the member's compiled requires and projections until every projection (clause
    branch) has ENOUGH small and ENOUGH random admitted candidates, or the budgets are spent. `types`: each
    input's type."""
    try:
        ordered = [types[name] for name in entry.params]
    except KeyError as exc:
        return Pool(reason=f"no type for input {exc}")
    domain = Domain(vocab, fields, Random(seed_of(entry.member)), compiled.harness.classes)
    try:
        smalls = [domain.small(t) for t in ordered]
        d = descriptors(ordered, compiled.harness.makers, fields, compiled.harness.classes)
    except (Unsearchable, ValueError, KeyError) as exc:
        return Pool(reason=f"the search cannot make an input of this type ({exc})")
    projs = tuple(dict.fromkeys(p for row in entry.projections if row for p in row if p is not None))
    found: list[tuple[Candidate, frozenset[str]]] = []
    counts: dict[tuple[str, str], int] = {}  # (origin, projection or "") -> admitted candidates
    tried = 0
    start = time.monotonic()
    seen: set[tuple] = set()

    def fresh(values: tuple) -> bool:
        key = tuple(repr(v) for v in values)
        if key in seen:
            return False
        seen.add(key)
        return True

    def need(origin: str) -> bool:
        """Whether a projection still wants candidates of this origin: each gets ENOUGH small ones and ENOUGH
        random ones, so a branch the small inputs fill still sees values of other sizes."""
        if time.monotonic() - start > SEARCH_S:
            return False
        return any(counts.get((origin, p), 0) < ENOUGH for p in ("",) + projs)

    def add(batch: list[tuple], origin: str) -> None:
        for cand, holds in _admitted(worker, entry, projs, d, batch, origin):
            found.append((cand, holds))
            for p in ("",) + tuple(holds):
                counts[(origin, p)] = counts.get((origin, p), 0) + 1

    try:
        with Worker(compiled.pydir, compiled.unicode) as worker:
            for origin, source in (("small", combined(smalls, SMALL_BUDGET)),
                                   ("random", _randoms(domain, ordered, RANDOM_BUDGET))):
                batch: list[tuple] = []
                for values in source:
                    if not fresh(values):
                        continue
                    batch.append(values)
                    if len(batch) >= BATCH:
                        tried += len(batch)
                        add(batch, origin)
                        batch = []
                        if not need(origin):
                            break
                if batch and need(origin):
                    tried += len(batch)
                    add(batch, origin)
    except WorkerDied as exc:
        if not found:
            return Pool(tried=tried, reason=f"the compiled contract could not be run ({exc})")
    return Pool(tuple(found), tried)


def _admitted(worker: Worker, entry: Entry, projs: tuple[str, ...], d: Descriptors, batch: list[tuple],
              origin: str) -> list[tuple[Candidate, frozenset[str]]]:
    out = []
    rows = worker.admit(entry.admit, projs, d, batch, CANDIDATE_CPU_S, state=True)
    for values, row in zip(batch, rows):
        if row is None or row[0] != 0:
            continue
        holds = frozenset(p for p, bit in zip(projs, row[1]) if bit is True)
        named = frozenset(f"{entry.params[int(i)]}.{rest}" for i, _, rest in (f.partition(".") for f in row[2]))
        out.append((Candidate(dict(zip(entry.params, values)), origin, named), holds))
    return out


def _randoms(domain: Domain, types: list[RType], n: int):
    for _ in range(n):
        yield tuple(domain.random(t) for t in types)

"""Candidate values of a Dafny type: every small one in order of size (small scope), and biased random ones.

Values are the solver's plain values (solve/literal.py): int for integers, characters (code points) and
bitvectors; bool; Fraction; a tuple for a sequence, string or array; a frozenset for a set; a sorted tuple for
a multiset; a tuple of (key, value) pairs for a map; a tuple for a tuple; `Data` for a datatype value. So a
candidate prints and pins the way a model does. Subset types and newtypes take their base type's values: the
compiled contract (the acceptor) rejects those outside the constraint.

What the contract names matters most: its integer and character constants (and their neighbours) come first
(`Vocabulary`), so a separator named only in a helper predicate is among the characters tried.
"""

from __future__ import annotations

from random import Random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from dspec2test.dafny import ast
from dspec2test.model.resolve import RType
from dspec2test.model.walk import comparisons, conjuncts, is_name, walk
from dspec2test.search.objects import Calls, ClassPlan, class_key
from dspec2test.solve.literal import Data

# (datatype, constructor) -> (field name, field type) per formal, type arguments substituted
Fields = Callable[[RType, ast.Ctor], list[tuple[str, RType]]]

SMALL_LENGTH = 3  # collections up to this size are enumerated exhaustively
ALPHABET = 4  # over the first this many small values of their element type
DATA_DEPTH = 3  # constructors nested this deep at most
MAX_SMALL = 400  # small values of one type kept at most (in order of size)
RANDOM_LENGTH = 8  # random collections up to this size


class Unsearchable(Exception):
    """A type the search does not make values of (functions, objects, multi-dimensional arrays)."""


@dataclass(frozen=True)
class Vocabulary:
    """The constants a contract (and what it calls) names: tried before any other value."""

    ints: tuple[int, ...] = (0, 1, -1, 2, -2)
    chars: tuple[int, ...] = (ord("a"), ord("b"))

    @staticmethod
    def of(nodes: Iterable[ast.Node]) -> Vocabulary:
        ints: list[int] = [0, 1, -1, 2]
        chars: list[int] = []
        for root in nodes:
            for n in walk(root):
                if isinstance(n, ast.IntLit):
                    for x in (n.value, n.value - 1, n.value + 1, -n.value):
                        if x not in ints:
                            ints.append(x)
                elif isinstance(n, ast.CharLit) and n.value:
                    chars.append(ord(n.value[0]))
                elif isinstance(n, ast.StringLit):
                    chars += [ord(c) for c in n.value]
        for c in "ab":
            chars.append(ord(c))
        return Vocabulary(tuple(dict.fromkeys(ints + [-2, 3])), tuple(dict.fromkeys(chars)))


class Domain:
    """Small and random values of the types of one member's inputs."""

    def __init__(self, vocab: Vocabulary, fields: Fields, rng: Random, classes: dict[str, ClassPlan] | None = None):
        self.vocab = vocab
        self.fields = fields
        self.rng = rng
        self.classes = classes or {}  # how objects of each class are made: their constructors and steps
        self._small: dict[tuple[RType, int], list] = {}

    # ------------------------------------------------------------ small scope

    def small(self, t: RType, depth: int = DATA_DEPTH) -> list:
        """Every small value of t (collections up to SMALL_LENGTH over an alphabet of ALPHABET small
        elements; datatype values `depth` constructors deep), smallest first."""
        key = (t, depth)
        if key not in self._small:
            values = list(dict.fromkeys(self._small_of(t, depth)))
            values.sort(key=size)
            self._small[key] = values[:MAX_SMALL]
        return self._small[key]

    def _small_of(self, t: RType, depth: int) -> Iterator:
        b = t.base
        k = b.kind
        if k == "int":
            lo, hi = int_bounds(t)
            edges = [x for x in (lo, hi) if x is not None]
            yield from (x for x in (*self.vocab.ints, *edges, *(e + 1 for e in edges), *(e - 1 for e in edges))
                        if _within(x, lo, hi))
        elif k == "bool":
            yield from (False, True)
        elif k == "char":
            yield from self.vocab.chars
        elif k == "real":
            yield from (Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(5, 2))
        elif k == "bv":
            yield from dict.fromkeys((0, 1, 2, (1 << b.width) - 1, 1 << (b.width - 1)))
        elif k in ("seq", "array"):
            alphabet = self.small(b.args[0], depth - 1)[:ALPHABET]
            for n in range(SMALL_LENGTH + 1):
                yield from _words(alphabet, n)
        elif k == "set":
            alphabet = self.small(b.args[0], depth - 1)[:ALPHABET]
            for n in range(SMALL_LENGTH + 1):
                yield from (frozenset(w) for w in _words(alphabet, n) if len(set(w)) == n)
        elif k == "multiset":
            alphabet = self.small(b.args[0], depth - 1)[:ALPHABET]
            for n in range(SMALL_LENGTH + 1):
                yield from (tuple(sorted(w, key=_order)) for w in _words(alphabet, n))
        elif k == "map":
            keys = self.small(b.args[0], depth - 1)[:3]
            values = self.small(b.args[1], depth - 1)[:3]
            yield ()
            for n in (1, 2):
                for ks in _words(keys, n):
                    if len(set(ks)) == n:
                        for vs in _words(values, n):
                            yield tuple(zip(ks, vs))
        elif k == "tuple":
            yield from _product([self.small(a, depth - 1)[:ALPHABET] for a in b.args])
        elif k == "data":
            if depth <= 0:
                return
            decl, _ = b.datatype
            for ctor in decl.ctors:
                if ctor.ghost:  # no compiled code builds one
                    continue
                fts = self.fields(b, ctor)
                if not fts:
                    yield Data(ctor.name, ())
                    continue
                parts = [self.small(ft, depth - 1)[:3] for _, ft in fts]
                for args in _product(parts):
                    yield Data(ctor.name, tuple(args))
        elif k == "class":
            yield from self._small_objects(b)
        else:
            raise Unsearchable(k)

    def _plan(self, b: RType) -> ClassPlan:
        plan = self.classes.get(class_key(b))
        if plan is None:
            raise Unsearchable(f"objects of {b.name}")
        return plan

    def _small_objects(self, b: RType) -> Iterator[Calls]:
        """Objects made by each constructor, then by one, two and three calls after it: the shortest
        sequences first, over a few small arguments each."""
        plan = self._plan(b)
        made = [(i, args) for i, m in enumerate(plan.ctors)
                for args in list(_product([self.small(a, 1)[:3] for a in m.args]))[:4]]
        calls = [(j, args) for j, m in enumerate(plan.steps)
                 for args in list(_product([self.small(a, 1)[:3] for a in m.args]))[:3]]
        for i, args in made:
            yield Calls(i, args)
        for i, args in made[:2]:
            for one in calls:
                yield Calls(i, args, (one,))
            for one in calls[:10]:
                for two in calls[:10]:
                    yield Calls(i, args, (one, two))
            for one in calls[:5]:
                for two in calls[:5]:
                    for three in calls[:5]:
                        yield Calls(i, args, (one, two, three))

    # ------------------------------------------------------------ random

    def random(self, t: RType, depth: int = DATA_DEPTH):
        """One random value of t, biased to what finds bugs: negatives, mixed signs, extremes, sorted and
        reversed collections, repeated elements."""
        r = self.rng
        b = t.base
        k = b.kind
        if k == "int":
            lo, hi = int_bounds(t)
            x = self._random_int()
            if lo is not None and hi is not None:  # a bounded type: its edges often, else anywhere inside
                return r.choice((lo, hi, lo + 1, hi - 1, r.randint(lo, hi))) if hi > lo else lo
            if lo is not None and x < lo:
                return lo + (lo - x) - 1
            if hi is not None and x > hi:
                return hi - (x - hi) + 1
            return x
        if k == "bool":
            return r.random() < 0.5
        if k == "char":
            pool = self.vocab.chars
            return r.choice(pool) if r.random() < 0.7 else r.choice(b"azAZ09 ,.-_")
        if k == "real":
            return Fraction(self._random_int(), r.choice((1, 1, 2, 3, 4, 10)))
        if k == "bv":
            top = (1 << b.width) - 1
            return r.choice((0, 1, top, top - 1, r.randint(0, top)))
        if k in ("seq", "array", "set", "multiset"):
            n = r.choice((0, 1, 2, 3, 4, 5, 6, RANDOM_LENGTH))
            elems = [self.random(b.args[0], depth - 1) for _ in range(n)]
            elems = self._shaped(elems)
            if k == "set":
                return frozenset(elems)
            if k == "multiset":
                return tuple(sorted(elems, key=_order))
            return tuple(elems)
        if k == "map":
            n = r.choice((0, 1, 2, 3, 4))
            keys = list(dict.fromkeys(self.random(b.args[0], depth - 1) for _ in range(n)))
            return tuple((kk, self.random(b.args[1], depth - 1)) for kk in keys)
        if k == "tuple":
            return tuple(self.random(a, depth - 1) for a in b.args)
        if k == "data":
            decl, _ = b.datatype
            ctors = [c for c in decl.ctors if not c.ghost] or list(decl.ctors)
            if depth <= 1:  # towards a leaf: a constructor without fields of the datatype's own type
                flat = [c for c in ctors if all(ft.base.name != b.name or ft.base.kind != "data"
                                                for _, ft in self.fields(b, c))]
                ctors = flat or ctors
            ctor = r.choice(ctors)
            return Data(ctor.name, tuple(self.random(ft, depth - 1) if depth > 0 else self.small(ft, 1)[0]
                                         for _, ft in self.fields(b, ctor)))
        if k == "class":
            plan = self._plan(b)
            i = r.randrange(len(plan.ctors))
            steps = []
            for _ in range(r.choice((0, 1, 2, 3, 4, 5, 6, 8))):
                if not plan.steps:
                    break
                j = r.randrange(len(plan.steps))
                steps.append((j, tuple(self.random(a, 1) for a in plan.steps[j].args)))
            return Calls(i, tuple(self.random(a, 1) for a in plan.ctors[i].args), tuple(steps))
        raise Unsearchable(k)

    def _random_int(self) -> int:
        r = self.rng
        roll = r.random()
        if roll < 0.3:
            return r.choice(self.vocab.ints)
        if roll < 0.6:
            return r.randint(-10, 10)
        if roll < 0.8:
            return r.randint(-100, 100)
        if roll < 0.9:
            return r.choice((-(1 << 31), (1 << 31) - 1, 255, 256, -1000, 1000, 65535))
        return r.choice(self.vocab.ints) + r.choice((-1, 1))

    def _shaped(self, elems: list) -> list:
        """Random elements given a shape often seen in bugs: sorted, reversed, all the same, one repeated."""
        r = self.rng
        if len(elems) < 2:
            return elems
        roll = r.random()
        try:
            if roll < 0.15:
                return sorted(elems, key=_order)
            if roll < 0.3:
                return sorted(elems, key=_order, reverse=True)
        except TypeError:
            return elems
        if roll < 0.4:
            return [elems[0]] * len(elems)
        if roll < 0.55:
            i, j = r.randrange(len(elems)), r.randrange(len(elems))
            elems[i] = elems[j]
        return elems


def int_bounds(t: RType) -> tuple[int | None, int | None]:
    """The least and greatest values of an integer type where its constraints say so with literals
    (`nat`, `x | 0 <= x < 256`, a newtype over another): the search makes no value outside them."""
    lo: int | None = None
    hi: int | None = None
    while t.kind in ("subset", "newtype"):
        if t.name == "nat":
            lo = 0 if lo is None else max(lo, 0)
        elif isinstance(t.decl, (ast.SubsetType, ast.Newtype)) and t.decl.var and t.decl.constraint is not None:
            var = t.decl.var
            for c in conjuncts(t.decl.constraint):
                for a, op, b in comparisons(c):
                    if is_name(a, var) and (n := _literal(b)) is not None:  # var < n, var <= n
                        top = n - 1 if op == "<" else n
                        hi = top if hi is None else min(hi, top)
                    elif is_name(b, var) and (n := _literal(a)) is not None:  # n < var, n <= var
                        bottom = n + 1 if op == "<" else n
                        lo = bottom if lo is None else max(lo, bottom)
        t = t.args[0]
    return lo, hi


def _literal(e: ast.Expr) -> int | None:
    if isinstance(e, ast.IntLit):
        return e.value
    if isinstance(e, ast.UnOp) and e.op == "-" and isinstance(e.operand, ast.IntLit):
        return -e.operand.value
    return None


def _within(x: int, lo: int | None, hi: int | None) -> bool:
    return (lo is None or x >= lo) and (hi is None or x <= hi)


def _words(alphabet: list, n: int) -> Iterator[tuple]:
    if n == 0:
        yield ()
        return
    for head in _words(alphabet, n - 1):
        for x in alphabet:
            yield head + (x,)


def _product(parts: list[list]) -> Iterator[tuple]:
    if not parts:
        yield ()
        return
    for head in parts[0]:
        for tail in _product(parts[1:]):
            yield (head,) + tail


def _order(x) -> tuple:
    """A total order over plain values (numbers by value, the rest by their text)."""
    if isinstance(x, bool):
        return (0, int(x), "")
    if isinstance(x, (int, Fraction)):
        return (0, x, "")
    return (1, 0, repr(x))


def size(v) -> tuple[int, int]:
    """How big a value is, for ordering and shrinking: elements held (collections and constructors), then
    the magnitude of its numbers."""
    if isinstance(v, bool):
        return (0, int(v))
    if isinstance(v, int):
        return (0, abs(v) * 2 - (v > 0))  # 0, 1, -1, 2, -2, ...: a positive before its negative
    if isinstance(v, Fraction):
        return (0, abs(v.numerator) + v.denominator)
    if isinstance(v, Data):
        inner = [size(a) for a in v.args]
        return (1 + sum(n for n, _ in inner), sum(m for _, m in inner))
    if isinstance(v, Calls):
        inner = [size(a) for a in v.args] + [size(a) for _, args in v.steps for a in args]
        return (1 + len(v.steps) + sum(n for n, _ in inner), sum(m for _, m in inner))
    if isinstance(v, (tuple, frozenset)):
        inner = [size(a) for a in v]
        return (len(inner) + sum(n for n, _ in inner), sum(m for _, m in inner))
    return (0, 0)


def combined(lists: list[list], limit: int) -> Iterator[tuple]:
    """Tuples of one value from each list, the smallest first: by the sum of their positions in the lists
    (each list is in order of size), up to `limit` tuples."""
    if not lists:
        yield ()
        return
    if any(not xs for xs in lists):
        return
    made = 0
    top = sum(len(xs) - 1 for xs in lists)
    for total in range(top + 1):
        for idx in _compositions(total, [len(xs) for xs in lists]):
            yield tuple(xs[i] for xs, i in zip(lists, idx))
            made += 1
            if made >= limit:
                return


def _compositions(total: int, bounds: list[int]) -> Iterator[tuple[int, ...]]:
    """Index tuples summing to `total`, each below its bound."""
    if len(bounds) == 1:
        if total < bounds[0]:
            yield (total,)
        return
    rest = sum(b - 1 for b in bounds[1:])
    for i in range(max(0, total - rest), min(total, bounds[0] - 1) + 1):
        for tail in _compositions(total - i, bounds[1:]):
            yield (i,) + tail

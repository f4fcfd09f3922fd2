"""Datatypes recursive through a collection or tuple (`datatype Tree = Leaf(int) | Node(kids: seq<Tree>)`).

Z3 4.8.12 cannot declare a datatype with a field of sort Seq(itself) (it crashes), so inside a group of
mutually recursive datatypes such a field is held as a list declared in the same group and converted where
the field is read or built: reading turns the list into the Seq the rest of the encoder works on, building
turns the Seq into the list. The list is as long as the solver's length cap at most, by its sorts: a list
of at most k cells is #nil or #cons(head, a list of at most k - 1 cells), so the conversions are terms
of cap levels (no recursive function, no quantifier), a field's length is provably within the cap (a
quantifier over its indices expands), and a model cannot hold a longer list than the cap; a longer Seq
built in a contract loses its cells beyond the cap. A Seq has one list, so equality of datatype values
stays structural. A set's or multiset's rep is a Seq too, so it is held the same way; a map field is a
list of entries (a key and a value per cell); a tuple that holds a group datatype is declared in the group
(its sort is the one it has outside). A collection of them inside a collection or tuple is not supported.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Protocol

import z3

from dspec2test.errors import Unsupported
from dspec2test.model.resolve import Resolver, RType
from dspec2test.solve.spelling import rtype_str


class SortSource(Protocol):
    """What a group needs of the solver's Types (types.py, which builds the groups): its sorts and cap."""

    cap: int

    def sort(self, t: RType) -> z3.SortRef: ...


SEQS = ("seq", "array", "set", "multiset")  # kinds whose rep is a Seq of their element
REACH_LIMIT = 400  # datatype instantiations explored (polymorphic recursion would make them without end)


def key(t: RType) -> RType:
    """A type as sorts are cached (declaration and scope dropped)."""
    return RType(t.kind, t.args, t.width, t.name)


def _datatypes_in(t: RType, direct: bool = True) -> Iterator[tuple[RType, bool]]:
    """The datatypes a field of type t holds, and whether each is the field itself; objects and
    functions hold none (an object is an identity, a function is never stored)."""
    b = t.base
    if b.kind == "data":
        yield b, direct
    elif b.kind not in ("class", "arrow"):
        for a in b.args:
            yield from _datatypes_in(a, False)


class _Reach:
    """Which datatypes each datatype reaches through its fields (any position), memoised."""

    def __init__(self, resolver: Resolver):
        self.resolver = resolver
        self.full: dict[RType, RType] = {}  # key -> the type with its declaration
        self._succ: dict[RType, list[RType]] = {}

    def succ(self, d: RType, direct_only: bool = False) -> list[RType]:
        out = []
        for c in d.datatype[0].ctors:
            for _, ft in self.resolver.ctor_fields(d, c):
                for x, direct in _datatypes_in(ft):
                    if direct or not direct_only:
                        self.full.setdefault(key(x), x)
                        out.append(key(x))
        return out

    def reach(self, d: RType) -> set[RType]:
        seen: set[RType] = set()
        todo = [key(d)]
        self.full.setdefault(key(d), d)
        while todo and len(seen) < REACH_LIMIT:
            k = todo.pop()
            if k not in self._succ:
                try:
                    self._succ[k] = self.succ(self.full[k])
                except Unsupported:  # a field type of its own: reported if the datatype is ever declared
                    self._succ[k] = []
            for n in self._succ[k]:
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
        return seen


def data_group(resolver: Resolver, root: RType, created) -> list[RType]:
    """root and every datatype it reaches through direct fields (one Z3 group), joined by every datatype
    reached through a collection or tuple that is mutually recursive with a member (so it must be
    declared with it). `created(key)`: that sort exists already."""
    graph = _Reach(resolver)
    group: dict[RType, RType] = {}

    def close(start: RType) -> None:
        todo = [start]
        while todo:
            d = todo.pop()
            k = key(d)
            if k in group or created(k):
                continue
            group[k] = RType(d.kind, d.args, d.width, d.name, d.decl, d.scope)
            todo += [graph.full[x] for x in graph.succ(d, direct_only=True)]

    close(root)
    changed = True
    while changed:
        changed = False
        reached = {x for g in group.values() for x in graph.reach(g)} - set(group)
        for k in sorted(reached, key=str):
            if not created(k) and any(k in graph.reach(group[g]) for g in graph.reach(graph.full[k]) & set(group)):
                close(graph.full[k])
                changed = True
    return list(group.values())


@dataclass(frozen=True)
class Conversion:
    """A group datatype's field: `read` turns the stored term into the field's rep, `write` the rep into
    what is stored (None: stored as its rep); `walk(model, term)` reads the rep of a stored term in a
    model by walking its list's value cell by cell (a term of values, which the model reads as it is)."""

    read: Callable | None = None
    write: Callable | None = None
    walk: Callable | None = None


@dataclass(frozen=True)
class Make:
    """A constructor that converts the fields held as lists."""

    raw: z3.FuncDeclRef
    writes: tuple[Callable | None, ...]

    def __call__(self, *args):
        return self.raw(*[w(a) if w is not None else a for w, a in zip(self.writes, args)])

    def name(self) -> str:
        return self.raw.name()


@dataclass(frozen=True)
class Read:
    """A destructor of a field held as a list: the field's rep."""

    raw: z3.FuncDeclRef
    conversion: Conversion

    def __call__(self, term):
        assert self.conversion.read is not None
        return self.conversion.read(self.raw(term))

    def in_model(self, model: z3.ModelRef, term):
        """The field's rep in a model, as a term of the values its list holds (in the main context)."""
        assert self.conversion.walk is not None
        return self.conversion.walk(model, self.raw(term))


class Group:
    """The Z3 declarations of one group of mutually recursive datatypes and of the list and tuple datatypes
    their fields need inside it. A list of a map field holds its entries (a key and a value per cell), so
    its keys and values have one length."""

    def __init__(self, types: SortSource, members: list[RType]):
        self.types = types
        self.members = {key(d): d for d in members}
        self.decls = {k: z3.Datatype(rtype_str(d)) for k, d in self.members.items()}
        self.tuples: dict[RType, z3.Datatype] = {}
        self.lists: dict[tuple[RType, ...], list[z3.Datatype]] = {}  # by the types of a cell's heads
        self.sorts: dict[RType, z3.DatatypeSortRef] = {}  # members' and tuples', once created
        self._codecs: dict[tuple[RType, ...], ListCodec] = {}

    def mentions(self, t: RType) -> bool:
        return any(key(x) in self.members for x, _ in _datatypes_in(t))

    def field_sort(self, t: RType):
        """The sort (or the declaration, inside the group) a field of type t is stored as."""
        b = t.base
        if not self.mentions(b):
            return self.types.sort(b)
        if b.kind == "data":
            return self.decls[key(b)]
        if b.kind == "tuple":
            k = key(b)
            if k not in self.tuples:
                self.tuples[k] = z3.Datatype(rtype_str(b))
                self.tuples[k].declare("mk", *[(f"_{i}", self._elem_sort(a)) for i, a in enumerate(b.args)])
            return self.tuples[k]
        if b.kind in SEQS or b.kind == "map":
            return self._list(b.args)
        raise Unsupported(f"{rtype_str(b)} holding a recursive datatype")

    def _elem_sort(self, t: RType):
        """An element stored as it is outside the group (a list's element, a tuple's component)."""
        b = t.base
        if self.mentions(b) and b.kind not in ("data", "tuple"):
            raise Unsupported(f"{rtype_str(b)} inside a collection or tuple (a recursive datatype's field)")
        return self.field_sort(b)

    def _list(self, heads: tuple[RType, ...]) -> z3.Datatype:
        """A list of at most `cap` cells of the heads' types: one declaration per length bound, the
        field's is the last."""
        k = tuple(key(h.base) for h in heads)
        if k not in self.lists:
            name = ", ".join(rtype_str(h.base) for h in heads)
            levels = [z3.Datatype(f"#List{n}<{name}>") for n in range(max(self.types.cap, 1) + 1)]
            self.lists[k] = levels
            levels[0].declare("#nil0")
            for n in range(1, len(levels)):
                levels[n].declare(f"#nil{n}")
                levels[n].declare(f"#cons{n}", *[(f"#head{n}.{i}", self._elem_sort(h)) for i, h in enumerate(heads)],
                                  (f"#tail{n}", levels[n - 1]))
        return self.lists[k][-1]

    def create(self) -> None:
        """Create every declaration (the sorts of members, tuples and lists)."""
        decls = [*self.decls.values(), *self.tuples.values(), *[d for levels in self.lists.values() for d in levels]]
        created = iter(z3.CreateDatatypes(*decls))
        for k in [*self.decls, *self.tuples]:
            self.sorts[k] = next(created)
        for heads, levels in self.lists.items():
            self._codecs[heads] = ListCodec(tuple(next(created) for _ in levels),
                                            tuple(z3.SeqSort(self._sort_of(h)) for h in heads))

    def _sort_of(self, t: RType) -> z3.SortRef:
        return self.sorts[t] if t in self.sorts else self.types.sort(t)

    def field(self, t: RType) -> Conversion:
        """How a field of type t is read and built (after create)."""
        b = t.base
        if not self.mentions(b) or b.kind in ("data", "tuple"):
            return Conversion()
        codec = self._codecs[tuple(key(h.base) for h in b.args)]
        if b.kind in SEQS:
            return Conversion(lambda x: codec.to_seqs(x)[0], codec.from_seqs, lambda model, x: codec.walk(model, x)[0])
        outside = self.types.sort(b)  # a map: a datatype of its key and value sequences
        mk, keys, vals = outside.constructor(0), outside.accessor(0, 0), outside.accessor(0, 1)
        return Conversion(lambda x: mk(*codec.to_seqs(x)), lambda m: codec.from_seqs(keys(m), vals(m)),
                          lambda model, x: mk(*codec.walk(model, x)))


@dataclass(frozen=True)
class ListCodec:
    """A bounded list's sorts (levels[n]: at most n cells) and its conversions to and from the Seqs of its
    heads (one Seq per head: a map's keys and values)."""

    levels: tuple[z3.DatatypeSortRef, ...]
    seqs: tuple[z3.SeqSortRef, ...]

    def to_seqs(self, x) -> tuple:
        out = [z3.Empty(s) for s in self.seqs]
        cells = []  # (is #nil, heads) of each level from the field's down
        for n in range(len(self.levels) - 1, 0, -1):
            lst = self.levels[n]
            cells.append((lst.recognizer(0)(x), [lst.accessor(1, i)(x) for i in range(len(self.seqs))]))
            x = lst.accessor(1, len(self.seqs))(x)
        for nil, heads in reversed(cells):
            out = [z3.If(nil, z3.Empty(s), z3.Concat(z3.Unit(h), o)) for s, h, o in zip(self.seqs, heads, out)]
        return tuple(out)

    def from_seqs(self, *ss):
        """The list of the Seqs' elements (cells beyond the cap dropped); the first Seq's length counts."""
        top = len(self.levels) - 1
        out = self.levels[0].constructor(0)()
        for n in range(1, top + 1):
            at = top - n  # the index this level's cell holds
            lst = self.levels[n]
            cell = lst.constructor(1)(*[s[at] for s in ss], out)
            out = z3.If(z3.Length(ss[0]) <= at, lst.constructor(0)(), cell)
        return out

    def walk(self, model: z3.ModelRef, x) -> tuple:
        """The Seqs of a list's value in a model (x: a term of the main context), of the heads' values."""
        v = model.eval(x.translate(model.ctx), model_completion=True)
        n = len(self.seqs)
        cells = []
        while v.num_args() == n + 1:  # #cons(heads..., tail); #nil has none
            cells.append([v.arg(i) for i in range(n)])
            v = v.arg(n)
        out = []
        for i, srt in enumerate(self.seqs):
            units = [z3.Unit(c[i]) for c in cells]
            seq = z3.Empty(_sort_in(srt, model.ctx)) if not units else units[0] if len(units) == 1 else z3.Concat(*units)
            out.append(seq.translate(z3.main_ctx()))
        return tuple(out)


def _sort_in(sort: z3.SortRef, ctx: z3.Context) -> z3.SortRef:
    # SortRef.translate fails on sequence sorts in z3 4.8.12; a constant's translation carries the sort
    return z3.Const("_", sort).translate(ctx).sort()

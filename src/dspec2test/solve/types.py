"""Dafny types as Z3 sorts, declared variables, and their well-formedness constraints.

Representations (a "rep" is the Z3 term a value of that type is stored as inside containers):
int, nat, char and subset types over int: Int; real: Real; bool: Bool; bvN: BitVec(N); seq, string and
array<T>: Seq(T) (a string is an Int "atom" instead in a Types made with `atoms`, see `is_atom`); set<T>:
a strictly increasing (distinct for unordered T) Seq(T); multiset<T>: a
non-decreasing Seq(T); map<K, V>: a datatype of a key Seq (like a set) and a value Seq; tuples and
datatypes: Z3 datatypes (generic ones instantiated); function types: an uninterpreted function
(variables only); objects (class, trait and `object` types): an Int identity, 0 for null (a variable
also has its class, when it may be built as several, and fields of its own: values.ObjV); array2<T>
and array3<T>: a datatype of the lengths and a nested Z3 array of the elements (`a[i, j]` is
`data[i][j]`), which Z3 decides far better than nested sequences. Inside a group of mutually recursive
datatypes, a field that holds one of them through a sequence, set or map is stored as a list bounded by
the cap and read and built as the rep above (recursive.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import z3

from dspec2test.dafny import ast
from dspec2test.model.resolve import INT, Resolver, RType
from dspec2test.errors import Unsupported
from dspec2test.model.classes import ClassIndex
from dspec2test.solve.recursive import Group, Make, Read, data_group, key
from dspec2test.solve.seqbound import length_bound
from dspec2test.solve.spelling import rtype_str
from dspec2test.solve.values import TV, FuncV, LambdaV, MapV, MultisetV, ObjV, SetV, and_, unsupported

ORDERED = ("int", "real", "char", "bv")
CHAR_MAX = 0x10FFFF
DATA_DEPTH = 3  # constructors deep that a datatype value's fields are constrained
# values one wf may constrain: a beacon-chain state's sequences of records of byte sequences, each element
# up to the cap, came to 180 000 and a minute of Python before Z3 saw a term (evm-dafny's machine
# state, itself beyond Z3: 2 300)
WF_STEPS = 10_000


class ConstraintsTooLarge(Unsupported):
    """A value's type constraints past WF_STEPS: out of the solver's reach without being made."""

    def __init__(self, steps: int):
        super().__init__("type constraints of more than %d values" % steps)
        self.steps = steps


@dataclass(frozen=True)
class CtorInfo:
    dt: RType
    ctor: ast.Ctor
    make: z3.FuncDeclRef | Make  # Make: converts the fields held as lists (recursive.py)
    test: z3.FuncDeclRef
    fields: tuple[tuple[str, RType, z3.FuncDeclRef | Read], ...]


class Types:
    """Sorts and variable declarations for one Solver (no state shared between solvers)."""

    def __init__(self, resolver: Resolver, cap: int, atoms: bool = False):
        self.resolver = resolver
        self.cap = cap  # static bound on set/multiset/map sizes (and on limited sequences)
        # strings as atoms: opaque Ints that are equal or not, for contracts that only compare strings
        # (a set of names); Z3 4.8.12's sequence solver does not decide sets of strings
        self.atoms = atoms
        self.literals: dict[str, int] = {}  # a string literal's atom (negative; free atoms are >= 0)
        self._sorts: dict[RType, z3.SortRef] = {}
        self.ctors: dict[tuple[RType, str], CtorInfo] = {}
        self.ctor_of_z3: dict[str, CtorInfo] = {}
        self.tuple_make: dict[RType, tuple[z3.FuncDeclRef, tuple[z3.FuncDeclRef, ...]]] = {}
        self._shared: frozenset[str] | None = None  # constructor names of several datatypes
        self.field_depth = DATA_DEPTH  # 0: datatype fields' constraints are left to admission
        self._fresh = 0
        self._classes: ClassIndex | None = None
        self._slots = 0  # objects declared so far
        self._wf_steps: int | None = None  # values constrained so far by the wf being made (None: none is)

    @property
    def classes(self) -> ClassIndex:
        if self._classes is None:
            self._classes = ClassIndex.of(self.resolver.program)
        return self._classes

    def kinds_of(self, t: RType) -> tuple[tuple, ...]:
        """Per class an object of type t can be built as: that class and the traits it extends."""
        decl = t.base.decl
        if not isinstance(decl, ast.ClassDecl):
            return ()
        return tuple(self.classes.kinds(c) for c in self.classes.implementations(decl))

    def fresh(self, prefix: str) -> str:
        self._fresh += 1
        return f"{prefix}!{self._fresh}"

    # ---------------------------------------------------------------- sorts

    def is_atom(self, t: RType) -> bool:
        b = t.base
        return self.atoms and b.kind == "seq" and b.args[0].base.kind == "char"

    def atom_of(self, text: str) -> int:
        return self.literals.setdefault(text, -1 - len(self.literals))

    def sort(self, t: RType) -> z3.SortRef:
        b = t.base
        k = b.kind
        if self.is_atom(b):
            return z3.IntSort()
        if k in ("int", "char", "class"):
            return z3.IntSort()
        if k == "bool":
            return z3.BoolSort()
        if k == "real":
            return z3.RealSort()
        if k == "bv":
            return z3.BitVecSort(b.width)
        if k in ("seq", "array", "set", "multiset"):
            return z3.SeqSort(self.sort(b.args[0]))
        if k == "arrow":  # a function held in a datatype or collection: an array over its arguments
            return z3.ArraySort(self._domain(b), self.sort(b.args[-1]))
        key = RType(b.kind, b.args, b.width, b.name)
        if key in self._sorts:
            return self._sorts[key]
        if k in ("array2", "array3"):
            dims = int(k[-1])
            data = self.sort(b.args[0])
            for _ in range(dims):
                data = z3.ArraySort(z3.IntSort(), data)
            dt = z3.Datatype(rtype_str(b))
            dt.declare("mk", *[(f"Length{d}", z3.IntSort()) for d in range(dims)], ("data", data))
            self._sorts[key] = dt.create()
            return self._sorts[key]
        if k == "map":
            dt = z3.Datatype(f"Map<{rtype_str(b.args[0])}, {rtype_str(b.args[1])}>")
            dt.declare("mk", ("keys", z3.SeqSort(self.sort(b.args[0]))), ("vals", z3.SeqSort(self.sort(b.args[1]))))
            self._sorts[key] = dt.create()
            return self._sorts[key]
        if k == "tuple":
            elems = [self.sort(a) for a in b.args]
            dt = z3.Datatype(rtype_str(b))
            dt.declare("mk", *[(f"_{i}", s) for i, s in enumerate(elems)])
            srt = dt.create()
            self._sorts[key] = srt
            self.tuple_make[key] = (srt.constructor(0), tuple(srt.accessor(0, i) for i in range(len(elems))))
            return srt
        if k == "data":
            self._create_datatypes(b)
            return self._sorts[key]
        raise Unsupported(f"{rtype_str(b)} inside a collection or datatype")

    def _domain(self, arrow: RType) -> z3.SortRef:
        """The index sort of a function held as an array: its parameter's, or the tuple of its parameters'."""
        params = arrow.args[:-1]
        return self.sort(params[0]) if len(params) == 1 else self.sort(RType("tuple", params))

    def _pack(self, arrow: RType):
        """The constructor of the tuple that indexes a function of several parameters held as an array."""
        params = arrow.args[:-1]
        if len(params) == 1:
            return None
        self.sort(RType("tuple", params))
        return self.tuple_make[RType("tuple", params)][0]

    def _create_datatypes(self, root: RType) -> None:
        """Create root and every datatype it reaches through direct fields, as one (mutually recursive) group,
        with the datatypes recursive with it through collections and tuples (recursive.py)."""
        members = data_group(self.resolver, root, lambda k: k in self._sorts)
        group = Group(self, members)
        fields = {}
        for d in members:
            for c in d.datatype[0].ctors:
                fts = self.resolver.ctor_fields(d, c)
                fields[(key(d), c.name)] = fts
                group.decls[key(d)].declare(c.name, *[(f"{c.name}.{fname or i}", group.field_sort(ft))
                                                      for i, (fname, ft) in enumerate(fts)])
        group.create()
        for k, srt in group.sorts.items():
            self._sorts[k] = srt
            if k.kind == "tuple":
                self.tuple_make[k] = (srt.constructor(0), tuple(srt.accessor(0, i) for i in range(len(k.args))))
        for d in members:
            srt = group.sorts[key(d)]
            for i, c in enumerate(d.datatype[0].ctors):
                fts = fields[(key(d), c.name)]
                conv = [group.field(ft) for _, ft in fts]
                accs = [srt.accessor(i, j) for j in range(len(fts))]
                make = Make(srt.constructor(i), tuple(f.write for f in conv)) \
                    if any(f.write is not None for f in conv) else srt.constructor(i)
                info = CtorInfo(d, c, make, srt.recognizer(i),
                                tuple((fn, ft, Read(acc, f) if f.read is not None else acc)
                                      for (fn, ft), acc, f in zip(fts, accs, conv)))
                self.ctors[(key(d), c.name)] = info
                self.ctor_of_z3[srt.constructor(i).name()] = info

    def ctor_info(self, dt: RType, name: str) -> CtorInfo:
        b = dt.base
        self.sort(b)
        return self.ctors[(RType(b.kind, b.args, b.width, b.name), name)]

    def shared_ctors(self) -> frozenset[str]:
        """Constructor names more than one datatype of the program has: a literal must qualify them."""
        if self._shared is None:
            datatypes = {id(d): d for table in self.resolver.modules.values() for d in table.values()
                         if isinstance(d, ast.Datatype)}  # a datatype is in its module's table under several names
            seen: set[str] = set()
            shared: set[str] = set()
            for d in datatypes.values():
                for c in d.ctors:
                    (shared if c.name in seen else seen).add(c.name)
            self._shared = frozenset(shared)
        return self._shared

    def ctors_of(self, dt: RType) -> list[CtorInfo]:
        return [self.ctor_info(dt, c.name) for c in dt.base.datatype[0].ctors]

    def constrains_functions(self, t: RType) -> bool:
        """A subset type over a datatype with a function field (a parser whose `fn` must meet a quantified
        property): Z3 seldom finds a value of it (factories.py makes inputs of it by a call)."""
        layers = []
        while t.kind in ("subset", "newtype"):
            layers.append(t)
            t = t.args[0]
        return any(x.constraint is not None for x in layers) and t.kind == "data" and any(
            ft.base.kind == "arrow" for info in self.ctors_of(t) for _, ft, _ in info.fields)

    def list_fields(self, tv: TV) -> list[tuple[z3.BoolRef, z3.SeqRef]]:
        """(it is built by the constructor, the sequence) of each sequence field of a datatype value held as a
        list (recursive.py): the children of a tree, which minimal models leave empty."""
        if tv.t.base.kind != "data":
            return []
        return [(info.test(tv.v), acc(tv.v)) for info in self.ctors_of(tv.t) for _, ft, acc in info.fields
                if isinstance(acc, Read) and ft.base.kind in ("seq", "array")]

    # ---------------------------------------------------------------- reps <-> values

    def from_rep(self, term, t: RType) -> TV:
        """The encoded value of a rep term (a variable or an element read out of a container)."""
        b = t.base
        if b.kind == "class":  # an object held in a collection: its identity; its fields are the heap's
            kinds = self.kinds_of(b)[:1]  # built as the first class that can make it
            return TV(ObjV("", term, kinds), t)
        if b.kind in ("set", "multiset"):
            # a set built in a contract may hold more than the cap (an input's set and one more): its term says
            n = max(self.cap, length_bound(term) or 0) if b.kind == "set" else self.cap
            cands = tuple((z3.IntVal(i) < z3.Length(term), term[i]) for i in range(n))
            if b.kind == "set":
                return TV(SetV(cands, term), t)

            def count(x, cands=cands):
                return z3.Sum([z3.If(z3.And(g, e == x), 1, 0) for g, e in cands]) if cands else z3.IntVal(0)

            return TV(MultisetV(cands, count, term), t)
        if b.kind == "map":
            srt = self.sort(b)
            keys, vals = srt.accessor(0, 0)(term), srt.accessor(0, 1)(term)
            cands = tuple((z3.IntVal(i) < z3.Length(keys), keys[i]) for i in range(self.cap))

            def get(k, keys=keys, vals=vals):
                out = vals[0]
                for i in reversed(range(self.cap)):
                    out = z3.If(keys[i] == k, vals[i], out)
                return out

            return TV(MapV(SetV(cands, keys), get, term), t)
        if b.kind == "arrow":
            return TV(FuncV(term, self._pack(b)), t)
        return TV(term, t)

    def to_rep(self, tv: TV):
        v = tv.v
        if isinstance(v, SetV) and v.rep is None:
            return self._set_rep(v, tv.t)
        if isinstance(v, MapV) and v.rep is None:
            return self._map_rep(v, tv.t)
        if isinstance(v, (SetV, MultisetV, MapV)):
            if v.rep is None:
                raise Unsupported(f"{tv.t.base.kind} expression stored in a collection, datatype or function")
            return v.rep
        if isinstance(v, FuncV):
            if isinstance(v.fn, z3.ArrayRef):
                return v.fn
            # an input's function put into a datatype or collection: the array of its values
            b = tv.t.base
            x = z3.FreshConst(self._domain(b), "x")
            pack = self._pack(b)
            args = [acc(x) for acc in self.tuple_make[RType("tuple", b.args[:-1])][1]] if pack is not None else [x]
            return z3.Lambda([x], v.fn(*args))
        if isinstance(v, LambdaV):  # a lambda has no term: kept in a value, compared, or passed to a Z3 function
            raise unsupported("lambda", v.node)
        if isinstance(v, ObjV):
            return v.id
        return v

    # ---------------------------------------------------------------- variables

    def declare(self, name: str, t: RType) -> TV:
        b = t.base
        if b.kind == "arrow":
            doms = [self.sort(a) for a in b.args[:-1]]
            return TV(FuncV(z3.Function(name, *doms, self.sort(b.args[-1]))), t)
        if b.kind == "tuple" and not b.args:
            raise Unsupported("unit type")
        if b.kind == "class":
            kinds = self.kinds_of(b)
            if not kinds:
                raise Unsupported(f"object of type {rtype_str(b)}: no class to build it as")
            cls = z3.Int(f"{name}#class") if len(kinds) > 1 else None
            self._slots += 1
            return TV(ObjV(name, z3.Int(name), kinds, cls, self._slots), t)
        return self.from_rep(z3.Const(name, self.sort(t)), t)

    def has_wf(self, t: RType) -> bool:
        b = t.base
        if t.kind in ("subset", "newtype") or b.kind in ("char", "set", "multiset", "map", "class"):
            return True
        if b.kind in ("seq", "array", "array2", "array3"):
            return True  # at least a length limit when limited
        if b.kind == "tuple":
            return any(self.has_wf(a) for a in b.args)
        if b.kind == "data":
            return self._refined(b)
        return False

    def wf(self, tv: TV, limited: bool, encode_constraint, inner: bool = False,
           depth: int = DATA_DEPTH) -> list[z3.BoolRef]:
        """Constraints every value of the type satisfies; `limited` bounds sequence lengths by the cap.

        `encode_constraint(rtype, tv)` encodes a subset type's/newtype's constraint for the value.
        A datatype's fields are constrained `depth` constructors deep (a recursive one has no end).
        Raises ConstraintsTooLarge past WF_STEPS values constrained.
        """
        outer = self._wf_steps is None
        if outer:
            self._wf_steps = 0
        try:
            return self._wf_of(tv, limited, encode_constraint, inner, depth)
        finally:
            if outer:
                self._wf_steps = None

    def _step(self) -> None:
        if self._wf_steps is not None:
            self._wf_steps += 1
            if self._wf_steps > WF_STEPS:
                raise ConstraintsTooLarge(WF_STEPS)

    def _wf_of(self, tv: TV, limited: bool, encode_constraint, inner: bool, depth: int) -> list[z3.BoolRef]:
        self._step()
        t = tv.t
        out: list[z3.BoolRef] = []
        if self.is_atom(t):
            return []  # any Int is some string
        if t.kind in ("subset", "newtype"):
            out += self.wf(TV(tv.v, t.args[0]), limited, encode_constraint, depth=depth)
            if t.name == "nat":
                out.append(tv.v >= 0)
            elif t.constraint is not None:
                out.append(encode_constraint(t, TV(tv.v, t.args[0])))
            return out
        b = t.base
        if b.kind == "class":
            if isinstance(tv.v, ObjV):
                o = tv.v
                out.append(o.id >= (0 if b.name.endswith("?") else 1))
                if o.cls is not None:
                    out += [o.cls >= 0, o.cls < len(o.classes)]
            else:
                out.append(tv.v >= 0)
            return out
        if b.kind == "char":
            c = tv.v
            out.append(z3.Or(z3.And(c >= 0, c < 0xD800), z3.And(c >= 0xE000, c <= CHAR_MAX)))
        elif b.kind in ("seq", "array"):
            s = tv.v
            et = b.args[0]
            if limited and (inner or _nested(et)):
                # elements that are sequences themselves (or this is one): constrain the shape's elements,
                # not s[i], which Z3's sequence solver (4.8.12) leaves undecided once two such variables meet
                shape, es = self._shape_of(s)
                out += [z3.Length(s) <= self.cap, shape]
                if self.has_wf(et):
                    out += [z3.Implies(z3.IntVal(i) < z3.Length(s),
                                       and_(self.wf(self.from_rep(e, et), limited, encode_constraint, True, depth)))
                            for i, e in enumerate(es)]
                return out
            if limited:
                out += [z3.Length(s) <= self.cap, self._shape(s)]
            if self.has_wf(et):
                if limited:
                    for i in range(self.cap):
                        inner = and_(self.wf(self.from_rep(s[i], et), limited, encode_constraint, depth=depth))
                        out.append(z3.Implies(z3.IntVal(i) < z3.Length(s), inner))
                else:
                    k = z3.Int(self.fresh("k"))
                    inner = and_(self.wf(self.from_rep(s[k], et), limited, encode_constraint, depth=depth))
                    out.append(z3.ForAll([k], z3.Implies(z3.And(k >= 0, k < z3.Length(s)), inner)))
        elif b.kind in ("set", "multiset"):
            w = tv.v.rep
            out += [z3.Length(w) <= self.cap]
            out += self._elements(w, b.args[0], b.kind == "set", limited, encode_constraint, depth)
        elif b.kind == "map":
            srt = self.sort(b)
            keys, vals = srt.accessor(0, 0)(tv.v.rep), srt.accessor(0, 1)(tv.v.rep)
            out += [z3.Length(keys) <= self.cap, z3.Length(vals) == z3.Length(keys)]
            out += self._elements(keys, b.args[0], True, limited, encode_constraint, depth)
            out += self._elements(vals, b.args[1], None, limited, encode_constraint, depth)
        elif b.kind in ("array2", "array3"):
            dims = self.dims(tv)
            out += [d >= 0 for d in dims]
            if limited:
                out += [d <= self.cap for d in dims]
            # an empty array has no other extent: the test writes it as the empty sequence of rows
            out += [z3.Implies(dims[0] == 0, and_(d == 0 for d in dims[1:]))]
            et = b.args[0]
            if self.has_wf(et) and limited:
                for idx in cells(len(dims), self.cap):
                    inside = and_(z3.IntVal(i) < d for i, d in zip(idx, dims))
                    out.append(z3.Implies(inside, and_(self.wf(self.cell(tv, [z3.IntVal(i) for i in idx]), limited,
                                                               encode_constraint, depth=depth))))
        elif b.kind == "tuple":
            make, accs = self.tuple_make[RType(b.kind, b.args, b.width, b.name)]
            for acc, et in zip(accs, b.args):
                if self.has_wf(et):
                    out += self.wf(self.from_rep(acc(tv.v), et), limited, encode_constraint, depth=depth)
        elif b.kind == "data":
            out += self._compiled(tv)
            if depth > 0 and self.field_depth > 0:
                out += self._data_wf(tv, encode_constraint, min(depth, self.field_depth))
        return out

    def _compiled(self, tv: TV) -> list[z3.BoolRef]:
        """A value a test can build: not by a ghost constructor (`datatype D = ghost G | C`), which compiled
        code cannot name."""
        return [z3.Not(info.test(tv.v)) for info in self.ctors_of(tv.t.base) if info.ctor.ghost]

    def _refined(self, t: RType, seen: frozenset = frozenset()) -> bool:
        """Whether values of t held in a datatype's field have a constraint of their own to keep: a subset
        type or newtype somewhere in it, or a set of ordered elements, whose rep keeps its order (so `|s|`, its
        rep's length, counts each element once; of others, distinctness is a term per pair); a length limit is no constraint: fields have none; nor are a string's characters
        kept in range, which cost a constraint per character for little."""
        b = t.base
        if t.kind in ("subset", "newtype") or self._sorted_set(b):
            return True
        if b.kind == "data":
            k = RType(b.kind, b.args, b.width, b.name)
            ctors = b.datatype[0].ctors
            return k not in seen and (any(c.ghost for c in ctors) or any(
                self._refined(ft, seen | {k}) for c in ctors for _, ft in self.resolver.ctor_fields(b, c)))
        return b.kind in ("seq", "array", "set", "multiset", "map", "tuple") and any(self._refined(a, seen)
                                                                                    for a in b.args)

    def _data_wf(self, tv: TV, encode_constraint, depth: int) -> list[z3.BoolRef]:
        """A datatype value's fields keep their types' constraints (a `nat`, a `u8`, a byte sequence),
        `depth` constructors deep, for the elements of a collection up to the length cap; no length limit or
        shape (a machine state holds dozens of collections, and each shape costs its terms)."""
        out = []
        ctors = self.ctors_of(tv.t.base)
        out += self._compiled(tv)
        for info in ctors:
            if info.ctor.ghost:
                continue
            inner = [w for _, ft, acc in info.fields if self._refined(ft)
                     for w in self._field_wf(self.from_rep(acc(tv.v), ft), encode_constraint, depth - 1)]
            if inner:
                out.append(z3.Implies(info.test(tv.v), and_(inner)) if len(ctors) > 1 else and_(inner))
        return out

    def _field_wf(self, tv: TV, encode_constraint, depth: int) -> list[z3.BoolRef]:
        self._step()
        t, b = tv.t, tv.t.base
        if t.kind in ("subset", "newtype"):
            out = self._field_wf(TV(tv.v, t.args[0]), encode_constraint, depth)
            if t.name == "nat":
                return out + [tv.v >= 0]
            return out + ([encode_constraint(t, TV(tv.v, t.args[0]))] if t.constraint is not None else [])
        if b.kind == "data":
            return self._data_wf(tv, encode_constraint, depth) if depth > 0 else []
        if b.kind == "tuple" and self._refined(b):
            _, accs = self.tuple_make[RType(b.kind, b.args, b.width, b.name)]
            return [w for acc, et in zip(accs, b.args) for w in self._field_wf(self.from_rep(acc(tv.v), et),
                                                                                 encode_constraint, depth)]
        reps = [(tv.v, b.args[0])] if b.kind in ("seq", "array") and isinstance(tv.v, z3.SeqRef) else \
            [(tv.v.rep, b.args[0])] if b.kind in ("set", "multiset") and getattr(tv.v, "rep", None) is not None else []
        if b.kind == "map" and tv.v.rep is not None:
            srt = self.sort(b)
            reps = [(srt.accessor(0, 0)(tv.v.rep), b.args[0]), (srt.accessor(0, 1)(tv.v.rep), b.args[1])]
        out = self._ordered(tv.v.rep, b.args[0], True) if self._sorted_set(b) and reps else []
        for s, et in reps:
            if self._refined(et):
                out += [z3.Implies(z3.IntVal(i) < z3.Length(s),
                                   and_(self._field_wf(self.from_rep(s[i], et), encode_constraint, depth)))
                        for i in range(self.cap)]
        return out

    def dims(self, tv: TV) -> list:
        """The lengths of a multi-dimensional array value."""
        srt = self.sort(tv.t.base)
        return [srt.accessor(0, d)(tv.v) for d in range(int(tv.t.base.kind[-1]))]

    def cell(self, tv: TV, indices: list) -> TV:
        """Element a[i, j, ...] of a multi-dimensional array value."""
        srt = self.sort(tv.t.base)
        data = srt.accessor(0, len(indices))(tv.v)
        for i in indices:
            data = z3.Select(data, i)
        return self.from_rep(data, tv.t.base.args[0])

    def same_shape(self, a: TV, b: TV) -> list[z3.BoolRef]:
        """An array keeps its lengths: what a modified array's pre-state and post-state share."""
        k = a.t.base.kind
        if k == "array" and isinstance(a.v, z3.SeqRef):
            return [z3.Length(a.v) == z3.Length(b.v)]
        if k in ("array2", "array3"):
            return [x == y for x, y in zip(self.dims(a), self.dims(b))]
        return []

    def _shape(self, s) -> z3.BoolRef:
        """s is one of the concatenations of 0..cap fresh elements: Z3's sequence solver (4.8.12) needs this
        to decide nested sequences, and it makes element reads cheap."""
        return self._shape_of(s)[0]

    def _shape_of(self, s) -> tuple[z3.BoolRef, list]:
        es = [z3.Const(self.fresh("e"), s.sort().basis()) for _ in range(self.cap)]
        shape = None
        for n in range(self.cap, -1, -1):
            t = z3.Empty(s.sort()) if n == 0 else z3.Unit(es[0]) if n == 1 else z3.Concat(*[z3.Unit(e) for e in es[:n]])
            shape = t if shape is None else z3.If(z3.Length(s) == n, t, shape)
        return s == shape, es

    def _elements(self, w, et: RType, strict: bool | None, limited: bool, encode_constraint,
                  depth: int = DATA_DEPTH) -> list[z3.BoolRef]:
        """Shape, canonical order (`strict` None: none) and well-formedness of the elements of a set's,
        multiset's or map's sequence. Elements that are sequences themselves are constrained through the
        shape's fresh elements rather than `w[i]`, which Z3's sequence solver (4.8.12) leaves undecided."""
        if not _nested(et) or self.is_atom(et):
            out = [self._shape(w)]
            out += self._ordered(w, et, strict) if strict is not None else []
            return out + self._elems_wf(w, et, limited, encode_constraint, depth)
        shape, es = self._shape_of(w)
        out = [shape]
        if self.has_wf(et):
            out += [z3.Implies(z3.IntVal(i) < z3.Length(w), and_(self.wf(self.from_rep(e, et), limited,
                                                                           encode_constraint, True, depth)))
                    for i, e in enumerate(es)]
        return out

    def _elems_wf(self, w, et: RType, limited: bool, encode_constraint, depth: int = DATA_DEPTH) -> list[z3.BoolRef]:
        if not self.has_wf(et):
            return []
        return [z3.Implies(z3.IntVal(i) < z3.Length(w), and_(self.wf(self.from_rep(w[i], et), limited, encode_constraint, depth=depth)))
                for i in range(self.cap)]

    def _sorted_set(self, b: RType) -> bool:
        """Is b a set whose rep is kept in increasing order (of elements of an ordered type)?"""
        return b.kind == "set" and ("int" if self.is_atom(b.args[0]) else b.args[0].base.kind) in ORDERED

    def _set_rep(self, v: SetV, t: RType):
        """The rep of a set built in a contract of literal elements (`BYTECODES + {PUSH0}` passed to a
        recursive function or stored in a datatype): its elements in increasing order, as an input's rep,
        so a value has one rep; elements of a type with no order of their own (strings, sets, datatypes) in
        the order of their terms' printed text, one order all the same. Read back (from_rep), the rep's term
        bounds its length: it may be longer than the length limit."""
        if all(z3.is_false(z3.simplify(g)) for g, _ in v.cands):
            return z3.Empty(self.sort(t.base))  # `{}`: one rep whatever its elements' type
        ordered = _sorted_literal(v)
        if ordered is None:
            # of elements the solver chooses, the rep (sorted by rank) is a term Z3's sequence solver does not
            # decide in time (it ignored its interrupt on `s - {x}` passed to a recursive function)
            raise Unsupported("set of elements not known before solving, built in a contract and stored in a "
                              "collection, datatype or function (only a literal's is stored, sorted)")
        return _seq_of(ordered, self.sort(t.base))

    def _map_rep(self, v: MapV, t: RType):
        """The rep of a map display of literal keys stored in a datatype (a world's accounts in a literal
        read back for admission): its keys in the order of a set's (`_sorted_literal`) with their values, as
        an input's rep."""
        kt, vt = t.base.args
        empty = all(z3.is_false(z3.simplify(g)) for g, _ in v.keys.cands)
        ordered = [] if empty else _sorted_literal(v.keys)
        if ordered is None:
            raise Unsupported("map expression stored in a collection, datatype or function (only a display of "
                              "literal keys is stored)")
        srt = self.sort(t.base)
        vals = [z3.simplify(v.get(k)) for k in ordered]  # reps already
        return srt.constructor(0)(_seq_of(ordered, z3.SeqSort(self.sort(kt))), _seq_of(vals, z3.SeqSort(self.sort(vt))))

    def _ordered(self, w, et: RType, strict: bool) -> list[z3.BoolRef]:
        """Canonical order of a set/multiset/map-key sequence, so one value has one rep."""
        out = []
        kind = "int" if self.is_atom(et) else et.base.kind
        for i in range(self.cap - 1):
            a, b = w[i], w[i + 1]
            if kind == "bv":
                rel = z3.ULT(a, b) if strict else z3.ULE(a, b)
            elif kind in ORDERED:
                rel = a < b if strict else a <= b
            else:  # unordered element sort: only distinctness (sets, map keys)
                rel = z3.And([w[j] != b for j in range(i + 1)]) if strict else z3.BoolVal(True)
            out.append(z3.Implies(z3.IntVal(i + 1) < z3.Length(w), rel))
        return out


def _number(x: z3.ExprRef) -> Fraction | None:
    """The value of a numeric literal term (int, bitvector, real, char), for sorting."""
    if z3.is_int_value(x) or z3.is_bv_value(x):
        return Fraction(x.as_long())
    if z3.is_rational_value(x):
        return Fraction(x.numerator_as_long(), x.denominator_as_long())
    return None


def _sorted_literal(v: SetV) -> list | None:
    """A literal set's elements (every guard decided, every element a value), once each: numbers in
    increasing order, other values in the order of their terms' printed text (ground terms simplified
    to one form: a value prints one way); None: not such a set."""
    present = [z3.simplify(g) for g, _ in v.cands]
    if not all(z3.is_true(g) or z3.is_false(g) for g in present):
        return None
    values = [z3.simplify(e) for g, (_, e) in zip(present, v.cands) if z3.is_true(g)]
    if all(_number(x) is not None for x in values):
        return [x for _, x in sorted({_number(x): x for x in values}.items())]
    if not all(_ground(x) for x in values):
        return None
    return [x for _, x in sorted({x.sexpr(): x for x in values}.items())]


def _ground(x: z3.ExprRef) -> bool:
    """A term of no variable and no uninterpreted constant: a value, whatever the model."""
    todo = [x]
    while todo:
        t = todo.pop()
        if z3.is_var(t) or (z3.is_app(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED):
            return False
        todo += t.children()
    return True


def _seq_of(items: list, sort: z3.SortRef):
    return z3.Concat(*[z3.Unit(x) for x in items]) if len(items) > 1 else z3.Unit(items[0]) if items else z3.Empty(sort)


def _nested(et: RType) -> bool:
    """Is an element type held as a Z3 sequence itself (a string, a sequence, a set...)?"""
    return et.base.kind in ("seq", "array", "set", "multiset", "map")


def cells(dims: int, cap: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for _ in range(dims):
        out = [c + (i,) for c in out for i in range(cap)]
    return out


def int_type() -> RType:
    return INT

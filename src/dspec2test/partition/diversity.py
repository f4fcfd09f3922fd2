"""Diversity within a partition: after its base and boundary scenarios, a few whose inputs differ from the
earlier ones where the contract leaves freedom.

Z3's models are small and regular: elements all distinct and ascending, the answer of a search at one end,
the only witness of an `exists` at the first index. Mutants that skip the last element, stop at the first
match, drop one condition of a filter or start a maximum at 0 pass on such inputs. Each candidate here is a
pin, a Dafny expression conjoined to the partition like a boundary pin, derived from the contract's
variables, their types and how the literals use them (looking into the predicates they call):

- an integer variable used as an index into an input sequence or array (`s[v]`): the element at it again
  after it, again before it, and the index away from both ends;
- an `exists` literal (also `!forall`) or a set comprehension over a bounded index: the property at the
  last index and at the first, an index where all its conditions but one hold (a near miss), a second
  witness, and (a count) an index not counted;
- a `forall` literal with a guard: an index where the guard holds and one where it fails;
- a scalar input compared with the elements of a collection (a search key): present twice;
- an integer output equal to a count over a collection: away from 0 and from the length;
- each input sequence or array (generic): elements below, at and above each constant the literals compare
  its elements with, a repeated element, a descent, an ascent, negative and positive entries,
  all elements distinct, sorted (where the contract orders its elements), all negative, all alike;
- scalar inputs of one type, in a member without input collections (generic): each strict ordering of two or
  three of them (above zero where the type has one), or with more, each one the strict least and greatest; then
  each signed one negative and positive;
- the fields of datatype and tuple inputs (fields.py) as inputs of their own: `v.value` among the scalars,
  `c.ids` among the sequences, behind the constructor test `v.C?` where the datatype has several (and none
  for a constructor the partition rules out).

A candidate is tried only when no earlier scenario of the partition already has the property (decided on
the models' values here, without the solver), then checked with a small resource budget and kept only when
the solver finds an input with it: a pin is never one the partition contradicts or one its earlier inputs
met. The specific candidates go first, round robin over a member's partitions, then the generic ones, within
a budget of scenarios and of pins tried per member.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.model.contracts import Contract, iter_members
from dspec2test.partition.fields import InputField, input_fields
from dspec2test.oracle import Model, SolveResult, SolverLike
from dspec2test.partition.partitions import PartitionSpec
from dspec2test.model.types import TypeIndex
from dspec2test.partition.novelty import novel
from dspec2test.model.walk import ORDER_OPS, conjuncts, free_names, rebuild, substitute
from dspec2test.partition.pinexpr import (ZERO, all_names, and_all, chain, count_of, eq, exists_of, forall_of,
                                          free_nodes, fresh, minus, nodes, plus)
from dspec2test.partition.witnesses import witness_pins
from dspec2test.records import Scenario, ScenarioKind, ScenarioResult

MAX_SCENARIOS = 6  # diverse scenarios kept per member
INLINE_DEPTH = 2  # levels of predicates inlined into the literals the pins are derived from
MAX_ATTEMPTS = 10  # pins tried per member (a pin the partition contradicts costs a query too)
# Z3 resource units (roughly 0.15 to 2.5 million a second) of the query that tells whether a pin is possible:
# a pin the partition contradicts often leaves Z3 undecided (quantifiers), and waiting for the clock there
# cost seconds a pin
CHECK_RLIMIT = 300_000

_ORDERED = {"int", "real", "char", "bv"}  # element kinds with < (a descent, sortedness)
_SIGNED = {"int", "real"}  # element kinds with negative values
_GENERIC = {"straddle", "repeated", "descent", "ascent", "mixed-signs", "distinct", "sorted", "all-negative", "constant",
            "shared-element", "order", "least", "greatest", "negative", "positive"}  # input collections, scalars
_COLLECTION_KINDS = {"seq", "set", "multiset", "map", "array", "array2", "array3"}
MAX_PERMUTED = 3  # scalars of one type up to which each of their orderings is a pin (3! = 6)
MAX_ORDERED = 6  # scalars of one type up to which each one is pinned least and greatest


@dataclass(frozen=True)
class Proposal:
    pin: ast.Expr
    family: str  # what it diversifies, e.g. "index-repeated-after" (for tests and notes)

    @property
    def specific(self) -> bool:
        """Derived from how the literals use a variable (an index, a witness, a key, a count), not only
        from a collection's type: these are tried first, in every partition, before the generic ones."""
        return self.family not in _GENERIC


@dataclass(frozen=True)
class Collection:
    """An input sequence or array, as the pins speak of it: an array the method modifies by its input
    state, `old(a)` (pins taken from a literal keep the literal's own words, whichever state they read);
    also a sequence field of a datatype or tuple input, `v.s`, its pins guarded by `v.C?` where needed."""

    name: str
    term: ast.Expr  # `s`, `a`, `old(a)` or `v.s`
    size: ast.Expr  # `|s|` or `a.Length`
    elem: str  # TypeIndex kind of its elements
    guard: ast.Expr | None = None  # `v.C?`: the constructor a field's value must be built by

    def at(self, i: ast.Expr) -> ast.Expr:
        return ast.Index(self.term, (i,))

    def index(self, i: ast.Expr) -> ast.Expr:
        """`0 <= i < |s|`"""
        return chain(ZERO, "<=", i, "<", self.size)


# ---------------------------------------------------------------- candidates of one partition


@dataclass(frozen=True)
class Functions:
    """The program's functions and predicates whose bodies the pins may be derived from: a contract that says
    `found(a, x, i)` uses `i` as an index as much as one that says `a[i] == x`."""

    bodies: dict[str, ast.Function]  # by short name, where the name is unambiguous

    @staticmethod
    def of(program: ast.Program) -> "Functions":
        seen: dict[str, list[ast.Function]] = {}
        for _, d in iter_members(program.decls):
            if isinstance(d, ast.Function) and d.body is not None and d.kind in ("function", "predicate") \
                    and not any(a.name in ("opaque", "extern") for a in d.attributes):
                seen.setdefault(d.name, []).append(d)
        bodies = {name: fs[0] for name, fs in seen.items()
                  if len(fs) == 1 and fs[0].body is not None and name not in free_names(fs[0].body)
                  and _structural(fs[0])}  # not recursive
        return Functions(bodies)

    def inline(self, e: ast.Expr, depth: int = INLINE_DEPTH) -> ast.Expr:
        """Calls of these functions replaced by their bodies on the arguments, `depth` levels deep; a call
        whose arguments mention a name the body binds stays (no capture)."""
        if depth <= 0 or not self.bodies:
            return e

        def fn(n: ast.Node) -> ast.Node | None:
            if not (isinstance(n, ast.Call) and isinstance(n.callee, ast.Name) and not n.arg_names):
                return None
            f = self.bodies.get(n.callee.name)
            if f is None or len(f.params) != len(n.args) or f.body is None:
                return None
            if any(free_names(a) & all_names(f.body) - {p.name for p in f.params} for a in n.args):
                return None
            return substitute(f.body, {p.name: a for p, a in zip(f.params, n.args)})

        out = rebuild(e, fn)
        return e if out == e else self.inline(out, depth - 1)


NO_FUNCTIONS = Functions({})


def _structural(f: ast.Function) -> bool:
    """Does the body say something the pins build on (a quantifier, a comprehension, an index into a
    parameter)? Others (`IsVowel(c)`, `IsEven(n)`) stay calls, which keeps the pins short."""
    params = {p.name for p in f.params}
    return any(isinstance(n, (ast.Quantifier, ast.SetComprehension))
               or isinstance(n, ast.Index) and isinstance(n.seq, ast.Name) and n.seq.name in params
               for n in nodes(f.body))  # type: ignore[arg-type]


def candidates(contract: Contract, part: PartitionSpec, types: TypeIndex,
               functions: Functions = NO_FUNCTIONS) -> list[Proposal]:
    """The diversity pins of a partition, most wanted first, without repeats."""
    part = replace(part, literals=tuple(functions.inline(lit) for lit in part.literals))
    fields = [f for f in input_fields(contract, types) if not _refuted(f.guard, part.literals)]
    colls = _collections(contract, types) + _field_collections(fields, types)
    by_term = {c.term: c for c in colls}
    names = {v.name for v in contract.vars}
    taken = set(names)  # a pin's own bound names need only avoid the variables it reads
    out: list[Proposal] = []

    def add(family: str, pin: ast.Expr | None) -> None:
        if pin is not None and all(c.pin != pin for c in out):
            out.append(Proposal(pin, family))

    ints = {v.name for v in contract.vars if types.kind(v.type) == "int"}
    indexes = _index_uses(part.literals, by_term, ints)
    for v, c in indexes:
        j = ast.Name(fresh("j", taken))
        vv = ast.Name(v)
        # (each bound variable's range an atom of its own: the encoder expands those cheaply)
        within = chain(ZERO, "<=", vv, "<", c.size)
        add("index-repeated-after", and_all(within, exists_of([j], and_all(chain(vv, "<", j, "<", c.size),
                                                                   eq(c.at(j), c.at(vv))))))
        add("index-repeated-before", and_all(within, exists_of([j], and_all(chain(ZERO, "<=", j, "<", vv),
                                                                    eq(c.at(j), c.at(vv))))))
        add("index-inner", chain(ZERO, "<", vv, "<", minus(c.size, 1)))
    for family, pin in witness_pins(part.literals, taken):
        add(family, pin)
    for x, c in _keys(part.literals, by_term, contract, types):
        i = ast.Name(fresh("i", taken))
        add("key-repeated", ast.BinOp(">", count_of(i, and_all(c.index(i), eq(c.at(i), ast.Name(x)))), ast.IntLit(1)))
    indexed = {v for v, _ in indexes}
    for out_var, size in _counts(part.literals, contract, colls, indexed, types):
        # more than one counted, not all: a count that stops at its first match, or never skips, is off
        add("count-inner", chain(ast.IntLit(1), "<", ast.Name(out_var), "<", size))
    compared = _compared_elements(part.literals, by_term)
    for c, k in _element_constants(part.literals, by_term):
        # elements below, at and above a constant the contract sorts them by (`a[x] == 0`, `a[x] > 0`): Z3's
        # elements all fall on one side of it, or sit at it alone, so a three-way partition or a filter
        # that mistakes `<` for `<=` passes (generic: the families read from a variable's use keep their turn)
        i, j, m = (ast.Name(fresh(b, taken)) for b in ("i", "j", "m"))
        add("straddle", and_all(exists_of([i], and_all(c.index(i), ast.BinOp("<", c.at(i), k))),
                             exists_of([j], and_all(c.index(j), eq(c.at(j), k))),
                             exists_of([m], and_all(c.index(m), ast.BinOp(">", c.at(m), k)))))
    for family, pin in _shared_pins(colls, taken):
        add(family, pin)
    for c in colls:
        for family, pin in _collection_pins(c, c.term in compared, taken):
            add(family, _guarded([c.guard], pin))
    inputs = [*(v.type for v in contract.params), *(f.type for f in fields)]
    if not any(types.kind(t) in _COLLECTION_KINDS for t in inputs):
        # (beside a collection, the pins above already set the scalars against its elements: an ordering of
        # indexes or a key's sign bought no kill on the paper set and cost a fifth more solving)
        for family, pin in _scalar_pins(contract, types, tuple(fields)):
            add(family, pin)
    # constant offsets folded: `s[|s| - 1 - 1 + 1]` is `s[|s| - 1]`
    return [Proposal(_fold(cand.pin), cand.family) for cand in out]


def _refuted(guard: ast.Expr | None, literals: tuple[ast.Expr, ...]) -> bool:
    """Does a literal of the partition rule out the constructor test `v.C?` (`!v.C?`, or `v.D?` for
    another D)? Pins behind it would cost an attempt each; the fields of the constructor the partition
    keeps then take the first place in their orderings."""
    if not (isinstance(guard, ast.MemberSelect) and guard.name.endswith("?")):
        return False
    for lit in literals:
        for c in conjuncts(lit):
            if isinstance(c, ast.UnOp) and c.op == "!" and c.operand == guard:
                return True
            if isinstance(c, ast.MemberSelect) and c.name.endswith("?") and c.obj == guard.obj and c != guard:
                return True
    return False


def _fold(e: ast.Expr) -> ast.Expr:
    """`t + a - b` with literals a and b as `t + (a - b)` (or `t` alone), bottom up."""

    def offset(n: ast.Node) -> tuple[ast.Expr, int] | None:
        if isinstance(n, ast.BinOp) and n.op in ("+", "-") and isinstance(n.right, ast.IntLit):
            return n.left, n.right.value if n.op == "+" else -n.right.value
        return None

    def fn(n: ast.Node) -> ast.Node | None:
        outer = offset(n)
        if outer is None:
            return None
        inner = offset(outer[0])
        base, k = (inner[0], inner[1] + outer[1]) if inner is not None else outer
        if isinstance(base, ast.IntLit):
            k += base.value
            return ast.IntLit(k) if k >= 0 else ast.UnOp("-", ast.IntLit(-k))
        if k == 0:
            return base
        return ast.BinOp("+" if k > 0 else "-", base, ast.IntLit(abs(k)))

    return rebuild(e, fn)


def _collections(contract: Contract, types: TypeIndex) -> list[Collection]:
    out = []
    for v in contract.params:
        kind = types.kind(v.type)
        if kind not in ("seq", "array") or v.ghost:
            continue
        elem = _element_kind(v.type, types)
        if elem is None:
            continue
        term: ast.Expr = ast.Old(ast.Name(v.name)) if v.name in contract.pre_state else ast.Name(v.name)
        size: ast.Expr = ast.MemberSelect(term, "Length") if kind == "array" else ast.Cardinality(term)
        out.append(Collection(v.name, term, size, elem))
    return out


def _field_collections(fields: list[InputField], types: TypeIndex) -> list[Collection]:
    """The sequence fields of datatype and tuple inputs (values: never a pre-state of their own)."""
    out = []
    for f in fields:
        elem = _element_kind(f.type, types) if types.kind(f.type) == "seq" else None
        if elem is not None:
            out.append(Collection(print_expr(f.term), f.term, ast.Cardinality(f.term), elem, f.guard))
    return out


def _element_kind(t: ast.Type, types: TypeIndex) -> str | None:
    base = types.base(t)
    if not isinstance(base, ast.NamedType):
        return None
    if base.name == "string":
        return "char"
    if base.name in ("seq", "array") and len(base.args) == 1:
        kind = types.kind(base.args[0])
        scalar = _scalar(base.args[0], types)
        if kind == "other" and scalar is not None and not scalar.signed and scalar.zero is not None:
            return "bv"  # a bitvector: ordered (unsigned), no negatives
        return kind if kind in _ORDERED or kind == "bool" else None
    return None


def _collection_pins(c: Collection, compared: bool, taken: set[str]) -> Iterator[tuple[str, ast.Expr]]:
    i = ast.Name(fresh("i", taken))
    j = ast.Name(fresh("j", taken | {i.name}))
    if c.elem == "bool":
        return
    # fewer distinct values than elements: a set's cardinality costs the encoder far less than `exists i, j`
    values = ast.Cardinality(ast.SetComprehension((ast.BoundVar(i.name),), c.index(i), c.at(i)))
    yield "repeated", ast.BinOp("<", values, c.size)
    if c.elem in _ORDERED:
        yield "descent", exists_of([i], ast.BinOp("&&", chain(ZERO, "<=", i, "<", minus(c.size, 1)),
                                               ast.BinOp(">", c.at(i), c.at(plus(i, 1)))))
        # and a rise: a later element above an earlier one is what running maxima and searches react to
        yield "ascent", exists_of([i], ast.BinOp("&&", chain(ZERO, "<=", i, "<", minus(c.size, 1)),
                                              ast.BinOp("<", c.at(i), c.at(plus(i, 1)))))
    if c.elem in _SIGNED:
        zero: ast.Expr = ast.RealLit("0.0") if c.elem == "real" else ZERO
        yield "mixed-signs", and_all(exists_of([i], and_all(c.index(i), ast.BinOp("<", c.at(i), zero))),
                                  exists_of([j], and_all(c.index(j), ast.BinOp(">", c.at(j), zero))))
    yield "distinct", ast.BinOp("&&", ast.BinOp(">", c.size, ast.IntLit(1)), ast.BinOp("==", values, c.size))
    if c.elem in _ORDERED and compared:
        yield "sorted", ast.BinOp("&&", ast.BinOp(">", c.size, ast.IntLit(2)),
                                  forall_of([i], chain(ZERO, "<=", i, "<", minus(c.size, 1)),
                                          ast.BinOp("<=", c.at(i), c.at(plus(i, 1)))))
    if c.elem in _SIGNED:
        zero = ast.RealLit("0.0") if c.elem == "real" else ZERO
        yield "all-negative", ast.BinOp("&&", ast.BinOp(">", c.size, ast.IntLit(1)),
                                        forall_of([i], c.index(i), ast.BinOp("<", c.at(i), zero)))
    # every element alike: a running maximum and its runner-up never part, `<` and `<=` between elements
    # never differ
    yield "constant", ast.BinOp("&&", ast.BinOp(">", c.size, ast.IntLit(1)),
                                forall_of([i], c.index(i), eq(c.at(i), c.at(ZERO))))


def _scalar_pins(contract: Contract, types: TypeIndex,
                 fields: tuple[InputField, ...] = ()) -> Iterator[tuple[str, ast.Expr]]:
    """Z3's scalar inputs tie or come out alike (`x == y == z`, or one at a boundary and the others equal),
    so a body's comparisons between them see one or two of their orderings and a mutated one survives.
    Pinned: each strict ordering of the scalars of one type (with more than MAX_PERMUTED, each one strictly
    least and greatest), above zero where the type has one: a body that tests `0 < x` where it should test
    `y < x` agrees with it on the negatives the boundaries give. Then each signed scalar negative, positive.
    The scalar fields of datatype and tuple inputs (`v.value`) take part like inputs, after them; a field of
    one constructor among several is ordered only where it is the first constructor of its value with a
    field of that type (two constructors' fields of one value never coexist), and signed each, behind its
    constructor test (`v.C? && v.f < 0`)."""
    groups: dict[str, list[tuple[ast.Expr, Scalar, ast.Expr | None]]] = {}
    for v in contract.params:
        kind = None if v.ghost else _scalar(v.type, types)
        if kind is not None:
            groups.setdefault(kind.group, []).append((ast.Name(v.name), kind, None))
    for f in fields:
        kind = _scalar(f.type, types)
        if kind is not None:
            groups.setdefault(kind.group, []).append((f.term, kind, f.guard))
    for group in groups.values():
        ordered = _one_constructor_each(group)
        vs, zero = [v for v, _, _ in ordered], group[0][1].zero
        guards = [g for _, _, g in ordered]
        above = [zero, "<"] if zero is not None else []
        if 1 < len(vs) <= MAX_PERMUTED:
            for order in _permutations(vs):
                yield "order", _guarded(guards, chain(*above, *_interleave(order, "<")))
        elif MAX_PERMUTED < len(vs) <= MAX_ORDERED:
            for family in ("least", "greatest"):
                for x in vs:
                    others = [w for w in vs if w != x]
                    lows = others if family == "greatest" else [x]  # above zero: the least, whichever it is
                    yield family, _guarded(guards, and_all(
                        *[chain(*above, w) for w in lows if above],
                        *[ast.BinOp("<", x, w) if family == "least" else ast.BinOp("<", w, x) for w in others]))
    for family, op in (("negative", "<"), ("positive", ">")):
        for group in groups.values():
            for term, kind, guard in group:
                if kind.zero is not None and (kind.signed or family == "positive"):
                    yield family, _guarded([guard], ast.BinOp(op, term, kind.zero))


_Member = tuple[ast.Expr, "Scalar", "ast.Expr | None"]  # a scalar term, its type, its constructor test


def _one_constructor_each(group: list[_Member]) -> list[_Member]:
    """The members of a group that can hold together: inputs, and fields of a value's first constructor in
    the group (by the value its constructor test reads)."""
    chosen: dict[ast.Expr, ast.Expr] = {}  # value -> its constructor test
    out = []
    for term, kind, guard in group:
        if isinstance(guard, ast.MemberSelect):
            if chosen.setdefault(guard.obj, guard) != guard:
                continue
        out.append((term, kind, guard))
    return out


def _guarded(guards: list[ast.Expr | None], pin: ast.Expr) -> ast.Expr:
    """`v.C? && w.D? && pin`, each constructor test once; the pin alone without any."""
    tests = list(dict.fromkeys(g for g in guards if g is not None))
    return and_all(*tests, pin) if tests else pin


@dataclass(frozen=True)
class Scalar:
    """An ordered scalar type as the pins group it: values of one group compare in Dafny (`nat` with `int`,
    a newtype only with itself)."""

    group: str
    zero: ast.Expr | None  # None for char
    signed: bool  # has negative values (not a bitvector, not a char, not a `nat`)


def _scalar(t: ast.Type, types: TypeIndex) -> Scalar | None:
    newtype, natural = None, False
    for _ in range(20):  # synonyms and subset types unfold to their base; a newtype is a group of its own
        d = types.decls.get(t.name) if isinstance(t, ast.NamedType) else None
        natural = natural or isinstance(t, ast.NamedType) and t.name == "nat"
        if isinstance(d, ast.Newtype) and newtype is None:
            newtype = d.name
        if isinstance(d, (ast.SubsetType, ast.Newtype)):
            t = d.base
        elif isinstance(d, ast.TypeSynonym) and d.rhs is not None and not d.type_params:
            t = d.rhs
        else:
            break
    name = t.name if isinstance(t, ast.NamedType) else ""
    if name in ("int", "nat"):
        return Scalar(newtype or "int", ZERO, not natural)
    if name == "real":
        return Scalar(newtype or "real", ast.RealLit("0.0"), True)
    if name == "char":
        return Scalar(newtype or "char", None, False)
    if name.startswith("bv") and name[2:].isdigit() and int(name[2:]) > 0:
        return Scalar(newtype or name, ZERO, False)
    return None


def _permutations(xs: list[ast.Expr]) -> list[list[ast.Expr]]:
    if len(xs) <= 1:
        return [list(xs)]
    return [[x, *rest] for k, x in enumerate(xs) for rest in _permutations(xs[:k] + xs[k + 1:])]


def _interleave(xs: list[ast.Expr], op: str) -> list[Any]:
    out: list[Any] = [xs[0]]
    for x in xs[1:]:
        out += [op, x]
    return out


def _shared_pins(colls: list[Collection], taken: set[str]) -> Iterator[tuple[str, ast.Expr]]:
    """Two input collections of one element kind sharing a value (away from 0 where it is signed): Z3's
    models keep them disjoint, and a body that tests membership in the wrong one, or drops a membership
    test, is only seen on an element both hold."""
    i = ast.Name(fresh("i", taken))
    j = ast.Name(fresh("j", taken | {i.name}))
    for k, a in enumerate(colls):
        for b in colls[k + 1:]:
            if a.elem != b.elem or a.elem == "bool":
                continue
            if a.guard is not None and b.guard is not None and isinstance(a.guard, ast.MemberSelect) \
                    and isinstance(b.guard, ast.MemberSelect) and a.guard.obj == b.guard.obj and a.guard != b.guard:
                continue  # fields of two constructors of one value
            nonzero = [ast.BinOp("!=", a.at(i), ast.RealLit("0.0") if a.elem == "real" else ZERO)] \
                if a.elem in _SIGNED else []
            yield "shared-element", _guarded([a.guard, b.guard], exists_of([i, j], and_all(
                a.index(i), b.index(j), eq(a.at(i), b.at(j)), *nonzero)))


# ---------------------------------------------------------------- how the literals use the variables


def _collection_of(e: ast.Expr, by_term: dict[ast.Expr, Collection], bound: frozenset[str]) -> Collection | None:
    if isinstance(e, ast.MemberSelect) and e in by_term:  # a field of an input, `v.s`
        return None if free_names(e) & bound else by_term[e]
    name = e.name if isinstance(e, ast.Name) else e.expr.name if (
        isinstance(e, ast.Old) and isinstance(e.expr, ast.Name)) else None
    if name is None or name in bound:
        return None
    return next((c for c in by_term.values() if c.name == name), None)


def _index_uses(literals: tuple[ast.Expr, ...], by_term: dict[ast.Expr, Collection],
                ints: set[str]) -> list[tuple[str, Collection]]:
    """(v, s) for each contract integer variable v that indexes an input collection s (`s[v]`), first seen first."""
    out: list[tuple[str, Collection]] = []
    for lit in literals:
        for n, bound in free_nodes(lit):
            if isinstance(n, ast.Index) and len(n.indices) == 1 and isinstance(n.indices[0], ast.Name):
                v = n.indices[0].name
                c = _collection_of(n.seq, by_term, bound)
                if c is not None and v in ints and v not in bound and (v, c) not in out:
                    out.append((v, c))
    return out


def _keys(literals: tuple[ast.Expr, ...], by_term: dict[ast.Expr, Collection], contract: Contract,
          types: TypeIndex) -> list[tuple[str, Collection]]:
    """(x, s) for each scalar input x compared for (in)equality with an element of an input collection s."""
    scalars = {v.name: types.kind(v.type) for v in contract.params if types.kind(v.type) in _ORDERED | {"bool"}}
    out: list[tuple[str, Collection]] = []
    for lit in literals:
        for n, bound in free_nodes(lit):
            if not (isinstance(n, ast.BinOp) and n.op in ("==", "!=")):
                continue
            for a, b in ((n.left, n.right), (n.right, n.left)):
                if isinstance(a, ast.Index) and isinstance(b, ast.Name) and b.name in scalars and b.name not in bound:
                    c = _collection_of(a.seq, by_term, bound)
                    if c is not None and c.elem == scalars[b.name] and (b.name, c) not in out:
                        out.append((b.name, c))
    return out


def _counts(literals: tuple[ast.Expr, ...], contract: Contract, colls: list[Collection], indexed: set[str],
            types: TypeIndex) -> list[tuple[str, ast.Expr]]:
    """(c, size) for each integer output c equal to what may be a count over a collection: the cardinality
    of a set comprehension, or a function applied to it (`countMin(v, ...)`), and no index into it."""
    outs = {v.name for v in contract.outputs if types.kind(v.type) == "int"} - indexed
    out: list[tuple[str, ast.Expr]] = []
    for lit in literals:
        for n, bound in free_nodes(lit):
            if not (isinstance(n, ast.BinOp) and n.op == "=="):
                continue
            for a, b in ((n.left, n.right), (n.right, n.left)):
                counted = isinstance(b, ast.Cardinality) and isinstance(b.expr, ast.SetComprehension) \
                    or isinstance(b, ast.Call)
                if not (isinstance(a, ast.Name) and a.name in outs and a.name not in bound and counted):
                    continue
                for c in colls:
                    if c.name in free_names(b) and (a.name, c.size) not in out:
                        out.append((a.name, c.size))
    return out


def _element_constants(literals: tuple[ast.Expr, ...],
                       by_term: dict[ast.Expr, Collection]) -> list[tuple[Collection, ast.Expr]]:
    """(s, k) for each constant k some literal compares an element of an ordered input collection s with
    (`s[x] == 0`, `0 < s[x]`), first seen first."""
    out: list[tuple[Collection, ast.Expr]] = []
    for lit in literals:
        for n, bound in free_nodes(lit):
            pairs: list[tuple[ast.Expr, ast.Expr]] = []
            if isinstance(n, ast.BinOp) and n.op in ORDER_OPS | {"==", "!="}:
                pairs = [(n.left, n.right)]
            elif isinstance(n, ast.Chain):
                pairs = list(zip(n.operands, n.operands[1:]))
            for a, b in (p for pair in pairs for p in (pair, pair[::-1])):
                if not (isinstance(a, ast.Index) and len(a.indices) == 1 and _constant(b)):
                    continue
                c = _collection_of(a.seq, by_term, bound)
                if c is not None and c.elem in _ORDERED and (c, b) not in out:
                    out.append((c, b))
    return out


def _constant(e: ast.Expr) -> bool:
    """A numeric or character literal, or a negated one."""
    if isinstance(e, ast.UnOp) and e.op == "-":
        e = e.operand
    return isinstance(e, (ast.IntLit, ast.RealLit, ast.CharLit))


def _compared_elements(literals: tuple[ast.Expr, ...], by_term: dict[ast.Expr, Collection]) -> set[ast.Expr]:
    """Terms of the collections two of whose elements some literal orders (`s[i] <= s[j]`)."""
    out: set[ast.Expr] = set()
    for lit in literals:
        for n, bound in free_nodes(lit):
            pairs: list[tuple[ast.Expr, ast.Expr]] = []
            if isinstance(n, ast.BinOp) and n.op in ORDER_OPS:
                pairs = [(n.left, n.right)]
            elif isinstance(n, ast.Chain):
                pairs = [(a, b) for op, a, b in zip(n.ops, n.operands, n.operands[1:]) if op in ORDER_OPS]
            for a, b in pairs:
                if isinstance(a, ast.Index) and isinstance(b, ast.Index):
                    ca, cb = _collection_of(a.seq, by_term, bound), _collection_of(b.seq, by_term, bound)
                    if ca is not None and ca == cb:
                        out.add(ca.term)
    return out


# ---------------------------------------------------------------- scheduling over a member's partitions


@dataclass
class PartitionState:
    """A partition as generation builds it: its spec, its scenarios and the models solved so far (None where
    the solver found no input), and the whole constraint solved for, as Dafny."""

    part: PartitionSpec
    scenarios: list[ScenarioResult]  # the diverse ones join these
    models: list[Model | None]
    constraint: str = ""


# (partition state, scenario) -> the model solved for it, or None (no input with the pin)
SolveScenario = Callable[[PartitionState, Scenario, tuple[ast.Expr, ...]], Any]


def diversify(contract: Contract, states: list[PartitionState], types: TypeIndex, solver: SolverLike,
              solve: SolveScenario, functions: Functions = NO_FUNCTIONS, stop: Callable[[], bool] = lambda: False,
              max_scenarios: int = MAX_SCENARIOS, max_attempts: int = MAX_ATTEMPTS) -> int:
    """Diverse scenarios for a member's partitions, within the budget: the specific candidates round robin
    over the partitions (each one's most wanted first), then the generic ones the same way. A pin is first
    checked with a small resource budget, then `solve` runs its scenario and records it. Returns the number
    of pins tried."""
    queues = [candidates(contract, s.part, types, functions) if any(m is not None for m in s.models) else []
              for s in states]
    specific = [[c for c in q if c.specific] for q in queues]
    generic = [[c for c in q if not c.specific] for q in queues]
    kept = attempts = 0
    for cand, k in [*_round_robin(specific), *_round_robin(generic)]:
        if kept >= max_scenarios or attempts >= max_attempts or stop():
            break
        state = states[k]
        if not novel(cand.pin, [m for m in state.models if m is not None], types):
            continue
        attempts += 1
        constraints = state.part.literals + (cand.pin,)
        if solver.check(constraints, budget=CHECK_RLIMIT) is SolveResult.UNSAT:
            continue  # the partition contradicts the pin; when Z3 cannot tell quickly, the solver's tiers
            # (and their bounded fallback) may still find an input
        sc = Scenario(state.part.id, len(state.scenarios) + 1, ScenarioKind.DIVERSE, print_expr(cand.pin))
        model = solve(state, sc, constraints)
        if model is not None:
            state.models.append(model)
            kept += 1
    return attempts


def _round_robin(queues: list[list[Proposal]]) -> Iterator[tuple[Proposal, int]]:
    depth = max((len(q) for q in queues), default=0)
    for d in range(depth):
        for k, q in enumerate(queues):
            if d < len(q):
                yield q[d], k

"""Encoded values: a Z3 term for scalars, sequences and datatypes; guarded candidate lists for sets,
multisets and maps (so membership, cardinality and equality stay quantifier-free); an uninterpreted
function for function-typed parameters; for an object, its identity (and the class it is built as),
its fields being variables of their own, found through the heap state the environment holds.

A guarded candidate list `[(g, e), ...]` says "e is an element when g holds"; duplicates are allowed,
so unions are concatenations and every operation stays linear in the (small, static) list length.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

import z3

from dspec2test.dafny import ast
from dspec2test.model.resolve import RType, Scope
from dspec2test.errors import Unsupported

Cands = tuple[tuple[z3.BoolRef, z3.ExprRef], ...]


def _or(xs):
    xs = list(xs)
    return z3.BoolVal(False) if not xs else xs[0] if len(xs) == 1 else z3.Or(xs)


def _and(xs):
    xs = list(xs)
    return z3.BoolVal(True) if not xs else xs[0] if len(xs) == 1 else z3.And(xs)


@dataclass(frozen=True)
class SetV:
    cands: Cands
    rep: z3.ExprRef | None = None  # the canonical sequence this set was read from, if any

    def member(self, x) -> z3.BoolRef:
        return _or(z3.And(g, e == x) for g, e in self.cands)

    def distinct_flags(self) -> list[z3.BoolRef]:
        """For each candidate: it is present and no earlier present candidate equals it."""
        out = []
        for i, (g, e) in enumerate(self.cands):
            earlier = [z3.And(g2, e2 == e) for g2, e2 in self.cands[:i]]
            out.append(z3.And(g, z3.Not(_or(earlier))) if earlier else g)
        return out

    def card(self) -> z3.ArithRef:
        flags = self.distinct_flags()
        return z3.Sum([z3.If(f, 1, 0) for f in flags]) if flags else z3.IntVal(0)


@dataclass(frozen=True)
class MultisetV:
    cands: Cands  # every element with positive multiplicity appears among the present candidates
    count: Callable[[z3.ExprRef], z3.ArithRef]
    rep: z3.ExprRef | None = None

    def card(self) -> z3.ArithRef:
        flags = SetV(self.cands).distinct_flags()
        terms = [z3.If(f, self.count(e), 0) for f, (_, e) in zip(flags, self.cands)]
        return z3.Sum(terms) if terms else z3.IntVal(0)


@dataclass(frozen=True)
class MapV:
    keys: SetV
    get: Callable[[z3.ExprRef], z3.ExprRef]
    rep: z3.ExprRef | None = None


@dataclass(frozen=True)
class FuncV:
    """A function value: an input's uninterpreted Z3 function, or a function held in a datatype or a
    collection, a Z3 array (a function symbol cannot be a field) indexed by its argument, or by the tuple
    `pack` makes of its arguments where it has several."""

    fn: z3.FuncDeclRef | z3.ArrayRef
    pack: Callable[..., z3.ExprRef] | None = None

    def apply(self, args):
        if isinstance(self.fn, z3.ArrayRef):
            return z3.Select(self.fn, self.pack(*args) if self.pack is not None else args[0])
        return self.fn(*args)


@dataclass(frozen=True)
class ObjV:
    """An object input (or output): `name` keys its fields in a heap state ("this", "o", "this.next");
    `id` is an Int, 0 for null; `cls` an Int choosing among `classes` (None when there is one)."""

    name: str
    id: z3.ArithRef
    classes: tuple = ()  # per class it may be built as: that ClassDecl and every trait it extends
    cls: z3.ArithRef | None = None
    slot: int = 0  # its position among the member's objects: preferred identity, so objects differ

    def is_class(self, decl) -> z3.BoolRef:
        """It is an instance of `decl` (a class, or a trait its class extends)."""
        hits = [i for i, kinds in enumerate(self.classes) if any(d is decl for d in kinds)]
        if self.cls is None:
            return z3.BoolVal(bool(hits))
        return _or(self.cls == i for i in hits)


@dataclass(frozen=True)
class Heap:
    """One state of the objects: field values keyed "root.field" (the solver's variable names); the
    fields of objects held in collections as Z3 functions of their identity, by field name."""

    fields: dict
    elements: dict = field(default_factory=dict)  # field name -> (z3 function, RType of the field)


HEAP = "#heap"  # the environment's entry holding the current Heap: not a Dafny name, so it clashes with none
THIS = "this"  # the environment's entry holding the receiver
PRE_HEAP = "#old-heap"  # where present, the Heap old() reads (a method's contract in a call sequence)


@dataclass(frozen=True)
class LambdaV:
    """A lambda's value (the literal of a function-typed input, or a lambda in a contract, closed over its
    environment): applying it encodes the body with the parameters bound to the arguments. It has no Z3
    term, so it can be applied and passed to a function that is inlined, and nothing else."""

    params: tuple[str, ...]
    body: ast.Expr
    env: "Env"
    node: ast.Node | None = None  # the lambda written in a contract, where a use it cannot have is reported


@dataclass(frozen=True)
class TV:
    """A typed encoded value. `lit` keeps an integer literal's value so it can take the type of its context.

    `v` is what `t.base.kind` says: a Z3 term for scalars, sequences, datatypes and arrays; SetV, MultisetV or
    MapV for those collections; FuncV or LambdaV for a function; ObjV for an object. The kind, not the
    Python class, is what the encoder dispatches on, so `v` is typed as what it holds alike: Any."""

    v: Any
    t: RType
    lit: int | None = None
    view: tuple | None = None  # a slice: (base sequence, lo, length) with v == Extract(base, lo, length)


def multiset_from_cands(cands: Cands) -> MultisetV:
    def count(x):
        terms = [z3.If(z3.And(g, e == x), 1, 0) for g, e in cands]
        return z3.Sum(terms) if terms else z3.IntVal(0)

    return MultisetV(cands, count)


def and_(xs) -> z3.BoolRef:
    return _and(xs)


def or_(xs) -> z3.BoolRef:
    return _or(xs)


@dataclass(frozen=True)
class Env:
    """Bound names during encoding, the scope other names resolve in, and the quantifier expansion budget."""

    vars: dict[str, TV]
    scope: Scope
    budget: int = 400  # how many instances quantifier expansion may still make at this nesting
    # the type a function body's value must have: what a constructor of a generic datatype takes its
    # type arguments from when its own arguments do not say (`Some([])`, `None`)
    expect: RType | None = None

    def bind(self, names: dict[str, TV]) -> Env:
        return replace(self, vars={**self.vars, **names})


OPAQUE = "opaque#fn"  # the prefix of a function value whose body does not encode (encode/calls.py lambda_rep)


def mentions_opaque(term: z3.ExprRef) -> bool:
    """Does the term read an opaque function value? A formula over one is about every function, not the one
    a test holds, so it decides nothing about that test."""
    todo, seen = [term], set()
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED and t.decl().name().startswith(OPAQUE):
            return True
        todo += t.children()
    return False


def unsupported(construct: str, node) -> Unsupported:
    sp = getattr(node, "span", None)
    return Unsupported(construct, sp.line if sp else 0, sp.col if sp else 0)

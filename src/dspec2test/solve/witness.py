"""Large inputs built from their type's witness: only what the contract reads is solved for.

A machine state (evm-dafny's `ExecutingState`: a dozen nested fields of maps, sets, code and function
tables) has type constraints Z3 does not solve in time, though a contract such as `And(st)`'s reads only
its stack. Such an input, where its subset type declares a `witness`, is written as that witness with the
fields the contract reads replaced, `W.(evm := W.evm.(stack := S))`: the fields it never names keep the
witness's values, which Dafny proved to meet the type, so Z3 leaves them free and unconstrained, and the
test takes them from W.

A field counts as read when its name occurs anywhere in the contract, in the functions it reaches, or in
a type constraint that reads a solved field (names, not resolved fields: a name shared with anything
else counts too, which only solves more). A constraint that reads no solved field holds of the value as
it does of W. The test still checks the requires and the input's type before the call, so a value the
solver misjudged is a bad input, never a failure of the program.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import z3

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.model.contracts import Contract
from dspec2test.model.names import TestNames
from dspec2test.model.resolve import Resolver, RType, Scope
from dspec2test.model.walk import conjuncts
from dspec2test.solve.literal import Data, literal
from dspec2test.solve.reads import Reads
from dspec2test.solve.types import Types
from dspec2test.solve.values import TV, and_

_DEPTH = 4  # constructors deep that a witness is taken apart


@dataclass(frozen=True)
class Part:
    """A field of the constructor at one level: kept (the witness's), solved, or taken apart."""

    name: str
    type: RType
    solved: bool
    inner: "Level | None" = None
    text: str = ""  # the kept value, as the tests file writes it


@dataclass(frozen=True)
class Level:
    """The value at one level of the input: its constructor and what becomes of each field. Written as
    the constructor applied (`app`), or as the witness's value updated where solved (`base`)."""

    type: RType  # the declared type here (subset layers included)
    ctor: str
    parts: tuple[Part, ...]
    app: str = ""  # the constructor, as the tests file writes it
    base: str = ""  # the witness's value here, when written by updates
    made: bool = False  # no witness here: built by its constructor, so its type's constraints are checked
    # the same value built by each other constructor its type allows, where nothing fixes one: the solver
    # picks (`vm: TerminatedState`, RETURNS or ERROR)
    others: tuple["Level", ...] = ()


@dataclass(frozen=True)
class Shown:
    """The witness's text at one level: a constructor applied to its arguments' texts, or a value's."""

    text: str
    ctor: str = ""  # the constructor applied here, as the tests file writes it ("" : not an application)
    args: tuple["Shown", ...] = ()


@dataclass(frozen=True)
class Known:
    """What is known of a value at one level: the expression it is (a witness or a part of one, through
    constants) and its text. No expression: a value made by a constructor the contract's requires or the
    type fixes, its fields taken from their own types' witnesses."""

    expr: ast.Expr | None = None
    scope: Scope | None = None
    shown: Shown | None = None


@dataclass(frozen=True)
class Built:
    """An input built from its type's witness."""

    shown: Shown  # the root, as the tests file writes it before anything is solved
    root: Level
    read: frozenset[str]  # the names the contract (and the constraints that matter) read
    checked: frozenset[RType]  # the constrained types whose constraint reads a solved field

    def checks(self, t: RType) -> bool:
        """Is t's constraint about solved fields (else it holds as it does of the witness)?"""
        return t in self.checked

    def solved(self) -> list[str]:
        """The paths solved for, for the user: `evm.stack`."""
        out: list[str] = []

        def visit(level: Level, prefix: str) -> None:
            for alt in (level, *level.others):
                for p in alt.parts:
                    path = prefix + p.name
                    if p.solved and path not in out:
                        out.append(path)
                    elif p.inner is not None:
                        visit(p.inner, path + ".")

        visit(self.root, "")
        return out


def build(contract: Contract, reads: Reads, t: RType, resolver: Resolver, name: str,
          requires_only: bool = False, var_types: dict[str, RType] | None = None) -> Built | None:
    """How to build input `name` of type t from its witness, or where it has none, by the constructor its
    requires fix (`requires this.EXECUTING?`) with its fields' types' witnesses (None: no witness to build
    from, or the contract reads all of it). `requires_only`: what the ensures read is kept too, for inputs
    out of reach otherwise (the tests check the ensures on whatever value the input then has)."""
    if t.base.kind != "data":
        return None
    forced = _forced(contract, name)
    clauses = [c.expr for c in (contract.requires if requires_only else contract.clauses)]
    read = reads.of(clauses, frozenset(v.name for v in contract.vars)) \
        | _rank_reads(clauses, name, t, var_types or {}, resolver)
    checked: set[RType] = set()
    while True:  # a constraint that reads a solved field is checked: every field it reads is solved too
        root = _root(t, resolver, read, forced)
        if root is None:
            return None
        more = set(read)
        for level in _levels(root):
            for x in _layers(level.type):
                if x.constraint is None:
                    continue
                var = x.decl.var if isinstance(x.decl, (ast.SubsetType, ast.Newtype)) else None
                names = reads.of([x.constraint], frozenset([var] if var else []))
                if level.made or names & read:
                    checked.add(x)
                    more |= names
        if more == set(read):
            break
        read = frozenset(more)
    if not any(not p.solved and p.inner is None for p in _all_parts(root)):
        return None
    return Built(Shown(" or ".join(built_text_of(alt) for alt in (root, *root.others))), root, read, frozenset(checked))


def _rank_reads(clauses: list[ast.Expr], name: str, t: RType, var_types: dict[str, RType],
                resolver: Resolver) -> frozenset[str]:
    """The fields of input `name` a rank comparison reads (`m < arr`: arr's fields that can hold m, so the
    test's value holds the m solved into them), which no field name in the clause says."""
    smaller: list[RType] = []
    for e in clauses:
        for n in ast.preorder(e):
            if isinstance(n, ast.BinOp) and n.op in ("<", ">"):
                small, big = (n.left, n.right) if n.op == "<" else (n.right, n.left)
                named = big.name == name if isinstance(big, ast.Name) else isinstance(big, ast.ThisExpr) and name == "this"
                if named and isinstance(small, ast.Name) \
                        and small.name in var_types and var_types[small.name].base.kind == "data":
                    smaller.append(var_types[small.name].base)
    out: set[str] = set()

    def same(a: RType, b: RType) -> bool:
        return (a.kind, a.name, a.args) == (b.kind, b.name, b.args)

    def visit(u: RType, target: RType, depth: int, seen: frozenset) -> bool:  # can u hold target?
        b = u.base
        if b.kind in ("seq", "array"):
            return same(b.args[0].base, target) or visit(b.args[0], target, depth, seen)
        if b.kind != "data" or depth == 0 or (b.name, b.args) in seen:
            return False
        found = False
        for ctor in b.datatype[0].ctors:
            for fname, ft in resolver.ctor_fields(b, ctor):
                if same(ft.base, target) | visit(ft, target, depth - 1, seen | {(b.name, b.args)}):
                    out.add(fname)
                    found = True
        return found

    for target in smaller:
        visit(t, target, _DEPTH, frozenset())
    return frozenset(out)


def _root(t: RType, resolver: Resolver, read: frozenset[str], forced: frozenset[str]) -> Level | None:
    own = _witness(t, resolver)
    level = _level(t, own, resolver, read, forced, _DEPTH) if own is not None and own.expr is not None else None
    if level is None:  # no witness, or one of another constructor than the requires want: made
        level = _level(t, Known(), resolver, read, forced, _DEPTH)
    return level


def _forced(contract: Contract, name: str) -> frozenset[str]:
    """The constructors the requires fix input `name` to (`requires x.C?`)."""
    out = set()
    for clause in contract.requires:
        for c in conjuncts(clause.expr):
            if isinstance(c, ast.MemberSelect) and c.name.endswith("?") and (
                    (isinstance(c.obj, ast.Name) and c.obj.name == name)
                    or (name == "this" and isinstance(c.obj, ast.ThisExpr))):
                out.add(c.name[:-1])
    return frozenset(out)


def _witness(t: RType, resolver: Resolver) -> Known | None:
    """A value of t the tests can write: the witness its type declares (the outermost subset layer's that
    has one), or, where no layer declares one, the default of its base, which Dafny then proved a value
    of each layer (0, [], map[], a constructor of defaults)."""
    layers = _layers(t)
    layer = next((x for x in layers if isinstance(x.decl, ast.SubsetType) and x.decl.witness is not None
                  and not x.decl.witness_kind), None)
    if layer is not None:
        decl, scope = layer.refinement
        assert decl.witness is not None
        return Known(decl.witness, scope, _shown(decl.witness, scope, t.base, resolver))
    refined = [x.decl for x in layers[:-1]]
    if any(getattr(d, "witness_kind", "") or getattr(d, "witness", None) is not None for d in refined) \
            or (refined and t.base.kind == "data"):
        return None  # `witness *`, a ghost one, one we cannot write, or a datatype's subset: no default
    text = _default(t.base, resolver, _DEPTH)
    return Known(shown=Shown(text)) if text is not None else None


_DEFAULTS = {"int": "0", "bool": "false", "real": "0.0", "bv": "0", "seq": "[]", "set": "{}",
             "multiset": "multiset{}", "map": "map[]"}


def _default(t: RType, resolver: Resolver, depth: int) -> str | None:
    """The default value of a type without constraints, as the tests file writes it (None: none we write)."""
    if t.kind in ("subset", "newtype"):
        return "0" if t.name == "nat" else None
    if t.kind in _DEFAULTS:
        return _DEFAULTS[t.kind]
    if t.kind == "tuple" and t.args:
        items = [_default(a, resolver, depth) for a in t.args]
        return None if None in items else "(" + ", ".join(x for x in items if x is not None) + ")"
    if t.kind != "data" or depth == 0:
        return None
    dt, dscope = t.datatype
    for c in dt.ctors:
        args = [_default(ft, resolver, depth - 1) for _, ft in resolver.ctor_fields(t, c)]
        if None not in args:
            name = dscope.prefix() + dt.name + "." + c.name
            return name + ("(" + ", ".join(a for a in args if a is not None) + ")" if args else "")
    return None


def _levels(level: Level) -> Iterable[Level]:
    for alt in (level, *level.others):
        yield alt
        for p in alt.parts:
            if p.inner is not None:
                yield from _levels(p.inner)


def _all_parts(level: Level) -> Iterable[Part]:
    for alt in _levels(level):
        yield from alt.parts


def _layers(t: RType) -> list[RType]:
    out = [t]
    while out[-1].kind in ("subset", "newtype"):
        out.append(out[-1].args[0])
    return out


def _head(e: ast.Expr, scope: Scope, resolver: Resolver
          ) -> tuple[ast.Decl, tuple[ast.Expr, ...], Scope] | None:
    """What a witness expression applies or names (a constructor, a constant), its arguments, and the
    scope of the declaration; None: another expression (or named arguments)."""
    callee, args = (e.callee, e.args) if isinstance(e, ast.Call) and not e.arg_names else (e, ())
    if not isinstance(callee, ast.Name):
        return None
    found = _lookup(resolver, scope, callee.name)
    return (found[0], args, found[1]) if found is not None else None


def _ctor_of(e: ast.Expr, scope: Scope, resolver: Resolver, depth: int = 8
             ) -> tuple[ast.Ctor, tuple[ast.Expr, ...], Scope] | None:
    """The constructor a witness expression is built by, with its arguments (through constants)."""
    head = _head(e, scope, resolver) if depth > 0 else None
    if head is None:
        return None
    decl, args, where = head
    if isinstance(decl, ast.Ctor) and len(args) == len(decl.params):
        return decl, args, scope
    if isinstance(decl, ast.Const) and decl.value is not None and not args:
        return _ctor_of(decl.value, where, resolver, depth - 1)
    return None


def _lookup(resolver: Resolver, scope: Scope, name: str):
    """A name's declaration; a constructor named like its datatype (`datatype Raw = Raw(...)`) is the
    constructor, as it is where a value is expected."""
    found = resolver.lookup(scope, name)
    if found is not None and isinstance(found[0], ast.Datatype):
        ctor = next((c for c in found[0].ctors if c.name == name.split(".")[-1]), None)
        return (ctor, found[1]) if ctor is not None else None
    return found


def _fixed(t: RType, forced: frozenset[str]) -> list[ast.Ctor]:
    """The constructors a value at this level is built by: the one the type or the requires fix, else
    each (the solver picks)."""
    dt = t.base.datatype[0]
    if len(dt.ctors) == 1:
        return [dt.ctors[0]]
    fixed = [c for c in dt.ctors if c.name in forced or any(_tests_ctor(x, c.name) for x in _layers(t))]
    return fixed[:1] if len(fixed) == 1 else list(dt.ctors)


def _open(t: RType, src: Known, resolver: Resolver, ctor: ast.Ctor) -> tuple[list[Known | None], bool] | None:
    """What is known of each field of the value at this level, built by ctor: the witness's arguments
    where it is built by ctor too (True), else their types' own witnesses (False: the value is made).
    None: the witness cannot be read."""
    fields = resolver.ctor_fields(t.base, ctor)
    found = _ctor_of(src.expr, src.scope, resolver) if src.expr is not None and src.scope is not None else None
    if src.expr is not None and found is None:
        return None
    if found is None or found[0] != ctor:
        return [_witness(ft, resolver) for _, ft in fields], False
    _, args, where = found
    shown = src.shown
    out: list[Known | None] = []
    for i, ((fname, _), arg) in enumerate(zip(fields, args)):
        if shown is not None and shown.ctor and len(shown.args) == len(args):
            sub: Shown | None = shown.args[i]
        else:
            sub = Shown(f"{shown.text}.{fname}") if shown is not None and fname else None
        out.append(Known(arg, where, sub))
    return out, True


def _level(t: RType, src: Known, resolver: Resolver, read: frozenset[str], forced: frozenset[str],
           depth: int) -> Level | None:
    """The value of type t taken apart where the contract reads only some of its fields (None: it cannot
    be, and the value is solved whole)."""
    if depth == 0 or t.base.kind != "data":
        return None
    ctors = _fixed(t, forced)
    alts = [_alt(t, src, resolver, read, c, depth) for c in ctors]
    if any(a is None for a in alts):
        return None
    first, *others = [a for a in alts if a is not None]
    return replace(first, others=tuple(others))


def _alt(t: RType, src: Known, resolver: Resolver, read: frozenset[str], ctor: ast.Ctor, depth: int) -> Level | None:
    opened = _open(t, src, resolver, ctor)
    if opened is None:
        return None
    subs, own = opened
    b = t.base
    dt, dscope = b.datatype
    parts = []
    for (fname, ft), sub in zip(resolver.ctor_fields(b, ctor), subs):
        if fname not in read and f"{ctor.name}.{fname}" not in read and sub is not None and sub.shown is not None:
            parts.append(Part(fname, ft, False, text=sub.shown.text))
            continue
        if not fname:
            return None  # a field without a name cannot be updated
        inner = _level(ft, sub if sub is not None else Known(), resolver, read, frozenset(), depth - 1)
        parts.append(Part(fname, ft, inner is None, inner, sub.shown.text if sub is not None and sub.shown else ""))
    app = dscope.prefix() + dt.name + "." + ctor.name
    by_update = own and src.shown is not None and not src.shown.ctor
    return Level(t, ctor.name, tuple(parts), app, src.shown.text if by_update and src.shown else "", made=not own)


def _tests_ctor(t: RType, name: str) -> bool:
    decl = t.decl
    if not isinstance(decl, ast.SubsetType):
        return False
    return any(isinstance(c, ast.MemberSelect) and isinstance(c.obj, ast.Name) and c.obj.name == decl.var
               and c.name == name + "?" for c in conjuncts(decl.constraint))


def _shown(e: ast.Expr, scope: Scope, t: RType, resolver: Resolver) -> Shown | None:
    """A witness as the tests file writes it: constructors applied are taken apart (a field can then be
    replaced or read), module constants named, anything else printed with its names in full."""
    if isinstance(e, ast.IntLit):
        return Shown(str(e.value))
    if isinstance(e, ast.BoolLit):
        return Shown("true" if e.value else "false")
    head = _head(e, scope, resolver)
    if head is None:
        return _printed(e, scope, resolver)
    decl, args, where = head
    if isinstance(decl, ast.Const) and not args and where.cls is None:
        return Shown(where.prefix() + decl.name)
    b = t.base
    if not isinstance(decl, ast.Ctor) or b.kind != "data" or decl not in b.datatype[0].ctors:
        return _printed(e, scope, resolver)
    dt, dscope = b.datatype
    name = dscope.prefix() + dt.name + "." + decl.name
    if not decl.params:
        return Shown(name)
    shown = [_shown(a, scope, ft, resolver) for a, (_, ft) in zip(args, resolver.ctor_fields(b, decl))]
    parts = tuple(x for x in shown if x is not None)
    if len(parts) != len(shown):
        return None
    return Shown(name + "(" + ", ".join(x.text for x in parts) + ")", name, parts)


def _printed(e: ast.Expr, scope: Scope, resolver: Resolver) -> Shown:
    """`View.OfBytes(['b' as byte])`, as the tests file can write it: every name of a module's declaration in
    full. (A name it still cannot resolve makes the test's literal unreadable to admission: no test.)"""
    return Shown(print_expr(TestNames(resolver.program, resolver).expr(e, scope, set())))


# ---------------------------------------------------------------- constraints and literals


def built_wf(built: Built, tv: TV, types: Types, field_wf: Callable[[TV], list[z3.BoolRef]],
             encode_constraint) -> list[z3.BoolRef]:
    """What the solved parts of a value built from its witness must meet: the constructors along the way,
    the solved fields' types (`field_wf`), and the constraints that read them."""
    return _level_wf(built, built.root, tv.v, types, field_wf, encode_constraint)


def _level_wf(built: Built, level: Level, v, types: Types, field_wf, encode_constraint) -> list[z3.BoolRef]:
    if level.others:
        return [z3.Or([and_(_alt_wf(built, alt, v, types, field_wf, encode_constraint))
                       for alt in (level, *level.others)])]
    return _alt_wf(built, level, v, types, field_wf, encode_constraint)


def _alt_wf(built: Built, level: Level, v, types: Types, field_wf, encode_constraint) -> list[z3.BoolRef]:
    out = [encode_constraint(x, TV(v, x.args[0])) for x in _layers(level.type) if built.checks(x)]
    info = types.ctor_info(level.type.base, level.ctor)
    out.append(info.test(v))
    for part, (_, ft, acc) in zip(level.parts, info.fields):
        if part.inner is not None:
            out += _level_wf(built, part.inner, acc(v), types, field_wf, encode_constraint)
        elif part.solved:
            out += field_wf(types.from_rep(acc(v), ft))
    return out


def built_text(built: Built, pv, types: Types) -> str:
    """The test's literal: the witness, with the solved fields of the model's value pv put in."""
    return _level_text(built.root, pv, types)


def built_text_of(level: Level) -> str:
    """The value before anything is solved (solved parts shown as `_`), for the user's notes."""
    return _level_text(level, None, None)


def _level_text(level: Level, pv, types: Types | None) -> str:
    if pv is not None:
        level = next((alt for alt in (level, *level.others) if isinstance(pv, Data) and pv.ctor == alt.ctor), level)
        if not isinstance(pv, Data) or pv.ctor != level.ctor:
            raise ValueError(f"a value built from a witness of {level.ctor} is {pv}")
    args = pv.args if pv is not None else (None,) * len(level.parts)

    def solved(part: Part, arg) -> str:
        return literal(arg, part.type, types) if arg is not None else "_"

    if level.base:  # the witness's value, updated where solved (`W.(stack := W.stack.(contents := [1]))`)
        updates = []
        for part, arg in zip(level.parts, args):
            if part.inner is not None:
                inner = _level_text(part.inner, arg, types)
                if inner != part.text:
                    updates.append(f"{part.name} := {inner}")
            elif part.solved:
                updates.append(f"{part.name} := {solved(part, arg)}")
        return f"{level.base}.({', '.join(updates)})" if updates else level.base
    items = [_level_text(part.inner, arg, types) if part.inner is not None else solved(part, arg) if part.solved
             else part.text for part, arg in zip(level.parts, args)]
    return f"{level.app}({', '.join(items)})" if items else level.app

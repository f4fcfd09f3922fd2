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
from dataclasses import dataclass

import z3

from dspec2test.dafny import ast
from dspec2test.model.contracts import Contract, iter_members
from dspec2test.model.resolve import Resolver, RType, Scope
from dspec2test.model.walk import bound_names, children, conjuncts
from dspec2test.solve.literal import Data, literal
from dspec2test.solve.types import Types
from dspec2test.solve.values import TV

_DEPTH = 4  # constructors deep that a witness is taken apart


@dataclass(frozen=True)
class Part:
    """A field of the witness's constructor at one level: kept (the witness's), solved, or taken apart."""

    name: str
    type: RType
    solved: bool
    inner: "Level | None" = None


@dataclass(frozen=True)
class Level:
    """The witness's value at one level of the input: its constructor and what becomes of each field."""

    type: RType  # the declared type here (subset layers included)
    ctor: str
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Shown:
    """The witness's text at one level: a constructor applied to its arguments' texts, or a value's."""

    text: str
    ctor: str = ""  # the constructor applied here, as the tests file writes it ("" : not an application)
    args: tuple["Shown", ...] = ()


@dataclass(frozen=True)
class Built:
    """An input built from its type's witness."""

    shown: Shown  # the witness, as the tests file writes it
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
            for p in level.parts:
                if p.solved:
                    out.append(prefix + p.name)
                elif p.inner is not None:
                    visit(p.inner, prefix + p.name + ".")

        visit(self.root, "")
        return out


class Reads:
    """The field names a contract reads: its clauses' and those of the functions it reaches."""

    def __init__(self, program: ast.Program):
        self.bodies: dict[str, list[tuple[ast.Expr, frozenset[str]]]] = {}  # with their parameters' names
        self.fields: dict[str, set[str]] = {}  # constructor name -> its fields' names
        for _, d in iter_members(program.decls):
            if isinstance(d, ast.Function) and d.body is not None:
                self.bodies.setdefault(d.name, []).append((d.body, frozenset(p.name for p in d.params)))
        for d in ast.preorder(program):
            if isinstance(d, ast.Datatype):
                for c in d.ctors:
                    self.fields.setdefault(c.name, set()).update(p.name for p in c.params if p.name)

    def of(self, exprs: Iterable[ast.Expr], bound: frozenset[str] = frozenset()) -> frozenset[str]:
        """`bound`: the variables of exprs (parameters, a constraint's variable), which are no fields."""
        names: set[str] = set()
        todo = [(e, bound) for e in exprs]
        seen: set[str] = set()
        while todo:
            e, local = todo.pop()
            found = _names(e, self.fields, local)
            names |= found
            for n in found - seen:
                seen.add(n)
                todo += self.bodies.get(n, [])
        return frozenset(names)


def _names(e: ast.Node, ctor_fields: dict[str, set[str]], bound: frozenset[str] = frozenset()) -> set[str]:
    """Every name e may read a field by: selected, updated, bare and not bound (a member's own fields),
    or called (a function's name). A constructor applied or matched reads all of its fields, which are
    named with it (`ERROR.gas`: another constructor's `gas` is not read by that)."""
    out: set[str] = set()
    todo: list[tuple[ast.Node, frozenset[str]]] = [(e, bound)]
    while todo:
        n, local = todo.pop()
        if isinstance(n, ast.MemberSelect):
            out.add(n.name)
        elif isinstance(n, ast.Name):
            parts = n.name.split(".")
            out.update(parts[1:] if parts[0] in local else parts)
            out.update(f"{parts[-1]}.{f}" for f in ctor_fields.get(parts[-1], ()))
        elif isinstance(n, ast.DatatypeUpdate):
            out.update(f for f, _ in n.updates)
        elif isinstance(n, ast.PatCtor):
            ctor = n.name.split(".")[-1]
            out.update(f"{ctor}.{f}" for f in ctor_fields.get(ctor, ()))
        inner = local | bound_names(n)
        todo += [(c, inner) for c in children(n)]
    return out


def build(contract: Contract, reads: Reads, t: RType, resolver: Resolver) -> Built | None:
    """How to build an input of type t from its witness (None: no witness to build from, or the
    contract reads all of it)."""
    layer = next((x for x in _layers(t) if isinstance(x.decl, ast.SubsetType) and x.decl.witness is not None
                  and not x.decl.witness_kind), None)
    if layer is None or t.base.kind != "data":
        return None
    decl, scope = layer.refinement
    assert decl.witness is not None
    shown = _shown(decl.witness, scope, t.base, resolver)
    if shown is None:
        return None
    read = reads.of([c.expr for c in contract.clauses], frozenset(v.name for v in contract.vars))
    constraints = _constraints(t, decl.witness, scope, resolver, _DEPTH)
    checked: set[RType] = set()
    while True:  # a constraint that reads a solved field is checked: every field it reads is solved too
        more = set(read)
        for c in constraints:
            var = c.decl.var if isinstance(c.decl, (ast.SubsetType, ast.Newtype)) else None
            names = reads.of([c.constraint], frozenset([var] if var else [])) if c.constraint is not None \
                else frozenset()
            if names & read:
                checked.add(c)
                more |= names
        if more == set(read):
            break
        read = frozenset(more)
    root = _level(t, decl.witness, scope, resolver, read, _DEPTH)
    if root is None or not any(not p.solved and p.inner is None for p in _all_parts(root)):
        return None
    return Built(shown, root, read, frozenset(checked))


def _all_parts(level: Level) -> Iterable[Part]:
    for p in level.parts:
        yield p
        if p.inner is not None:
            yield from _all_parts(p.inner)


def _layers(t: RType) -> list[RType]:
    out = [t]
    while out[-1].kind in ("subset", "newtype"):
        out.append(out[-1].args[0])
    return out


def _ctor_of(e: ast.Expr, scope: Scope, resolver: Resolver, depth: int = 8
             ) -> tuple[ast.Ctor, tuple[ast.Expr, ...], Scope] | None:
    """The constructor a witness expression is built by, with its arguments (through constants)."""
    if depth == 0:
        return None
    callee, args = (e.callee, e.args) if isinstance(e, ast.Call) and not e.arg_names else (e, ())
    if not isinstance(callee, ast.Name):
        return None
    found = _lookup(resolver, scope, callee.name)
    if found is None:
        return None
    decl, where = found
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


def _level(t: RType, w: ast.Expr, scope: Scope, resolver: Resolver, read: frozenset[str], depth: int) -> Level | None:
    """The witness w of type t taken apart where the contract reads only some of its fields (None: it
    cannot be, and the value is solved whole)."""
    b = t.base
    if depth == 0 or b.kind != "data":
        return None
    found = _ctor_of(w, scope, resolver)
    if found is None:
        return None
    ctor, args, where = found
    dt = b.datatype[0]
    if ctor not in dt.ctors:
        return None
    # the witness's constructor is fixed: only where the type allows no other (one constructor, or a
    # constraint `x.C?`), else the tests would lose the scenarios of the others
    if len(dt.ctors) > 1 and not any(_tests_ctor(x, ctor.name) for x in _layers(t)):
        return None
    parts = []
    for (fname, ft), arg in zip(resolver.ctor_fields(b, ctor), args):
        if fname not in read and f"{ctor.name}.{fname}" not in read:
            parts.append(Part(fname, ft, False))
            continue
        if not fname:
            return None  # a field without a name cannot be updated
        inner = _level(ft, arg, where, resolver, read, depth - 1)
        parts.append(Part(fname, ft, inner is None, inner))
    return Level(t, ctor.name, tuple(parts))


def _tests_ctor(t: RType, name: str) -> bool:
    decl = t.decl
    if not isinstance(decl, ast.SubsetType):
        return False
    return any(isinstance(c, ast.MemberSelect) and isinstance(c.obj, ast.Name) and c.obj.name == decl.var
               and c.name == name + "?" for c in conjuncts(decl.constraint))


def _constraints(t: RType, w: ast.Expr, scope: Scope, resolver: Resolver, depth: int) -> list[RType]:
    """The constrained types along the witness's structure: those a decision to keep a field rests on."""
    out = [x for x in _layers(t) if x.constraint is not None]
    found = _ctor_of(w, scope, resolver) if depth > 0 and t.base.kind == "data" else None
    if found is not None and found[0] in t.base.datatype[0].ctors:
        ctor, args, where = found
        for (_, ft), arg in zip(resolver.ctor_fields(t.base, ctor), args):
            out += _constraints(ft, arg, where, resolver, depth - 1)
    return out


def _shown(e: ast.Expr, scope: Scope, t: RType, resolver: Resolver) -> Shown | None:
    """A witness as the tests file writes it: constructors, module constants and literals (None: other)."""
    if isinstance(e, ast.IntLit):
        return Shown(str(e.value))
    if isinstance(e, ast.BoolLit):
        return Shown("true" if e.value else "false")
    callee, args = (e.callee, e.args) if isinstance(e, ast.Call) and not e.arg_names else (e, ())
    if not isinstance(callee, ast.Name):
        return None
    found = _lookup(resolver, scope, callee.name)
    if found is None:
        return None
    decl, where = found
    if isinstance(decl, ast.Const) and not args and where.cls is None:
        return Shown(where.prefix() + decl.name)
    b = t.base
    if not isinstance(decl, ast.Ctor) or b.kind != "data" or decl not in b.datatype[0].ctors:
        return None
    dt, dscope = b.datatype
    name = dscope.prefix() + dt.name + "." + decl.name
    if not decl.params:
        return Shown(name)
    shown = [_shown(a, scope, ft, resolver) for a, (_, ft) in zip(args, resolver.ctor_fields(b, decl))]
    parts = tuple(x for x in shown if x is not None)
    if len(parts) != len(shown):
        return None
    return Shown(name + "(" + ", ".join(x.text for x in parts) + ")", name, parts)


# ---------------------------------------------------------------- constraints and literals


def built_wf(built: Built, tv: TV, types: Types, field_wf: Callable[[TV], list[z3.BoolRef]],
             encode_constraint) -> list[z3.BoolRef]:
    """What the solved parts of a value built from its witness must meet: the constructors along the way,
    the solved fields' types (`field_wf`), and the constraints that read them."""
    return _level_wf(built, built.root, tv.v, types, field_wf, encode_constraint)


def _level_wf(built: Built, level: Level, v, types: Types, field_wf, encode_constraint) -> list[z3.BoolRef]:
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
    return _level_text(built.root, pv, built.shown, types)


def _level_text(level: Level, pv, shown: Shown, types: Types) -> str:
    if not isinstance(pv, Data) or pv.ctor != level.ctor:
        raise ValueError(f"a value built from a witness of {level.ctor} is {pv}")
    if shown.ctor and len(shown.args) == len(level.parts):  # the constructor applied, arguments replaced
        items = [_level_text(part.inner, arg, sub, types) if part.inner is not None
                 else literal(arg, part.type, types) if part.solved else sub.text
                 for part, arg, sub in zip(level.parts, pv.args, shown.args)]
        return f"{shown.ctor}({', '.join(items)})"
    updates = []  # a value: updated where solved (`W.(stack := W.stack.(contents := [1]))`)
    for part, arg in zip(level.parts, pv.args):
        if part.inner is not None:
            below = Shown(f"{shown.text}.{part.name}")
            inner = _level_text(part.inner, arg, below, types)
            if inner != below.text:
                updates.append(f"{part.name} := {inner}")
        elif part.solved:
            updates.append(f"{part.name} := {literal(arg, part.type, types)}")
    return f"{shown.text}.({', '.join(updates)})" if updates else shown.text

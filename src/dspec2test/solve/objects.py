"""A member's objects in the solver: the heap states fields are read in, aliasing, and construction.

The solver variables of an object's fields are named `root.field` (partition/objects.py); the heap state
the encoder reads them in maps those names to their values after the call (the default) or before it
(old()). Two objects that may be the same share field values when they are (aliasing); an object the test
builds meets its constructor's requires, and where the constructor alone decides a `const` field the
contract reads, its ensures too, in the state right after construction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from dspec2test.dafny import ast
from dspec2test.dafny.resolve import Resolver, RType
from dspec2test.errors import Unsupported
from dspec2test.partition.objects import Build, Objects, Root, ctor_field_name
from dspec2test.solve.values import HEAP, THIS, TV, Env, Heap, ObjV, and_

HEAP_T = RType("heap")


@dataclass(frozen=True)
class ObjectFacts:
    env: dict[str, TV]  # entries of the solver's environment: the heap state after the call, the receiver
    pre_heap: TV  # the heap state before the call
    constraints: list[z3.BoolRef]  # aliasing and construction, part of every query
    differ: list[z3.BoolRef]  # a preference: the same field of two objects holds different values


def object_facts(objects: Objects, post: dict[str, TV], pre: dict[str, TV], resolver: Resolver,
                 boolean: Callable[[ast.Expr, Env], z3.BoolRef], declare: Callable[[str, RType], TV]) -> ObjectFacts:
    """`post`/`pre`: the solver's variables by name, after and before the call (pre has the twins);
    `declare` makes a Z3 value of a type (for the fields of an object right after its construction)."""
    fields_post = {r.field_var(f): post[r.field_var(f)] for r in objects.roots for f in r.fields
                   if r.field_var(f) in post}
    fields_pre = {k: pre.get(k, v) for k, v in fields_post.items()}
    post_heap, pre_heap = TV(Heap(fields_post), HEAP_T), TV(Heap(fields_pre), HEAP_T)
    env: dict[str, TV] = {HEAP: post_heap}
    if "this" in post:
        env[THIS] = post["this"]
    out: list[z3.BoolRef] = []
    inputs = [r for r in objects.roots if not r.output and r.name in post]
    differ: list[z3.BoolRef] = []
    for i, a in enumerate(inputs):
        for b in inputs[i + 1:]:
            out += _aliasing(a, b, post, pre)
            differ += _differ(a, b, fields_pre)
    for r in inputs:
        tv = post[r.name]
        for k, build in enumerate(r.builds):
            facts = _construction(r, build, tv, post, fields_pre, resolver, boolean, declare)
            o = tv.v
            guard = [o.id != 0] + ([o.cls == k] if isinstance(o, ObjV) and o.cls is not None else [])
            out += [z3.Implies(and_(guard), f) for f in facts]
    return ObjectFacts(env, pre_heap, out, differ)


def _aliasing(a: Root, b: Root, post: dict[str, TV], pre: dict[str, TV]) -> list[z3.BoolRef]:
    """The same object twice has the same fields; objects of unrelated classes are never the same."""
    x, y = post[a.name].v, post[b.name].v
    if not isinstance(x, ObjV) or not isinstance(y, ObjV):
        return []
    shared = [c for ka in x.classes for c in (ka[0],) if any(kb[0] is c for kb in y.classes)]
    if not shared:
        return [z3.Or(x.id == 0, x.id != y.id)]
    same = z3.And(x.id == y.id, x.id != 0)
    eqs = []
    names_b = {f.name for f in b.fields}
    for f in a.fields:
        if f.name not in names_b:
            continue
        ka, kb = a.field_var(f), f"{b.name}.{f.name}"
        for state in (post, pre):
            va, vb = state.get(ka, post[ka]), state.get(kb, post[kb])
            if type(va.v) is type(vb.v) and isinstance(va.v, z3.ExprRef) and va.v.sort() == vb.v.sort():
                eqs.append(va.v == vb.v)
    if x.cls is not None and y.cls is not None:
        eqs.append(x.cls == y.cls)
    return [z3.Implies(same, and_(eqs))] if eqs else []


def _differ(a: Root, b: Root, fields: dict[str, TV]) -> list[z3.BoolRef]:
    out = []
    names_b = {f.name for f in b.fields}
    for f in a.fields:
        ka, kb = a.field_var(f), f"{b.name}.{f.name}"
        if f.name in names_b and ka in fields and kb in fields:
            va, vb = fields[ka].v, fields[kb].v
            if isinstance(va, z3.ExprRef) and isinstance(vb, z3.ExprRef) and va.sort() == vb.sort() \
                    and va.sort().kind() in (z3.Z3_INT_SORT, z3.Z3_BOOL_SORT, z3.Z3_REAL_SORT):
                out.append(va != vb)
    return out


def _construction(r: Root, build: Build, tv: TV, post: dict[str, TV], fields_pre: dict[str, TV],
                  resolver: Resolver, boolean: Callable[[ast.Expr, Env], z3.BoolRef],
                  declare: Callable[[str, RType], TV]) -> list[z3.BoolRef]:
    """The constructor's requires on its solved arguments; where it alone decides consts the contract
    reads, its ensures in the state right after construction (consts as before the call, every other
    field of the object free)."""
    ctor = build.ctor
    if ctor is None:
        return []
    scope = resolver.scope_of(ctor)
    args = {p.name: post[name] for p, (name, _) in zip(ctor.params, build.args) if name in post}
    if len(args) != len(ctor.params):
        return []
    out = []
    for c in ctor.spec.requires:
        out.append(_encode(boolean, c.expr, Env({**args, THIS: tv, HEAP: TV(Heap(fields_pre), HEAP_T)}, scope),
                           "constructor requires"))
    if build.decides:
        made = dict(fields_pre)
        for f in r.fields:  # right after construction every field but the consts is unknown
            if not f.const and r.field_var(f) in made:
                made[r.field_var(f)] = declare(ctor_field_name(r.name, f.name), made[r.field_var(f)].t)
        env = Env({**args, THIS: tv, HEAP: TV(Heap(made), HEAP_T)}, scope)
        # only what the ensures say of those consts directly (`cap == c`): the rest of the new object's
        # state is overwritten by the test, and asking Z3 about it costs much and says nothing
        for part in (p for c in ctor.spec.ensures for p in _conjuncts(c.expr)):
            if not _names(part) & set(build.decides):
                continue
            try:
                out.append(boolean(part, env))
            except Unsupported:
                continue  # a clause it cannot encode only leaves the consts freer (checked at run time)
    return out


def _conjuncts(e: ast.Expr) -> list[ast.Expr]:
    if isinstance(e, ast.BinOp) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _names(e: ast.Expr) -> set[str]:
    return {n.name for n in ast.preorder(e) if isinstance(n, (ast.Name, ast.MemberSelect))}


def _encode(boolean, e: ast.Expr, env: Env, what: str) -> z3.BoolRef:
    try:
        return boolean(e, env)
    except Unsupported as exc:
        raise Unsupported(f"{what}: {exc.construct}", exc.line, exc.col) from exc

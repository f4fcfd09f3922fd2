"""A member's objects in the solver: the heap states fields are read in, aliasing, and construction.

The solver variables of an object's fields are named `root.field` (model/objects.py); the heap state
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
from dspec2test.model.resolve import Resolver, RType
from dspec2test.errors import Unsupported
from dspec2test.model.objects import (Build, Elements, Objects, Root, ctor_field_name, drive_arg_name,
                                          drive_op_name, drive_state_name)
from dspec2test.model.walk import conjuncts
from dspec2test.solve.encode import Encoder
from dspec2test.solve.types import Types
from dspec2test.solve.values import HEAP, PRE_HEAP, THIS, TV, Env, Heap, MultisetV, ObjV, SetV, and_

HEAP_T = RType("heap")


# objects held in collections have identities from here on, the member's named objects below: the two
# are never the same object (their fields are held apart)
ELEMENT_IDS = 1000


@dataclass(frozen=True)
class ObjectFacts:
    env: dict[str, TV]  # entries of the solver's environment: the heap state after the call, the receiver
    pre_heap: TV  # the heap state before the call
    constraints: list[z3.BoolRef]  # aliasing and construction, part of every query
    differ: list[z3.BoolRef]  # a preference: the same field of two objects holds different values
    # what the test needs of an object held in a collection, by its identity: name -> (term, type), named
    # `#ID.field` and `#ID#new:formal` (its constructor's arguments)
    element_terms: Callable[[int], dict[str, tuple[z3.ExprRef, RType]]] = lambda ident: {}
    element_vars: tuple[str, ...] = ()  # the collections holding them
    element_values: tuple[TV, ...] = ()  # their fields and constructor arguments, slot by slot (for readability)
    # what the calls that make driven objects require, per step (`op == j ==> requires`): part of the
    # constraints, and what the state_entailed check asks to hold of every state the calls can leave
    obligations: tuple[z3.BoolRef, ...] = ()


def object_facts(objects: Objects, post: dict[str, TV], pre: dict[str, TV], encoder: Encoder) -> ObjectFacts:
    """`post`/`pre`: the solver's variables by name, after and before the call (pre has the twins)."""
    resolver, types, boolean, declare = encoder.resolver, encoder.types, encoder.boolean, encoder.types.declare
    fields_post = {r.field_var(f): post[r.field_var(f)] for r in objects.roots for f in r.fields
                   if r.field_var(f) in post}
    fields_pre = {k: pre.get(k, v) for k, v in fields_post.items()}
    elems_pre, elems_post = _element_fields(objects, resolver, types)
    post_heap, pre_heap = TV(Heap(fields_post, elems_post), HEAP_T), TV(Heap(fields_pre, elems_pre), HEAP_T)
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
    driven = [r for r in inputs if r.driven]
    obligations: list[z3.BoolRef] = []
    for r in driven:  # made by a constructor and calls of its own: a new object, apart from every other
        o = post[r.name].v
        if isinstance(o, ObjV):
            out.append(o.id != 0)
            out += [z3.Or(x.id == 0, x.id != o.id) for x in (post[q.name].v for q in inputs if q is not r)
                    if isinstance(x, ObjV)]
    for r in inputs:
        tv = post[r.name]
        if r.driven:
            if r.builds:
                made, owed = driven_state(r, r.builds[0], tv, post, fields_pre, encoder)
                out += made + owed
                obligations += owed
            continue
        for k, build in enumerate(r.builds):
            facts = _construction(r, build, tv, post, fields_pre, resolver, boolean, declare)
            o = tv.v
            guard = [o.id != 0] + ([o.cls == k] if isinstance(o, ObjV) and o.cls is not None else [])
            out += [z3.Implies(and_(guard), f) for f in facts]
        if isinstance(tv.v, ObjV) and objects.elements:
            out.append(tv.v.id < ELEMENT_IDS)
    if not objects.elements:
        return ObjectFacts(env, pre_heap, out, differ, obligations=tuple(obligations))
    args = {g.var: _ctor_args(g, resolver, types) for g in objects.elements}
    heap = TV(Heap(fields_pre, elems_pre), HEAP_T)
    shown: list[TV] = []
    for g in objects.elements:
        if g.var not in pre and g.var not in post:
            continue
        value = pre.get(g.var, post[g.var])
        slots = _slots(value, types.cap)
        for guard, ident in slots:
            out.append(z3.Implies(guard, _element(g, ident, args[g.var], heap, encoder)))
            shown += [types.from_rep(fn(ident), ft) for name, (fn, ft) in elems_pre.items() if g.field(name)]
            shown += [types.from_rep(fn(ident), t) for fn, t in args[g.var].values()]
        # preferred: different objects, with different field values (a sum of one object twice hides a bug)
        for j, (gj, ij) in enumerate(slots):
            for gi, ii in slots[:j]:
                differ.append(z3.Implies(z3.And(gi, gj), ii != ij))
                for name, (fn, ft) in elems_pre.items():
                    if g.field(name) is not None and fn.range().kind() in (z3.Z3_INT_SORT, z3.Z3_BOOL_SORT):
                        differ.append(z3.Implies(z3.And(gi, gj), fn(ii) != fn(ij)))

    def terms(ident: int) -> dict[str, tuple[z3.ExprRef, RType]]:
        out_: dict[str, tuple[z3.ExprRef, RType]] = {}
        for name, (fn, ft) in elems_pre.items():
            out_[f"#{ident}.{name}"] = (fn(z3.IntVal(ident)), ft)
        for g in objects.elements:
            for formal, (fn, ft) in args[g.var].items():
                out_.setdefault(f"#{ident}#new:{formal}", (fn(z3.IntVal(ident)), ft))
        return out_

    return ObjectFacts(env, pre_heap, out, differ, terms, tuple(g.var for g in objects.elements), tuple(shown),
                       tuple(obligations))


def _element_fields(objects: Objects, resolver: Resolver, types: Types) -> tuple[dict, dict]:
    """The fields of objects held in collections, before and after the call: a function of the
    identity per field (the same one where the member cannot change them)."""
    pre: dict = {}
    post: dict = {}
    for g in objects.elements:
        for f in g.fields:
            if f.name in pre:
                continue
            ft = resolver.rtype(f.type, resolver.scope_of(f.decl))
            sort = types.sort(ft)
            pre[f.name] = (z3.Function(f"#.{f.name}", z3.IntSort(), sort), ft)
            post[f.name] = (z3.Function(f"#.{f.name}'", z3.IntSort(), sort), ft) if f.modified else pre[f.name]
    return pre, post


def _ctor_args(g: Elements, resolver: Resolver, types: Types) -> dict[str, tuple[z3.FuncDeclRef, RType]]:
    """An element's constructor arguments, as functions of its identity."""
    build = g.build
    if build is None or build.ctor is None:
        return {}
    ctor = build.ctor
    scope = resolver.scope_of(ctor)
    out = {}
    for p, (_, t) in zip(ctor.params, build.args):
        rt = resolver.rtype(t, scope)
        out[p.name] = (z3.Function(f"#new:{g.var}:{p.name}", z3.IntSort(), types.sort(rt)), rt)
    return out


def _slots(value: TV, cap: int) -> list[tuple[z3.BoolRef, z3.ArithRef]]:
    """(present, identity) of each element a collection value may hold."""
    v = value.v
    if isinstance(v, (SetV, MultisetV)):
        return list(v.cands)
    if isinstance(v, z3.SeqRef):
        return [(z3.IntVal(i) < z3.Length(v), v[i]) for i in range(cap)]
    return []


def _element(g: Elements, ident, args: dict, heap: TV, encoder: Encoder) -> z3.BoolRef:
    """What an element of a collection input is: an object of its own (or null where the type allows),
    its fields well-formed, its constructor's requires holding of its arguments."""
    types = encoder.types
    out = [z3.Or(ident == 0, ident >= ELEMENT_IDS) if g.nullable else ident >= ELEMENT_IDS]
    for name, (fn, ft) in heap.v.elements.items():
        if g.field(name) is not None and types.has_wf(ft):
            out += types.wf(types.from_rep(fn(ident), ft), True, encoder.constraint_of)
    for _, (fn, t) in args.items():
        if types.has_wf(t):
            out += types.wf(types.from_rep(fn(ident), t), True, encoder.constraint_of)
    ctor = g.build.ctor if g.build is not None else None
    if ctor is not None and ctor.spec.requires:
        binds = {p: types.from_rep(fn(ident), t) for p, (fn, t) in args.items()}
        env = Env({**binds, HEAP: heap}, encoder.resolver.scope_of(ctor))
        for c in ctor.spec.requires:
            out.append(_encode(encoder.boolean, c.expr, env, "constructor requires"))
    return and_(out)


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
        for part in (p for c in ctor.spec.ensures for p in conjuncts(c.expr)):
            if not _names(part) & set(build.decides):
                continue
            try:
                out.append(boolean(part, env))
            except Unsupported:
                continue  # a clause it cannot encode only leaves the consts freer (checked at run time)
    return out


def driven_state(r: Root, build: Build, tv: TV, post: dict[str, TV], fields_pre: dict[str, TV],
                 encoder: Encoder) -> tuple[list[z3.BoolRef], list[z3.BoolRef]]:
    """A driven root's state before the call, as its constructor and then up to `build.steps` calls of
    its methods leave it: the constructor's ensures hold in state 0, each call's requires in the state
    before it and its ensures between the two (old() the earlier one); a step that calls nothing keeps
    the state, and so do all later steps. The last state is the member's pre-state. A method whose
    contract cannot be encoded is never called (what it does would be unknown); a constructor whose
    ensures cannot be, makes the object unbuildable (Unsupported). Returns the state's facts, and apart
    the requires of the calls (and of the constructor), which the test must meet, not assume."""
    types, boolean = encoder.types, encoder.boolean
    ctor = build.ctor
    if ctor is None:
        return [], []
    steps = build.steps
    resolver = encoder.resolver

    def state(k: int) -> dict[str, TV]:
        if k == steps:
            return {r.field_var(f): fields_pre[r.field_var(f)] for f in r.fields if r.field_var(f) in fields_pre}
        return {r.field_var(f): types.declare(drive_state_name(r.name, k, f.name), fields_pre[r.field_var(f)].t)
                for f in r.fields if r.field_var(f) in fields_pre}

    states = [state(k) for k in range(steps + 1)]
    heaps = [TV(Heap(st), HEAP_T) for st in states]
    out: list[z3.BoolRef] = []
    for st in states[:-1]:
        for x in st.values():
            out += types.wf(x, True, encoder.constraint_of)
    scope = resolver.scope_of(ctor)
    args = {p.name: post[name] for p, (name, _) in zip(ctor.params, build.args) if name in post}
    env = Env({**args, THIS: tv, HEAP: heaps[0]}, scope)
    owed = [_encode(boolean, c.expr, env, "constructor requires") for c in ctor.spec.requires]
    for c in ctor.spec.ensures:
        out.append(_encode(boolean, c.expr, env, f"ensures of {r.name}'s constructor"))
    ops = [post[drive_op_name(r.name, k)].v for k in range(1, steps + 1)]
    consts = {r.field_var(f) for f in r.fields if f.const}
    for k in range(1, steps + 1):
        op = ops[k - 1]
        out.append(z3.And(op >= 0, op <= len(build.drivers)))
        if k < steps:
            out.append(z3.Implies(op == 0, ops[k] == 0))  # the calls come first, then nothing
        out.append(z3.Implies(op == 0, and_(_same(encoder, states[k - 1], states[k], states[k]))))
        out += _same(encoder, states[k - 1], states[k], consts)
    for j, m in enumerate(build.drivers, 1):
        try:
            calls = [_call(r, build, k, m, tv, post, heaps[k - 1], heaps[k], encoder) for k in range(1, steps + 1)]
        except Unsupported:
            out += [op != j for op in ops]  # what it does is not known: never called
            continue
        owed += [z3.Implies(op == j, req) for op, (req, _) in zip(ops, calls)]
        out += [z3.Implies(op == j, ens) for op, (_, ens) in zip(ops, calls)]
    return out, owed


def _call(r: Root, build: Build, k: int, m: ast.Method, tv: TV, post: dict[str, TV], before: TV, after: TV,
          encoder: Encoder) -> tuple[z3.BoolRef, z3.BoolRef]:
    """Step k calls m: its requires in the state before, its ensures between the two."""
    scope = encoder.resolver.scope_of(m)
    binds = {p.name: post[drive_arg_name(r.name, k, m, p.name)] for p in m.params}
    for p in m.returns:  # what it returns, the test does not use
        binds[p.name] = encoder.types.declare(f"{r.name}#drive{k}:{m.name}->{p.name}",
                                              encoder.resolver.rtype(p.type, scope))
    pre = Env({**binds, THIS: tv, HEAP: before}, scope)
    postenv = Env({**binds, THIS: tv, HEAP: after, PRE_HEAP: before}, scope)
    return (and_([encoder.boolean(c.expr, pre) for c in m.spec.requires]),
            and_([encoder.boolean(c.expr, postenv) for c in m.spec.ensures]))


def _same(encoder: Encoder, a: dict[str, TV], b: dict[str, TV], names) -> list[z3.BoolRef]:
    return [encoder.eq(a[n], b[n], None) for n in names if n in a and n in b]


def _names(e: ast.Expr) -> set[str]:
    return {n.name for n in ast.preorder(e) if isinstance(n, (ast.Name, ast.MemberSelect))}


def _encode(boolean, e: ast.Expr, env: Env, what: str) -> z3.BoolRef:
    try:
        return boolean(e, env)
    except Unsupported as exc:
        raise Unsupported(f"{what}: {exc.construct}", exc.line, exc.col) from exc

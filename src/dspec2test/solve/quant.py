"""Quantifiers and comprehensions.

A bound variable ranging over a collection (`x in s`) or with an integer lower bound (`0 <= i`) is
expanded into `width` instances; what lies beyond them stays a Z3 quantifier unless the upper bound
provably leaves nothing (the usual case, since collection variables are small). Anything else is a
plain Z3 quantifier over the variable's sort.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.resolve import INT, RType
from dspec2test.solve.values import TV, Env, MapV, SetV, and_, or_, unsupported


@dataclass(frozen=True)
class Source:
    """Where a bound variable's values come from."""

    kind: str  # "coll" (finite candidates), "index" (seq elements by index), "int" (lower bound), "free"
    cands: tuple = ()  # coll: ((guard, TV), ...)
    seq: TV | None = None  # index
    lo: z3.ArithRef = None  # int: z3 lower bound; index: 0
    hi: z3.ArithRef = None  # z3 exclusive upper bound, when known
    more_his: tuple = ()  # other exclusive upper bounds (any of them may prove the range short)
    elem: RType | None = None


def conjuncts(e) -> list:
    if isinstance(e, ast.BinOp) and e.op == "&&":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e] if e is not None else []


def free_names(e) -> set[str]:
    return {x.name for x in ast.preorder(e) if isinstance(x, ast.Name)}


def _relations(atoms) -> list[tuple[object, bool, object]]:
    """`a < b` / `a <= b` facts (strict flag) from comparison atoms and chains."""
    out = []

    def add(a, op, b):
        if op in ("<", "<="):
            out.append((a, op == "<", b))
        elif op in (">", ">="):
            out.append((b, op == ">", a))
        elif op == "==":
            out.append((a, False, b))
            out.append((b, False, a))

    for x in atoms:
        if isinstance(x, ast.BinOp):
            add(x.left, x.op, x.right)
        elif isinstance(x, ast.Chain):
            for i, op in enumerate(x.ops):
                add(x.operands[i], op, x.operands[i + 1])
    return out


def _bound(var: str, rels, pending: set[str], lower: bool):
    """A bound of `var` free of pending bound variables, following chains through them: (expr, strict)."""
    found = _bounds(var, rels, pending, lower)
    return found[0] if found else None


def _bounds(var: str, rels, pending: set[str], lower: bool) -> list:
    """Every bound of `var` free of pending bound variables, nearest first: [(expr, strict)]."""
    out = []
    start = ast.Name(var)
    seen = {var}
    frontier = [(start, False)]
    while frontier:
        node, strict = frontier.pop(0)
        for a, s, b in rels:
            near, far = (b, a) if lower else (a, b)
            if near != node:
                continue
            names = free_names(far)
            if isinstance(far, ast.Name) and far.name in pending:
                if far.name not in seen:
                    seen.add(far.name)
                    frontier.append((far, strict or s))
                continue
            if names & pending:
                continue
            out.append((far, strict or s))
    return out


def _var_type(enc, bv: ast.BoundVar, atoms, env: Env, src_coll: TV | None) -> RType:
    if bv.type is not None:
        return enc.resolver.rtype(bv.type, env.scope)
    if src_coll is not None:
        b = src_coll.t.base
        if b.args and b.args[0].kind != "any":
            return b.args[0]
    passed = _formal_type(enc, bv.name, atoms, env)
    return passed if passed is not None else INT


def _formal_type(enc, var: str, atoms, env: Env) -> RType | None:
    """An untyped bound variable passed as such to a function (`forall iv | valid(s, iv) :: ...`) has
    that parameter's type (non-generic functions only; anything else stays int)."""
    for atom in atoms:
        for x in ast.preorder(atom):
            if isinstance(x, ast.Call) and ast.Name(var) in x.args and not isinstance(x.callee, ast.Name):
                held = _held_param_type(enc, x, x.args.index(ast.Name(var)), var, env)
                if held is not None:
                    return held
            if not (isinstance(x, ast.Call) and isinstance(x.callee, ast.Name) and ast.Name(var) in x.args):
                continue
            found = env.scope.lookup(x.callee.name)
            if found is None:
                continue
            decl, scope = found
            if not isinstance(decl, ast.Function) or decl.type_params:
                continue
            k = x.args.index(ast.Name(var))
            if k < len(decl.params):
                return enc.resolver.rtype(decl.params[k].type, scope)
    return None


def _held_param_type(enc, call: ast.Call, k: int, var: str, env: Env) -> RType | None:
    """The k-th parameter type of a function value the call applies (`sp.spec(t)`, spec a field of
    arrow type of a bound datatype value sp), when its callee reads bound names only."""
    names = free_names(call.callee)
    if var in names or not names <= set(env.vars):
        return None
    try:
        f = enc.enc(call.callee, env)
    except (Unsupported, z3.Z3Exception):
        return None
    args = f.t.base.args
    return args[k] if f.t.base.kind == "arrow" and k < len(args) - 1 and not _untyped(args[k]) else None


def _untyped(t: RType) -> bool:
    return t.kind == "any" or any(_untyped(a) for a in t.args)


def _membership_source(var: str, atoms, pending: set[str]):
    for x in atoms:
        if isinstance(x, ast.BinOp) and x.op == "in" and x.left == ast.Name(var):
            if not (free_names(x.right) & pending):
                return x.right
    return None


def _source(enc, bv: ast.BoundVar, atoms, env: Env, pending: set[str], typing=None) -> tuple[Source, RType]:
    """typing: where an untyped variable's type is read from (default: the atoms, which give its bounds)."""
    coll_expr = _membership_source(bv.name, atoms, pending)
    coll = enc.enc(coll_expr, env) if coll_expr is not None else None
    t = _var_type(enc, bv, atoms if typing is None else typing, env, coll)
    if coll is not None:
        k = coll.t.base.kind
        if k in ("seq", "array"):
            return Source("index", seq=coll, lo=z3.IntVal(0), hi=enc.length(coll), elem=t), t
        if k in ("set", "multiset"):
            return Source("coll", cands=tuple((g, enc.types.from_rep(e, t)) for g, e in coll.v.cands)), t
        if k == "map":
            return Source("coll", cands=tuple((g, enc.types.from_rep(e, t)) for g, e in coll.v.keys.cands)), t
    if t.base.kind == "int":
        rels = _relations(atoms)
        lo = _bound(bv.name, rels, pending, lower=True)
        his = _bounds(bv.name, rels, pending, lower=False)
        hi = his[0] if his else None
        lo_v = None
        if lo is not None:
            lo_v = enc._int(enc.enc(lo[0], env), lo[0]) + (1 if lo[1] else 0)
        elif t.kind == "subset" and t.name == "nat":
            lo_v = z3.IntVal(0)
        hi_v = None
        if hi is not None:
            hi_v = enc._int(enc.enc(hi[0], env), hi[0]) + (0 if hi[1] else 1)
        if lo_v is not None:
            more = tuple(enc._int(enc.enc(h, env), h) + (0 if strict else 1) for h, strict in his[1:])
            return Source("int", lo=lo_v, hi=hi_v, more_his=more), t
    return Source("free"), t


def _instances(enc, src: Source, t: RType, name: str, env: Env):
    """Expanded instances (guard, value), the residual (z3 var, guard) or None, and the inner budget."""
    w = enc.width
    if src.kind == "coll":
        return list(src.cands), None, env.budget // max(1, len(src.cands))
    if src.kind in ("index", "int"):
        lo = src.lo
        exact = None
        if src.hi is not None:
            d = z3.simplify(src.hi - lo)
            if z3.is_int_value(d):  # a concrete range (often, inside an outer expansion): exactly its values
                exact = max(0, d.as_long())
        n = exact if exact is not None and exact <= w else w
        if n <= env.budget:
            inst = []
            for i in range(n):
                if src.kind == "index":
                    s = src.seq
                    inst.append((z3.IntVal(i) < enc.length(s), enc.types.from_rep(enc.nth(s, i), src.elem)))
                else:
                    inst.append((z3.BoolVal(True), TV(z3.simplify(lo + i), t)))
            residual = None
            if exact is None or exact > w:
                his = ([src.hi] if src.hi is not None else []) + list(src.more_his)
                if not any(enc.prove(h <= lo + w) for h in his):
                    k = z3.Int(enc.types.fresh(name))
                    if src.kind == "index":
                        s = src.seq
                        residual = (k, z3.And(k >= w, k < enc.length(s)), enc.types.from_rep(enc.nth(s, k), src.elem))
                    else:
                        residual = (k, k >= lo + w, TV(k, t))
            return inst, residual, env.budget // max(1, n)
    # a plain quantifier
    if src.kind == "index":
        s = src.seq
        k = z3.Int(enc.types.fresh(name))
        return [], (k, z3.And(k >= 0, k < enc.length(s)), enc.types.from_rep(enc.nth(s, k), src.elem)), env.budget
    c = z3.Const(enc.types.fresh(name), enc.types.sort(t))
    tv = enc.types.from_rep(c, t)
    guard = and_(enc.types.wf(tv, False, enc.constraint_of)) if enc.types.has_wf(t) else z3.BoolVal(True)
    return [], (c, guard, tv), env.budget


def encode_quantifier(enc, q: ast.Quantifier, env: Env) -> z3.BoolRef:
    forall = q.kind == "forall"
    rng, body = q.range, q.body
    if forall:
        atoms = conjuncts(rng) + (conjuncts(body.left) if rng is None and isinstance(body, ast.BinOp)
                                  and body.op == "==>" else [])
    else:
        atoms = conjuncts(rng) + conjuncts(body)
    # a variable's type may show anywhere in the quantifier (`forall t :: sp.spec(t) == ...`); its bounds
    # only in the atoms that guard the body
    typing = atoms + [body]

    def matrix(env2: Env):
        r = enc.boolean(rng, env2) if rng is not None else None
        b = enc.boolean(body, env2)
        if r is None:
            return b
        return z3.Implies(r, b) if forall else z3.And(r, b)

    def bind(pending: list[ast.BoundVar], env2: Env):
        if not pending:
            return matrix(env2)
        names = {v.name for v in pending}
        # prefer a variable whose values have a known source
        choice = None
        for bv in pending:
            src, t = _source(enc, bv, atoms, env2, names - {bv.name}, typing)
            if src.kind != "free":
                choice = (bv, src, t)
                break
        if choice is None:
            bv = pending[0]
            choice = (bv,) + _source(enc, bv, atoms, env2, names - {bv.name}, typing)
        bv, src, t = choice
        rest = [v for v in pending if v is not bv]
        inst, residual, budget = _instances(enc, src, t, bv.name, env2)
        parts = []
        for g, val in inst:
            inner = bind(rest, Env({**env2.vars, bv.name: val}, env2.scope, budget))
            parts.append(z3.Implies(g, inner) if forall else z3.And(g, inner))
        if residual is not None:
            k, g, val = residual
            inner = bind(rest, Env({**env2.vars, bv.name: val}, env2.scope, budget))
            parts.append(z3.ForAll([k], z3.Implies(g, inner)) if forall else z3.Exists([k], z3.And(g, inner)))
        return and_(parts) if forall else or_(parts)

    return bind(list(q.vars), env)


def _finite_instances(enc, bv: ast.BoundVar, atoms, env: Env, node):
    """All values a comprehension's single bound variable may take, as (guard, TV); Unsupported if unbounded."""
    src, t = _source(enc, bv, atoms, env, set())
    if src.kind == "coll":
        return list(src.cands), t
    if src.kind in ("index", "int") and src.hi is not None:
        n = enc.least_bound(src.hi, src.lo, (enc.width, 2 * enc.width, 4 * enc.width))
        if n is not None:
            if src.kind == "index":
                s = src.seq
                return [(z3.IntVal(i) < enc.length(s), enc.types.from_rep(enc.nth(s, i), src.elem))
                        for i in range(n)], t
            return [(z3.BoolVal(True), TV(z3.simplify(src.lo + i), t)) for i in range(n)], t
    raise unsupported("comprehension without a small finite range", node)


def encode_set_comprehension(enc, e: ast.SetComprehension, env: Env) -> TV:
    if e.infinite:
        raise unsupported("iset comprehension", e)
    if len(e.vars) != 1:
        raise unsupported("comprehension over several variables", e)
    bv = e.vars[0]
    atoms = conjuncts(e.range)
    inst, t = _finite_instances(enc, bv, atoms, env, e)
    cands = []
    et = t
    for g, val in inst:
        env2 = env.bind({bv.name: val})
        r = enc.boolean(e.range, env2) if e.range is not None else z3.BoolVal(True)
        term = enc.enc(e.term, env2) if e.term is not None else val
        et = term.t
        cands.append((z3.And(g, r), enc.types.to_rep(term)))
    return TV(SetV(tuple(cands)), RType("set", (et,)))


def encode_map_comprehension(enc, e: ast.MapComprehension, env: Env) -> TV:
    if e.infinite:
        raise unsupported("imap comprehension", e)
    if len(e.vars) != 1:
        raise unsupported("comprehension over several variables", e)
    bv = e.vars[0]
    inst, t = _finite_instances(enc, bv, conjuncts(e.range), env, e)
    entries = []
    kt = vt = t
    for g, val in inst:
        env2 = env.bind({bv.name: val})
        r = enc.boolean(e.range, env2) if e.range is not None else z3.BoolVal(True)
        key = enc.enc(e.key, env2) if e.key is not None else val
        value = enc.enc(e.value, env2)
        kt, vt = key.t, value.t
        entries.append((z3.And(g, r), enc.types.to_rep(key), enc.types.to_rep(value)))

    def get(x, entries=tuple(entries)):
        out = entries[-1][2] if entries else x
        for g, k, v in reversed(entries):
            out = z3.If(z3.And(g, x == k), v, out)
        return out

    return TV(MapV(SetV(tuple((g, k) for g, k, _ in entries)), get), RType("map", (kt, vt)))

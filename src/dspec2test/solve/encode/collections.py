"""Sequences, sets, multisets and maps: displays, cardinality, indexing, slices, updates, member selection, tuples."""

from __future__ import annotations

import z3

from dspec2test.model.resolve import INT, RType, seq_of
from dspec2test.model.walk import dotted
from dspec2test.solve.encode.base import ANY, EncoderBase, _element_type, _seq_lit
from dspec2test.solve.values import MapV, SetV, TV, multiset_from_cands, unsupported as _u


class CollectionsMixin(EncoderBase):
    def e_Cardinality(self, e, env):
        a = self.enc(e.expr, env)
        k = a.t.base.kind
        self.seq(a, e)
        if k in ("seq", "array"):
            return TV(self.length(a), INT)
        if k == "set":
            if a.v.rep is not None:
                return TV(z3.Length(a.v.rep), INT)
            return TV(a.v.card(), INT)
        if k == "multiset":
            return TV(a.v.card(), INT)
        if k == "map":
            return TV(a.v.keys.card(), INT)
        if k == "any":
            return TV(z3.IntVal(0), INT)
        raise _u(f"|e| on {k}", e)

    def e_SeqDisplay(self, e, env):
        if not e.elems:
            return TV(None, RType("seq", (ANY,)))
        vals = [self.enc(x, env) for x in e.elems]
        et = _element_type(vals, vals[0].t)
        vals = [self.coerce(v, et) for v in vals]
        return TV(_seq_lit([self.types.to_rep(v) for v in vals], self.types.sort(et)), seq_of(et))

    def e_SetDisplay(self, e, env):
        if e.infinite:
            raise _u("iset display", e)
        vals = [self.enc(x, env) for x in e.elems]
        et = _element_type(vals, vals[0].t if vals else ANY)
        return TV(SetV(tuple((z3.BoolVal(True), self.types.to_rep(self.coerce(v, et))) for v in vals)), RType("set", (et,)))

    def e_MultisetDisplay(self, e, env):
        vals = [self.enc(x, env) for x in e.elems]
        et = _element_type(vals, vals[0].t if vals else ANY)
        cands = tuple((z3.BoolVal(True), self.types.to_rep(self.coerce(v, et))) for v in vals)
        return TV(multiset_from_cands(cands), RType("multiset", (et,)))

    def e_MultisetConv(self, e, env):
        a = self.enc(e.expr, env)
        self.seq(a, e)
        k = a.t.base.kind
        et = a.t.base.args[0] if a.t.base.args else ANY
        if k == "set":
            return TV(multiset_from_cands(a.v.cands), RType("multiset", (et,)))
        if k in ("seq", "array"):
            cands = tuple((z3.IntVal(i) < self.length(a), self.nth(a, i)) for i in range(self._seq_bound(a, e)))
            return TV(multiset_from_cands(cands), RType("multiset", (et,)))
        if k == "any":
            return TV(multiset_from_cands(()), RType("multiset", (ANY,)))
        raise _u(f"multiset() of {k}", e)

    def e_MapDisplay(self, e, env):
        if e.infinite:
            raise _u("imap display", e)
        items = [(self.enc(k, env), self.enc(v, env)) for k, v in e.items]
        if not items:
            return TV(MapV(SetV(()), lambda k: k), RType("map", (ANY, ANY)))
        kt = next((k.t for k, _ in items if k.lit is None), items[0][0].t)
        vt = next((v.t for _, v in items if v.lit is None), items[0][1].t)
        ks = [self.types.to_rep(self.coerce(k, kt)) for k, _ in items]
        vs = [self.types.to_rep(self.coerce(v, vt)) for _, v in items]

        def get(x, ks=ks, vs=vs):
            out = vs[-1]
            for kk, vv in zip(ks, vs):  # later items win, as in Dafny
                out = z3.If(x == kk, vv, out)
            return out

        return TV(MapV(SetV(tuple((z3.BoolVal(True), k) for k in ks)), get), RType("map", (kt, vt)))

    def e_Index(self, e, env):
        if len(e.indices) != 1:
            s = self.enc(e.seq, env)
            if s.t.base.kind != f"array{len(e.indices)}":
                raise _u("multi-dimensional index", e)
            return self.types.cell(s, [self._int(self.enc(i, env)) for i in e.indices])
        s = self.enc(e.seq, env)
        self.seq(s, e)
        k = s.t.base.kind
        # a key that is a constructor (`m[None]`) takes its type arguments from the map's key type
        i = self.against(e.indices[0], env, s.t.base.args[0] if k in ("map", "multiset") else None)
        if k in ("seq", "array"):
            i = self.coerce(i, INT)
            if i.t.base.kind == "bv":
                i = TV(z3.BV2Int(i.v), INT)
            return self.types.from_rep(self.nth(s, i.v), s.t.base.args[0])
        if k == "map":
            kt, vt = s.t.base.args
            return self.types.from_rep(s.v.get(self.types.to_rep(self.coerce(i, kt))), vt)
        if k == "multiset":
            return TV(s.v.count(self.types.to_rep(self.coerce(i, s.t.base.args[0]))), INT)
        raise _u(f"indexing {k}", e)

    def e_Slice(self, e, env):
        if e.parts:
            raise _u("sequence split slice", e)
        s = self.enc(e.seq, env)
        self.seq(s, e)
        if s.t.base.kind not in ("seq", "array"):
            raise _u(f"slice of {s.t.base.kind}", e)
        t = s.t.base if s.t.base.kind == "seq" else seq_of(s.t.base.args[0])
        n = self.length(s)
        lo = self._int(self.enc(e.lo, env)) if e.lo is not None else z3.IntVal(0)
        hi = self._int(self.enc(e.hi, env)) if e.hi is not None else n
        if e.lo is None and e.hi is None:
            return TV(s.v, t, view=s.view)
        length = z3.simplify(hi - lo)
        if s.view is not None:
            base, lo0, _ = s.view
            start = z3.simplify(lo0 + lo)
        else:
            base, start = s.v, lo
        return TV(z3.Extract(base, start, length), t, view=(base, start, length))

    def e_Update(self, e, env):
        s = self.enc(e.seq, env)
        self.seq(s, e)
        k = s.t.base.kind
        if k == "seq":
            i = self._int(self.enc(e.index, env))
            v = self.types.to_rep(self.coerce(self.enc(e.value, env), s.t.base.args[0]))
            n = z3.Length(s.v)
            return TV(z3.Concat(z3.Extract(s.v, 0, i), z3.Unit(v), z3.Extract(s.v, i + 1, n - i - 1)), s.t)
        if k == "map":
            kt, vt = s.t.base.args
            kk = self.types.to_rep(self.coerce(self.against(e.index, env, kt), kt))
            vv = self.types.to_rep(self.coerce(self.against(e.value, env, vt), vt))
            old = s.v
            return TV(MapV(SetV(old.keys.cands + ((z3.BoolVal(True), kk),)),
                           lambda x: z3.If(x == kk, vv, old.get(x))), s.t)
        if k == "multiset":
            raise _u("multiset update", e)
        raise _u(f"update of {k}", e)

    def e_MemberSelect(self, e, env):
        name = e.name
        path = dotted(e)
        if path is not None and path.split(".")[0] not in env.vars and not self._is_field(path.split(".")[0], env):
            return self._global(path, e, env)
        obj = self.enc(e.obj, env)
        b = obj.t.base
        if b.kind == "class":
            return self.field_of(obj, name, e, env)
        if b.kind == "array" and name == "Length":
            return TV(z3.Length(obj.v), INT)
        if b.kind in ("array2", "array3") and name.startswith("Length") and name[6:].isdigit():
            dims = self.types.dims(obj)
            if int(name[6:]) < len(dims):
                return TV(dims[int(name[6:])], INT)
        if b.kind == "map" and name in ("Keys", "Values", "Items"):
            m = obj.v
            kt, vt = b.args
            if name == "Keys":
                return TV(m.keys, RType("set", (kt,)))
            if name == "Values":
                return TV(SetV(tuple((g, m.get(k)) for g, k in m.keys.cands)), RType("set", (vt,)))
            pair = RType("tuple", (kt, vt))
            self.types.sort(pair)
            make, _ = self.types.tuple_make[pair]
            return TV(SetV(tuple((g, make(k, m.get(k))) for g, k in m.keys.cands)), RType("set", (pair,)))
        if b.kind == "tuple" and name.isdigit():
            make, accs = self.types.tuple_make[RType(b.kind, b.args, b.width, b.name)]
            i = int(name)
            return self.types.from_rep(accs[i](obj.v), b.args[i])
        if b.kind == "data":
            const = self._datatype_const(obj, name, env)
            if const is not None:
                return const
            if name.endswith("?"):
                test = self._ctor_test(obj, name)
                if test is not None:
                    return test
                if self._datatype_member(obj, name) is not None:  # `v.P?` of `predicate P?(...)`, no call
                    raise _u(f"member {name} of {b.name} as a function value", e)
                raise _u(f"{name}: no constructor {name[:-1]} nor member {name} in datatype {b.name}", e)
            found = self._datatype_field(obj, name)
            if found is not None:
                return found
            raise _u(f"datatype member {name}", e)
        if b.kind == "bv" or name in ("Floor", "IsLimit", "IsSucc", "Offset", "IsNat"):
            if b.kind == "real" and name == "Floor":
                return TV(z3.ToInt(obj.v), INT)
            raise _u(f"member .{name}", e)
        raise _u(f"field or member .{name}", e)

    def e_DatatypeUpdate(self, e, env):
        obj = self.enc(e.obj, env)
        if obj.t.base.kind != "data":
            raise _u("datatype update on a non-datatype", e)
        updates = {n: self.enc(v, env) for n, v in e.updates}
        result = None
        for info in reversed(self.types.ctors_of(obj.t)):
            names = [f for f, _, _ in info.fields]
            if not set(updates) <= set(names):
                continue
            args = [self.types.to_rep(self.coerce(updates[f], ft)) if f in updates else acc(obj.v)
                    for f, ft, acc in info.fields]
            made = info.make(*args)
            result = made if result is None else z3.If(info.test(obj.v), made, result)
        if result is None:
            raise _u("datatype update of unknown field", e)
        return TV(result, obj.t.base)

    def e_TupleExpr(self, e, env):
        if len(e.elems) == 1:
            return self.enc(e.elems[0], env)
        if not e.elems:
            raise _u("unit value", e)
        vals = [self.enc(x, env) for x in e.elems]
        t = RType("tuple", tuple(v.t for v in vals))
        self.types.sort(t)
        make, _ = self.types.tuple_make[t]
        return TV(make(*[self.types.to_rep(v) for v in vals]), t)

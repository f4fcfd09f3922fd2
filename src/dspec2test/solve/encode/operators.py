"""Unary, binary and chained operators, on numbers, bitvectors and collections; membership."""

from __future__ import annotations

import z3

from dspec2test.dafny import ast
from dspec2test.model.resolve import BOOL, INT, RType, STRING
from dspec2test.solve.encode.base import COMPARE, EncoderBase, ORDER, _max0, _min
from dspec2test.solve.values import MapV, MultisetV, ObjV, SetV, TV, and_, or_, unsupported as _u

RANK_DEPTH = 2  # constructors down that `a < b` of datatype values looks for a among b's parts


class OperatorsMixin(EncoderBase):
    def e_UnOp(self, e, env):
        a = self.enc(e.operand, env)
        if e.op == "!":
            return TV(z3.Not(a.v), BOOL)
        if a.lit is not None:
            return TV(z3.IntVal(-a.lit), INT, lit=-a.lit)
        return TV(-a.v, a.t)

    def e_Chain(self, e, env):
        vals = [self.enc(o, env) for o in e.operands]
        parts = [self._binop(op, vals[i], vals[i + 1], e) for i, op in enumerate(e.ops)]
        return TV(and_(p.v for p in parts), BOOL)

    def e_BinOp(self, e, env):
        op = e.op
        if op in ("&&", "||", "==>", "<==", "<==>"):
            a, b = self.boolean(e.left, env), self.boolean(e.right, env)
            v = {"&&": lambda: z3.And(a, b), "||": lambda: z3.Or(a, b), "==>": lambda: z3.Implies(a, b),
                 "<==": lambda: z3.Implies(b, a), "<==>": lambda: a == b}[op]()
            return TV(v, BOOL)
        if op == "==#":
            raise _u("prefix equality", e)
        if op in ("==", "!=") and isinstance(e.left, ast.NullLit) != isinstance(e.right, ast.NullLit):
            # Generated inputs are always allocated: a reference compared with null is never null.
            other = self.enc(e.right if isinstance(e.left, ast.NullLit) else e.left, env)
            if other.t.base.kind == "class" and isinstance(other.v, ObjV):
                return TV(other.v.id != 0 if op == "!=" else other.v.id == 0, BOOL)
            if other.t.base.kind not in ("array", "array2", "array3"):
                raise _u("null comparison on a non-array value", e)
            return TV(z3.BoolVal(op == "!="), BOOL)
        if op in ("==", "!=", "in", "!in"):
            return self._binop(op, *self._sides(op, e, env), e)
        return self._binop(op, self.enc(e.left, env), self.enc(e.right, env), e)

    def _sides(self, op, e, env):  # (str, BinOp, Env) -> (TV, TV); against is calls.py's, as e_BinOp's calls are
        """Both operands, a constructor on one side taking the type arguments its own arguments do not say
        from the other side's type (`bs == Success(Spec.JSON(js))` of a Result<bytes, SerializationError>,
        `None in env` of a map keyed by Option<seq<string>>): else they default to int, a sort the other
        side does not have. The constructor side is encoded second; otherwise the left is first."""
        member = op in ("in", "!in")
        if member or (self.is_constructor(e.left, env) and not self.is_constructor(e.right, env)):
            if member and not self.is_constructor(e.left, env):
                return self.enc(e.left, env), self.enc(e.right, env)
            b = self.enc(e.right, env)
            k = b.t.base
            want = (k.args[0] if k.args else None) if member else b.t
            return self.against(e.left, env, want), b
        a = self.enc(e.left, env)
        return a, self.against(e.right, env, a.t)

    def _binop(self, op: str, a: TV, b: TV, node) -> TV:
        if op in ("in", "!in"):
            v = self.member(a, b, node)
            return TV(z3.Not(v) if op == "!in" else v, BOOL)
        if op in ("<", ">") and a.t.base.kind == "data" and b.t.base.kind == "data":
            small, big = (a, b) if op == "<" else (b, a)
            return TV(self.rank_less(small, big), BOOL)
        a, b = self.unify(a, b)
        k = a.t.base.kind
        if op == "==":
            return TV(self.eq(a, b, node), BOOL)
        if op == "!=":
            return TV(z3.Not(self.eq(a, b, node)), BOOL)
        if k in ("set", "multiset", "map"):
            return self._collection_op(op, a, b, node)
        if k in ("seq", "array"):
            self.seq(a, node)
            if op == "+":
                return TV(z3.Concat(a.v, b.v), a.t if not a.t.is_string else STRING)
            if op in ("<", "<="):  # prefix
                pre = z3.PrefixOf(a.v, b.v)
                return TV(z3.And(pre, a.v != b.v) if op == "<" else pre, BOOL)
            raise _u(f"sequence operator {op}", node)
        if k == "bv":
            return self._bv_op(op, a, b, node)
        if op in COMPARE and k in ("data", "tuple"):  # `<=` or tuples: Dafny orders neither
            raise _u(f"{op} on datatype values (rank)", node)
        if op in COMPARE:
            x, y = a.v, b.v
            return TV(ORDER[op](x, y), BOOL)  # one term built, not all four
        if k not in ("int", "real"):
            raise _u(f"operator {op} on {k}", node)
        x, y = a.v, b.v
        if op == "+":
            return TV(x + y, a.t)
        if op == "-":
            return TV(x - y, a.t)
        if op == "*":
            return TV(x * y, a.t)
        if op == "/":
            return TV(x / y, a.t)
        if op == "%":
            if k == "real":
                raise _u("% on real", node)
            return TV(x % y, a.t)
        raise _u(f"operator {op} on {k}", node)

    def _bv_op(self, op, a, b, node):
        x, y = a.v, b.v
        table = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: z3.UDiv(x, y),
                 "%": lambda: z3.URem(x, y), "&": lambda: x & y, "|": lambda: x | y, "^": lambda: x ^ y,
                 "<<": lambda: x << y, ">>": lambda: z3.LShR(x, y)}
        if op in table:
            return TV(table[op](), a.t)
        if op in COMPARE:
            return TV({"<": z3.ULT, "<=": z3.ULE, ">": z3.UGT, ">=": z3.UGE}[op](x, y), BOOL)
        raise _u(f"bitvector operator {op}", node)

    def _collection_op(self, op, a: TV, b: TV, node) -> TV:
        k = a.t.base.kind
        x, y = a.v, b.v
        if k == "set":
            if op == "+":
                return TV(SetV(x.cands + y.cands), a.t)
            if op == "*":
                return TV(SetV(tuple((z3.And(g, y.member(e)), e) for g, e in x.cands)), a.t)
            if op == "-":
                return TV(SetV(tuple((z3.And(g, z3.Not(y.member(e))), e) for g, e in x.cands)), a.t)
            if op in ("<=", "<", ">=", ">"):
                if op in (">=", ">"):
                    x, y = y, x
                sub = and_(z3.Implies(g, y.member(e)) for g, e in x.cands)
                return TV(z3.And(sub, z3.Not(self.eq(TV(y, a.t), TV(x, a.t), node))) if op in ("<", ">") else sub, BOOL)
            if op == "!!":
                return TV(and_(z3.Implies(g, z3.Not(y.member(e))) for g, e in x.cands), BOOL)
        if k == "multiset":
            if op == "+":
                return TV(MultisetV(x.cands + y.cands, lambda v: x.count(v) + y.count(v)), a.t)
            if op == "*":
                return TV(MultisetV(x.cands, lambda v: _min(x.count(v), y.count(v))), a.t)
            if op == "-":
                return TV(MultisetV(x.cands, lambda v: _max0(x.count(v) - y.count(v))), a.t)
            if op in ("<=", "<", ">=", ">"):
                if op in (">=", ">"):
                    x, y = y, x
                sub = and_(z3.Implies(g, x.count(e) <= y.count(e)) for g, e in x.cands)
                return TV(z3.And(sub, z3.Not(self.eq(TV(y, a.t), TV(x, a.t), node))) if op in ("<", ">") else sub, BOOL)
            if op == "!!":
                return TV(and_(z3.Implies(g, y.count(e) == 0) for g, e in x.cands), BOOL)
        if k == "map":
            if op == "+":
                keys = SetV(x.keys.cands + y.keys.cands)
                return TV(MapV(keys, lambda kk: z3.If(y.keys.member(kk), y.get(kk), x.get(kk))), a.t)
        raise _u(f"{k} operator {op}", node)

    def _map_minus(self, m: TV, s: TV) -> TV:
        x, y = m.v, s.v
        keys = SetV(tuple((z3.And(g, z3.Not(y.member(e))), e) for g, e in x.keys.cands))
        return TV(MapV(keys, x.get), m.t)

    def rank_less(self, small: TV, big: TV) -> z3.BoolRef:
        """`small < big` of datatype values (Dafny's rank): small is a part of big, a field's value or an element
        of a sequence field, RANK_DEPTH constructors down, among the first `cap` elements of each sequence.
        A sufficient condition: inputs solved for it meet it; a part deeper down is not found (fewer
        inputs, never a wrong one). Only fields whose types can hold small's are searched."""
        target = small.v.sort()
        holds: dict[str, bool] = {}

        def is_small(t: RType) -> bool:
            return t.base.kind == "data" and self.types.sort(t.base) == target

        def can_hold(t: RType) -> bool:  # can a value of t have a part of small's sort?
            b = t.base
            if b.kind in ("seq", "array"):
                return is_small(b.args[0]) or can_hold(b.args[0])
            if b.kind != "data":
                return False
            key = str(self.types.sort(b))
            if key not in holds:
                holds[key] = False  # a recursive datatype: what its other fields say decides
                holds[key] = any(is_small(ft) or can_hold(ft) for info in self.types.ctors_of(b) for _, ft, _ in info.fields)
            return holds[key]

        def parts(v: TV, depth: int) -> list[z3.BoolRef]:  # v is small, or has it as a part
            b = v.t.base
            if b.kind in ("seq", "array") and isinstance(v.v, z3.SeqRef):
                et = b.args[0]
                out = [z3.Contains(v.v, z3.Unit(small.v))] if is_small(et) else []
                if depth > 0 and can_hold(et):  # into the first elements' fields
                    out += [z3.And(z3.IntVal(i) < z3.Length(v.v), inner(self.types.from_rep(v.v[i], et), depth - 1))
                            for i in range(self.types.cap)]
                return out
            if b.kind != "data":
                return []
            out = [v.v == small.v] if is_small(b) else []
            return out + [inner(v, depth - 1)] if depth > 0 and can_hold(b) else out

        def inner(v: TV, depth: int) -> z3.BoolRef:  # small is a part of one of v's fields
            return or_(z3.And(info.test(v.v), or_(p for _, ft, acc in info.fields
                                                  for p in parts(self.types.from_rep(acc(v.v), ft), depth)))
                       for info in self.types.ctors_of(v.t.base))

        return inner(big, RANK_DEPTH - 1)

    def member(self, x: TV, coll: TV, node) -> z3.BoolRef:
        k = coll.t.base.kind
        self.seq(coll, node)
        if k == "any":
            return z3.BoolVal(False)
        et = coll.t.base.args[0]
        if et.base.kind == "class" and x.t.base.kind != "class":
            # an array among objects (`a in Repr`): the solver gives arrays no identity, so this is a fact
            # it leaves open (frames like Repr are ghost: no test checks them)
            return z3.Bool(self.types.fresh("in"))
        x = self.coerce(x, et)
        if k in ("seq", "array"):
            rep = self.types.to_rep(x)
            bound = self._seq_bound(coll, node, required=False)
            if bound is not None:  # a short sequence: an explicit disjunction beats Z3's Contains
                return or_(z3.And(z3.IntVal(i) < self.length(coll), self.nth(coll, i) == rep) for i in range(bound))
            return z3.Contains(coll.v, z3.Unit(rep))
        if k == "set":
            return coll.v.member(self.types.to_rep(x))
        if k == "multiset":
            return coll.v.count(self.types.to_rep(x)) > 0
        if k == "map":
            return coll.v.keys.member(self.types.to_rep(x))
        raise _u(f"`in` on {k}", node)

"""Casts, conditionals, lets, matches and patterns, old(), and the binders (quantifiers and
comprehensions, see quant.py)."""

from __future__ import annotations

from dataclasses import replace

import z3

from dspec2test.dafny import ast
from dspec2test.model.resolve import BOOL, RType
from dspec2test.solve import quant
from dspec2test.solve.encode.base import EncoderBase
from dspec2test.solve.values import Env, HEAP, PRE_HEAP, TV, and_, or_, unsupported as _u


class ControlMixin(EncoderBase):
    def e_Cast(self, e, env):
        t = self.resolver.rtype(e.type, env.scope)
        # to a datatype: the type instantiates the operand's generic constructors (a function's body
        # unfolded where its result type no longer says what `Failure(0)` is a Result of)
        a = self.enc(e.expr, replace(env, expect=t) if t.base.kind == "data" else env)
        src, dst = a.t.base.kind, t.base.kind
        if a.lit is not None:
            return self.coerce(a, t)
        if src == dst and src != "bv":
            return TV(a.v, t)
        if dst in ("int", "char") and src in ("int", "char"):
            return TV(a.v, t)
        if dst in ("int", "char") and src == "real":
            return TV(z3.ToInt(a.v), t)
        if dst in ("int", "char") and src == "bv":
            return TV(z3.BV2Int(a.v), t)
        if dst == "real" and src in ("int", "char"):
            return TV(z3.ToReal(a.v), t)
        if dst == "bv" and src in ("int", "char"):
            return TV(z3.Int2BV(a.v, t.base.width), t)
        if dst == "bv" and src == "bv":
            w0, w1 = a.t.base.width, t.base.width
            v = a.v if w0 == w1 else z3.ZeroExt(w1 - w0, a.v) if w1 > w0 else z3.Extract(w1 - 1, 0, a.v)
            return TV(v, t)
        raise _u(f"cast from {src} to {dst}", e)

    def e_IfThenElse(self, e, env):
        if e.binding:
            raise _u("if-such-that expression", e)
        c = self.boolean(e.cond, env)
        if self.decide_conditions:  # a condition a concrete value decides takes one branch (calls.py _unfold)
            decided = z3.simplify(c)
            if z3.is_true(decided) or z3.is_false(decided):
                return self.enc(e.then if z3.is_true(decided) else e.els, env)
        a, b = self.unify(self.enc(e.then, env), self.enc(e.els, env))
        return self.ite(c, a, b, e)

    def e_Let(self, e, env):
        if e.such_that is not None:
            raise _u("let such that", e)
        if e.fail_op:
            return self._let_or_fail(e, env)
        if len(e.pats) != len(e.values):
            raise _u("let with mismatched patterns", e)
        binds: dict[str, TV] = {}
        conds = []
        for p, v in zip(e.pats, e.values):
            tv = self.enc(v, env)
            if isinstance(p, ast.PatVar) and p.type is not None:
                tv = self.coerce(tv, self.resolver.rtype(p.type, env.scope))
            c, b = self.pattern(p, tv, env)
            conds.append(c)
            binds.update(b)
        return self.enc(e.body, env.bind(binds))

    def _let_or_fail(self, e, env):
        """`var x :- v; body`: v's failure propagated if it is one, else body with x := v.Extract()."""
        if len(e.pats) != 1 or len(e.values) != 1:
            raise _u("let with :- of several values", e)
        v = self.enc(e.values[0], env)
        failed = self.failure_member(v, "IsFailure", e, env)
        value = self.failure_member(v, "Extract", e, env)
        p = e.pats[0]
        if isinstance(p, ast.PatVar) and p.type is not None:
            value = self.coerce(value, self.resolver.rtype(p.type, env.scope))
        _, binds = self.pattern(p, value, env)
        rest = self.enc(e.body, env.bind(binds))
        out = self.failure_member(v, "PropagateFailure", e, env, expect=rest.t)
        a, b = self.unify(out, rest)
        return self.ite(failed.v, a, b, e)

    def e_MatchExpr(self, e, env):
        scrut = self.enc(e.scrutinee, env)
        arms = []
        for case in e.cases:
            if not isinstance(case.body, ast.Node):
                raise _u("match statement", case)
            cond, binds = self.pattern(case.pattern, scrut, env)
            if self.decide_conditions:  # arms a concrete scrutinee does not take are not encoded (calls.py)
                decided = z3.simplify(cond)
                if z3.is_false(decided):
                    continue
                if z3.is_true(decided) and not arms:
                    return self.enc(case.body, env.bind(binds))
            arms.append((cond, self.enc(case.body, env.bind(binds))))
        if not arms:
            raise _u("empty match", e)
        result = arms[-1][1]
        for cond, val in reversed(arms[:-1]):
            val, result = self.unify(val, result)
            result = self.ite(cond, val, result, e)
        return result

    def pattern(self, p, tv: TV, env: Env) -> tuple[z3.BoolRef, dict[str, TV]]:
        """Condition for `tv` to match pattern `p`, and the variables it binds."""
        b = tv.t.base
        if isinstance(p, ast.PatWild):
            return z3.BoolVal(True), {}
        if isinstance(p, ast.PatBind):
            c, binds = self.pattern(p.pattern, tv, env)
            return c, {**binds, p.name: tv}
        if isinstance(p, ast.PatAlt):
            conds = [self.pattern(a, tv, env)[0] for a in p.alts]
            return or_(conds), {}
        if isinstance(p, ast.PatLit):
            lit = self.coerce(self.enc(p.value, env), tv.t)
            return self.eq(tv, lit, p), {}
        if isinstance(p, ast.PatVar):
            if b.kind == "data":
                for info in self.types.ctors_of(b):
                    if info.ctor.name == p.name.split(".")[-1] and not info.fields:
                        return info.test(tv.v), {}
            return z3.BoolVal(True), {p.name: tv}
        if isinstance(p, ast.PatTuple):
            if b.kind != "tuple" or len(b.args) != len(p.elems):
                if len(p.elems) == 1:
                    return self.pattern(p.elems[0], tv, env)
                raise _u("tuple pattern on a non-tuple", p)
            make, accs = self.types.tuple_make[RType(b.kind, b.args, b.width, b.name)]
            conds, binds = [], {}
            for acc, et, sub in zip(accs, b.args, p.elems):
                c, bb = self.pattern(sub, self.types.from_rep(acc(tv.v), et), env)
                conds.append(c)
                binds.update(bb)
            return and_(conds), binds
        if isinstance(p, ast.PatCtor):
            if b.kind != "data":
                raise _u("constructor pattern on a non-datatype", p)
            for info in self.types.ctors_of(b):
                if info.ctor.name == p.name.split(".")[-1]:
                    conds, binds = [info.test(tv.v)], {}
                    for (fname, ft, acc), sub in zip(info.fields, p.args):
                        c, bb = self.pattern(sub, self.types.from_rep(acc(tv.v), ft), env)
                        conds.append(c)
                        binds.update(bb)
                    return and_(conds), binds
            raise _u(f"unknown constructor {p.name}", p)
        raise _u("pattern", p)

    def e_Old(self, e, env):
        if e.label is not None or self.pre_state is None:
            raise _u("old", e)
        # only the modified arrays differ; a bound variable that shadows one keeps its value
        swap = {n: pre for n, (post, pre) in self.pre_state.items() if env.vars.get(n) is post}
        pre_heap = env.vars.get(PRE_HEAP, self.pre_heap)  # a call's own old() state, else the member's
        if pre_heap is not None and HEAP in env.vars:
            swap[HEAP] = pre_heap
        return self.enc(e.expr, env.bind(swap) if swap else env)

    def e_StmtExpr(self, e, env):
        return self.enc(e.expr, env)

    def e_Quantifier(self, e, env):
        return TV(quant.encode_quantifier(self, e, env), BOOL)

    def e_SetComprehension(self, e, env):
        return quant.encode_set_comprehension(self, e, env)

    def e_MapComprehension(self, e, env):
        return quant.encode_map_comprehension(self, e, env)

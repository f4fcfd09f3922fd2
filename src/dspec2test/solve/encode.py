"""Dafny contract expressions to Z3, with the Dafny type of every subterm (see values.TV).

Names resolve through `dafny.resolve`; user functions are inlined (non-recursive) or become Z3 recursive
functions; quantifiers with an integer lower bound (or over a collection) are expanded a few steps and
keep a residual Z3 quantifier for the rest, dropped when the bound provably leaves no rest.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Callable

import z3

from dspec2test.dafny import ast
from dspec2test.model.resolve import BOOL, CHAR, INT, REAL, STRING, Resolver, RType, Scope, seq_of
from dspec2test.errors import Unsupported
from dspec2test.solve.types import Types
from dspec2test.solve import quant
from dspec2test.solve.values import (HEAP, PRE_HEAP, THIS, TV, Env, FuncV, LambdaV, MapV, MultisetV, ObjV, SetV, and_,
                                     multiset_from_cands, or_, unsupported as _u)

ANY = RType("any")  # element type of `[]` before its context gives one
NULL = RType("class", name="object?")
COMPARE = ("<", "<=", ">", ">=")
ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_LEAVES = (ast.Name, ast.IntLit, ast.BoolLit, ast.CharLit, ast.RealLit)  # cheaper to encode than to look up
_BINDERS = (ast.Quantifier, ast.SetComprehension, ast.MapComprehension, ast.Lambda, ast.Let, ast.MatchExpr,
            ast.SeqInit, ast.StmtExpr)


class AtomMisuse(Unsupported):
    """A string taken apart where the solver holds strings as atoms (it then solves without them)."""


def _tv_key(tv: TV | None) -> tuple:
    """A bound value as a memo key: a term by its Z3 id (equal terms share one), anything else by identity."""
    if tv is None:
        return ()
    if isinstance(tv.v, z3.AstRef) and (tv.view is None or all(isinstance(x, z3.AstRef) for x in tv.view)):
        view = tuple(x.get_id() for x in tv.view) if tv.view is not None else None
        return (tv.v.get_id(), tv.t, tv.lit, view)
    return (id(tv),)


@dataclass
class Encoder:
    resolver: Resolver
    types: Types
    prove: Callable[[z3.BoolRef], bool]  # True when the formula holds under the variables' constraints
    # arrays the member modifies: name -> (post-state, pre-state) values, which old(e) swaps; None when
    # the frame holds more than array parameters, so old() cannot be modelled
    pre_state: dict[str, tuple[TV, TV]] | None = field(default_factory=dict[str, tuple[TV, TV]])
    width: int = 11  # quantifier expansion steps
    # recursive functions as uninterpreted ones: for a member whose solver hung on their definitions
    opaque_recursion: bool = False
    _recfuns: dict = field(default_factory=dict)
    rec_defs: list = field(default_factory=list)  # (function, formals, body) of every Z3 recursive function made
    _recursive: dict = field(default_factory=dict)
    # What `prove` assumes besides its own identity (the Solver's length limits): part of every memo key.
    context: object = None
    # the heap state before the call (a TV of a values.Heap), which old() reads fields in; None: no objects
    pre_heap: TV | None = None
    _memo: dict = field(default_factory=dict)
    _pure: dict = field(default_factory=dict)

    # ---------------------------------------------------------------- entry points

    def boolean(self, e: ast.Expr, env: Env) -> z3.BoolRef:
        tv = self.enc(e, env)
        if tv.t.base.kind != "bool":
            raise _u("non-boolean constraint", e)
        return tv.v

    def constraint_of(self, t: RType, tv: TV) -> z3.BoolRef:
        """A subset type's or newtype's constraint, for value tv."""
        decl, scope = t.refinement
        if decl.constraint is None or decl.var is None:
            raise _u("newtype without a constraint", decl)
        return self.boolean(decl.constraint, Env({decl.var: TV(tv.v, t)}, scope))

    # ---------------------------------------------------------------- dispatch

    def enc(self, e: ast.Expr, env: Env) -> TV:
        fn = getattr(self, "e_" + type(e).__name__, None)
        if fn is None:
            raise _u(_CONSTRUCT.get(type(e).__name__, type(e).__name__), e)
        names = self._pure_names(e)
        if names is None:
            return fn(e, env)
        # Quantifier expansion encodes the same subterm (`s[k] == s[l]`) under many outer instances; Z3
        # shares equal terms, so a memo keyed by the bound values' term ids returns the very same formula.
        values = tuple(env.vars.get(n) for n in names)
        key = (id(e), id(env.scope), env.budget, self.prove, self.context, *map(_tv_key, values))
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = (fn(e, env), e, env.scope, values)  # keeps the keyed objects alive
        return hit[0]

    def _pure_names(self, e: ast.Expr) -> tuple[str, ...] | None:
        """The names a memoisable node reads (None: not worth or not safe to memoise). Binders are left
        out: they make fresh Z3 names, and their instances differ anyway."""
        hit = self._pure.get(id(e))
        if hit is None:
            names: set[str] = set()
            pure = not isinstance(e, _LEAVES)
            for x in ast.preorder(e):
                if isinstance(x, _BINDERS):
                    pure = False
                    break
                if isinstance(x, ast.Name):
                    names.add(x.name)
            # a field read depends on the receiver and the heap state, which no name of the node shows
            names |= {THIS, HEAP, PRE_HEAP}
            hit = self._pure[id(e)] = (e, tuple(sorted(names)) if pure else None)
        return hit[1]

    def e_IntLit(self, e, env):
        return TV(z3.IntVal(e.value), INT, lit=e.value)

    def e_RealLit(self, e, env):
        return TV(z3.RealVal(e.text.replace("_", "")), REAL)

    def e_BoolLit(self, e, env):
        return TV(z3.BoolVal(e.value), BOOL)

    def e_CharLit(self, e, env):
        return TV(z3.IntVal(ord(e.value)), CHAR)

    def e_StringLit(self, e, env):
        if self.types.atoms:
            return TV(z3.IntVal(self.types.atom_of(e.value)), STRING)
        return TV(_seq_lit([z3.IntVal(ord(c)) for c in e.value], z3.IntSort()), STRING)

    def seq(self, tv: TV, node) -> TV:
        """tv, a sequence the caller takes apart: where strings are atoms, a string cannot be."""
        if self.types.is_atom(tv.t):
            sp = getattr(node, "span", None)
            raise AtomMisuse("string operation", sp.line if sp else 0, sp.col if sp else 0)
        return tv

    def e_Name(self, e, env):
        if e.name in env.vars:
            return env.vars[e.name]
        return self._global(e.name, e, env)

    def e_ThisExpr(self, e, env):
        if THIS not in env.vars:
            raise _u("this", e)
        return env.vars[THIS]

    def e_NullLit(self, e, env):
        return TV(z3.IntVal(0), NULL)

    def e_Fresh(self, e, env):
        # allocation is not modelled: objects a member returns are taken to be new (a fresh() clause is
        # never checked by a test either: it is ghost)
        return TV(z3.BoolVal(True), BOOL)

    def e_Allocated(self, e, env):
        return TV(z3.BoolVal(True), BOOL)

    def e_TypeTest(self, e, env):
        a = self.enc(e.expr, env)
        if a.t.base.kind != "class" or not isinstance(a.v, ObjV):
            raise _u("type test", e)
        found = env.scope.lookup(e.type.name.rstrip("?")) if isinstance(e.type, ast.NamedType) else None
        if found is None or not isinstance(found[0], ast.ClassDecl):
            raise _u("type test", e)
        return TV(z3.And(a.v.id != 0, a.v.is_class(found[0])), BOOL)

    # ---------------------------------------------------------------- objects

    def field_of(self, obj: TV, name: str, node, env: Env) -> TV:
        """The value of field `name` of an object, in the environment's heap state."""
        o = obj.v
        if not isinstance(o, ObjV):
            raise _u(f"field {name} of a non-object", node)
        heap = env.vars.get(HEAP)
        key = f"{o.name}.{name}"
        if o.name and heap is not None and key in heap.v.fields:
            return heap.v.fields[key]
        if not o.name and heap is not None and name in heap.v.elements:  # an object held in a collection
            fn, ft = heap.v.elements[name]
            return self.types.from_rep(fn(o.id), ft)
        decl = self._member_of(o, name)
        if isinstance(decl, ast.Const) and decl.value is not None and not decl.static:
            return self._const_value(decl, obj, env)
        if not o.name:
            raise _u(f"field {name} of an object in a collection", node)
        raise _u(f"field {name} of {o.name}", node)

    def _datatype_field(self, obj: TV, name: str) -> TV | None:
        for info in self.types.ctors_of(obj.t.base):
            for fname, ft, acc in info.fields:
                if fname == name:
                    return self.types.from_rep(acc(obj.v), ft)
        return None

    def _datatype_const(self, obj: TV, name: str, env: Env) -> TV | None:
        """An instance constant declared in the datatype of a value (`v.Valid?` of `const Valid? := ...`)."""
        decl = obj.t.base.decl
        const = next((m for m in getattr(decl, "members", ()) if isinstance(m, ast.Const) and m.name == name
                      and not m.static and m.value is not None), None)
        return self._const_value(const, obj, env) if const is not None else None

    def _ctor_test(self, obj: TV, name: str) -> TV | None:
        """`v.C?` for a constructor C of the value's datatype."""
        for info in self.types.ctors_of(obj.t.base):
            if info.ctor.name == name[:-1]:
                return TV(info.test(obj.v), BOOL)
        return None

    def _datatype_member(self, obj: TV, name: str) -> ast.Function | None:
        """A function declared in the datatype of a value (`c.WF()`)."""
        decl = obj.t.base.decl
        return next((m for m in getattr(decl, "members", ()) if isinstance(m, ast.Function) and m.name == name
                     and not m.static), None)

    def _is_field(self, name: str, env: Env) -> bool:
        """Does a bare name denote a field of the receiver (in a class's function body)?"""
        if THIS not in env.vars:
            return False
        found = env.scope.lookup(name)
        return found is not None and isinstance(found[0], (ast.Field, ast.Const)) and not getattr(found[0], "static", False) \
            and isinstance(found[1].cls, ast.ClassDecl)

    def _member_of(self, o: ObjV, name: str):
        """The declaration of member `name` of the object (in its first possible class)."""
        for kinds in o.classes:
            for decl in kinds:
                for m in decl.members:
                    if getattr(m, "name", None) == name:
                        return m
        return None

    def _const_value(self, decl: ast.Const, obj: TV | None, env: Env) -> TV:
        scope = self.resolver.scope_of(decl)
        vars_ = {k: env.vars[k] for k in (HEAP,) if k in env.vars}
        if obj is not None:
            vars_[THIS] = obj
        if decl.value is None:
            raise _u("constant without a value", decl)
        tv = self.enc(decl.value, Env(vars_, scope, env.budget))
        if decl.type is not None:
            tv = self.coerce(tv, self.resolver.rtype(decl.type, scope))
        return tv

    def _instance_call(self, obj: TV, name: str, args: list[TV], node, env: Env) -> TV:
        """`o.F(args)`: F of the object's class, with `this` the object; where the object may be of several
        classes that define F differently, the one of its class."""
        o = obj.v
        heap = env.vars.get(HEAP)
        if not args and isinstance(o, ObjV) and o.name and heap is not None:
            held = heap.v.fields.get(f"{o.name}.{name}()")  # a driven object's predicate: a value of its state
            if held is not None:
                return held
        if not isinstance(o, ObjV) or not o.classes:
            raise _u(f"call of {name} on an object of unknown class", node)
        found = []
        for kinds in o.classes:
            decl = None
            for k in kinds:  # the class first, then the traits it extends
                decl = next((m for m in k.members if getattr(m, "name", None) == name), None)
                if decl is not None:
                    break
            if not isinstance(decl, ast.Function):
                raise _u(f"call of {name}, not a function of the object's class", node)
            found.append(decl)
        results = [self._call_function(f, self.resolver.scope_of(f), args, node, env, this=obj) for f in found]
        out = results[-1]
        if o.cls is not None:
            for i in reversed(range(len(results) - 1)):
                a, out = self.unify(results[i], out)
                out = self.ite(o.cls == i, a, out, node)
        return out

    def _global(self, name: str, node, env: Env) -> TV:
        found = env.scope.lookup(name)
        this = env.vars.get(THIS)
        if found is None and this is not None and this.t.base.kind == "data" and "." not in name:
            # a field, or a constructor test, of the datatype value a member belongs to
            field_ = self._datatype_field(this, name) if not name.endswith("?") else self._ctor_test(this, name)
            if field_ is not None:
                return field_
        if found is None:
            raise _u(f"unknown name {name}", node)
        decl, scope = found
        if isinstance(decl, ast.Const) and not decl.static and isinstance(scope.cls, ast.Datatype) \
                and this is not None and this.t.base.kind == "data" and decl.value is not None:
            return self._const_value(decl, this, env)
        if isinstance(decl, (ast.Field, ast.Const)) and not getattr(decl, "static", False) \
                and isinstance(scope.cls, ast.ClassDecl) and THIS in env.vars:
            return self.field_of(env.vars[THIS], name, node, env)
        if isinstance(decl, ast.Const):
            if decl.value is None:
                raise _u("const without a value", node)
            tv = self.enc(decl.value, Env({}, scope))
            if decl.type is not None:
                tv = self.coerce(tv, self.resolver.rtype(decl.type, scope))
            return tv
        if isinstance(decl, ast.Ctor):
            if decl.params:
                raise _u("constructor used as a function value", node)
            return self._construct(decl, scope, [], node, env.expect)
        if isinstance(decl, ast.Function) and not decl.params:
            return self._call_function(decl, scope, [], node, env)
        raise _u(f"name {name} ({type(decl).__name__.lower()})", node)

    # ---------------------------------------------------------------- operators

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
        return self._binop(op, self.enc(e.left, env), self.enc(e.right, env), e)

    def _binop(self, op: str, a: TV, b: TV, node) -> TV:
        if op in ("in", "!in"):
            v = self.member(a, b, node)
            return TV(z3.Not(v) if op == "!in" else v, BOOL)
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

    # ---------------------------------------------------------------- typing helpers

    def coerce(self, tv: TV, t: RType) -> TV:
        """Give an integer literal (or `[]`) the type its context wants."""
        b = t.base
        if tv.lit is not None:
            if b.kind == "real":
                return TV(z3.RealVal(tv.lit), t)
            if b.kind == "bv":
                return TV(z3.BitVecVal(tv.lit, b.width), t)
            if b.kind in ("int", "char"):
                return TV(tv.v, t, tv.lit)
        if tv.t.base.kind == "seq" and tv.t.base.args[0] == ANY and self.types.is_atom(b):
            return TV(z3.IntVal(self.types.atom_of("")), t)  # `[]` where a string is wanted
        if tv.t.base.kind == "seq" and tv.t.base.args[0] == ANY and b.kind in ("seq", "array"):
            return TV(z3.Empty(self.types.sort(b)), t)
        if tv.t.base.kind == "seq" and b.kind in ("seq", "array") and tv.t.base.args[0] != b.args[0]:
            return TV(tv.v, RType(b.kind, b.args, is_string=b.is_string) if tv.t.base.args[0] == ANY else tv.t)
        return tv

    def unify(self, a: TV, b: TV) -> tuple[TV, TV]:
        if a.lit is not None and b.lit is None:
            a = self.coerce(a, b.t)
        elif b.lit is not None and a.lit is None:
            b = self.coerce(b, a.t)
        ka, kb = a.t.base, b.t.base
        if ka.kind == "seq" and ka.args[0] == ANY and kb.kind in ("seq", "array"):
            a = self.coerce(a, b.t)
        elif kb.kind == "seq" and kb.args[0] == ANY and ka.kind in ("seq", "array"):
            b = self.coerce(b, a.t)
        elif ka.kind == "set" and ka.args[0] == ANY:
            a = TV(a.v, b.t)
        elif kb.kind == "set" and kb.args[0] == ANY:
            b = TV(b.v, a.t)
        return a, b

    def eq(self, a: TV, b: TV, node) -> z3.BoolRef:
        a, b = self.unify(a, b)
        k = a.t.base.kind
        x, y = a.v, b.v
        if k == "set" or (k == "any" and isinstance(x, SetV)):
            return z3.And(and_(z3.Implies(g, y.member(e)) for g, e in x.cands),
                          and_(z3.Implies(g, x.member(e)) for g, e in y.cands))
        if k == "multiset":
            return and_(z3.Implies(g, x.count(e) == y.count(e)) for g, e in x.cands + y.cands)
        if k == "map":
            same_keys = self.eq(TV(x.keys, RType("set", (a.t.base.args[0],))), TV(y.keys, RType("set", (a.t.base.args[0],))), node)
            return z3.And(same_keys, and_(z3.Implies(g, x.get(e) == y.get(e)) for g, e in x.keys.cands))
        if isinstance(x, FuncV) or isinstance(y, FuncV):
            raise _u("equality of functions", node)
        if isinstance(x, ObjV) or isinstance(y, ObjV):
            return self.types.to_rep(a) == self.types.to_rep(b)
        if x.sort() != y.sort():
            raise _u(f"comparison of {x.sort()} with {y.sort()}", node)
        return x == y

    # ---------------------------------------------------------------- collections

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

    def _seq_bound(self, s: TV, node, required: bool = True) -> int | None:
        """A static bound on a sequence's length (needed to list its elements)."""
        n = self.least_bound(self.length(s), None, (self.types.cap, 2 * self.types.cap, 4 * self.types.cap))
        if n is not None:
            return n
        if not required:
            return None
        raise _u("multiset of a sequence without a small length bound", node)

    def least_bound(self, term, lo, steps: tuple[int, ...]) -> int | None:
        """The first of the ascending steps n with `term <= lo + n` proved (None: none is). After the first
        fails the last is tried: what refutes it refutes every step between, so the usual failure (a
        sequence the limit does not bound) costs two proofs, not one per step."""
        def proved(n: int) -> bool:
            return self.prove(term <= (n if lo is None else lo + n))

        first, *rest = steps
        if proved(first):
            return first
        if not rest or not proved(rest[-1]):
            return None
        return next((n for n in rest[:-1] if proved(n)), rest[-1])

    def length(self, s: TV):
        return s.view[2] if s.view is not None else z3.Length(s.v)

    def nth(self, s: TV, k):
        """Element k of a sequence; of a slice, read straight from its base (simpler for Z3's solver)."""
        if s.view is not None:
            base, lo, _ = s.view
            return base[z3.simplify(lo + k)]
        return s.v[k]

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
        i = self.enc(e.indices[0], env)
        k = s.t.base.kind
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

    def _int(self, tv: TV):
        tv = self.coerce(tv, INT)
        if tv.t.base.kind == "bv":
            return z3.BV2Int(tv.v)
        return tv.v

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
            kk = self.types.to_rep(self.coerce(self.enc(e.index, env), kt))
            vv = self.types.to_rep(self.coerce(self.enc(e.value, env), vt))
            old = s.v
            return TV(MapV(SetV(old.keys.cands + ((z3.BoolVal(True), kk),)),
                           lambda x: z3.If(x == kk, vv, old.get(x))), s.t)
        if k == "multiset":
            raise _u("multiset update", e)
        raise _u(f"update of {k}", e)

    def e_MemberSelect(self, e, env):
        name = e.name
        dotted = _dotted(e)
        if dotted is not None and dotted.split(".")[0] not in env.vars and not self._is_field(dotted.split(".")[0], env):
            return self._global(dotted, e, env)
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
                if test is None:
                    raise _u(f"unknown constructor test {name}", e)
                return test
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

    # ---------------------------------------------------------------- casts

    def e_Cast(self, e, env):
        a = self.enc(e.expr, env)
        t = self.resolver.rtype(e.type, env.scope)
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

    # ---------------------------------------------------------------- control

    def e_IfThenElse(self, e, env):
        if e.binding:
            raise _u("if-such-that expression", e)
        c = self.boolean(e.cond, env)
        a, b = self.unify(self.enc(e.then, env), self.enc(e.els, env))
        return self.ite(c, a, b, e)

    def ite(self, c, a: TV, b: TV, node) -> TV:
        x, y = a.v, b.v
        if isinstance(x, SetV):
            return TV(SetV(tuple((z3.And(c, g), v) for g, v in x.cands)
                           + tuple((z3.And(z3.Not(c), g), v) for g, v in y.cands)), a.t)
        if isinstance(x, MultisetV):
            cands = tuple((z3.And(c, g), v) for g, v in x.cands) + tuple((z3.And(z3.Not(c), g), v) for g, v in y.cands)
            return TV(MultisetV(cands, lambda v: z3.If(c, x.count(v), y.count(v))), a.t)
        if isinstance(x, MapV):
            keys = SetV(tuple((z3.And(c, g), v) for g, v in x.keys.cands)
                        + tuple((z3.And(z3.Not(c), g), v) for g, v in y.keys.cands))
            return TV(MapV(keys, lambda k: z3.If(c, x.get(k), y.get(k))), a.t)
        if isinstance(x, FuncV) or isinstance(y, FuncV):
            raise _u("conditional function value", node)
        if x is None or y is None:
            raise _u("conditional with an untyped empty sequence", node)
        return TV(z3.If(c, x, y), a.t)

    def e_Let(self, e, env):
        if e.such_that is not None:
            raise _u("let such that", e)
        if e.fail_op:
            raise _u("let with :-", e)
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

    def e_MatchExpr(self, e, env):
        scrut = self.enc(e.scrutinee, env)
        arms = []
        for case in e.cases:
            if not isinstance(case.body, ast.Node):
                raise _u("match statement", case)
            cond, binds = self.pattern(case.pattern, scrut, env)
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

    # ---------------------------------------------------------------- calls

    def e_Call(self, e, env):
        if e.label is not None:
            raise _u("two-state call", e)
        if any(n is not None for n in e.arg_names):
            raise _u("named arguments", e)
        callee = e.callee
        if isinstance(callee, ast.Name) and callee.name in env.vars:
            f = env.vars[callee.name]
            return self._apply(f, [self.enc(a, env) for a in e.args], e)
        head = (_dotted(callee.obj) or "").split(".")[0] if isinstance(callee, ast.MemberSelect) else ""
        if isinstance(callee, ast.MemberSelect) and (isinstance(callee.obj, ast.ThisExpr) or head in env.vars
                                                     or (head and self._is_field(head, env))):
            target = self.enc(callee.obj, env)
            if target.t.base.kind == "arrow" and callee.name in ("requires", "reads"):
                return self._arrow_member(callee.name)
            if target.t.base.kind == "class":
                return self._instance_call(target, callee.name, [self.enc(a, env) for a in e.args], e, env)
            member = self._datatype_member(target, callee.name) if target.t.base.kind == "data" else None
            if member is not None:
                return self._call_function(member, self.resolver.scope_of(member),
                                           [self.enc(a, env) for a in e.args], e, env, this=target)
        name = callee.name if isinstance(callee, ast.Name) else _dotted(callee)
        if name is None or name.split(".")[0] in env.vars:
            fv = self.enc(callee, env)
            return self._apply(fv, [self.enc(a, env) for a in e.args], e)
        found = env.scope.lookup(name)
        if found is None:
            raise _u(f"unknown function {name}", e)
        decl, scope = found
        args = [self.enc(a, env) for a in e.args]
        if isinstance(decl, ast.Ctor):
            return self._construct(decl, scope, args, e, env.expect)
        if isinstance(decl, ast.Function):
            if isinstance(scope.cls, ast.ClassDecl) and not decl.static and "." not in name and THIS in env.vars:
                return self._instance_call(env.vars[THIS], name, args, e, env)  # `Valid()` in a class's contract
            if isinstance(scope.cls, ast.Datatype) and not decl.static and "." not in name and THIS in env.vars:
                return self._call_function(decl, scope, args, e, env, this=env.vars[THIS])
            return self._call_function(decl, scope, args, e, env)
        if isinstance(decl, ast.Method):
            raise _u("method call in an expression", e)
        raise _u(f"call of {type(decl).__name__.lower()} {name}", e)

    @staticmethod
    def _arrow_member(name: str) -> TV:
        """`f.requires(x)` and `f.reads(x)` of a function value: the functions a test builds (a lambda
        from the model) are total and read nothing, so true and the empty set."""
        if name == "requires":
            return TV(z3.BoolVal(True), BOOL)
        return TV(SetV(()), RType("set", (NULL,)))

    def _apply(self, f: TV, args: list[TV], node) -> TV:
        ptypes = f.t.base.args[:-1]
        if isinstance(f.v, LambdaV):  # a function input's literal, checked against the requires (admit.py)
            binds = {p: self.coerce(a, t) for p, a, t in zip(f.v.params, args, ptypes)}
            return self.coerce(self.enc(f.v.body, f.v.env.bind(binds)), f.t.base.args[-1])
        if not isinstance(f.v, FuncV):
            raise _u("call of a non-function value", node)
        reps = [self.types.to_rep(self.coerce(a, t)) for a, t in zip(args, ptypes)]
        return self.types.from_rep(f.v.apply(reps), f.t.base.args[-1])

    def _construct(self, ctor: ast.Ctor, scope: Scope, args: list[TV], node, expect: RType | None = None) -> TV:
        dtdecl = self._datatype_of(ctor, scope)
        # instantiate type parameters as the context's declared type says, else from the arguments
        # (default int): an argument of a subset type must not make an instantiation of its own
        subst: dict[str, RType] = {}
        wanted = expect.base if expect is not None else None
        if wanted is not None and wanted.kind == "data" and wanted.decl is dtdecl:
            subst.update({p.name: t for p, t in zip(dtdecl.type_params, wanted.args)})
        for formal, a in zip(ctor.params, args):
            _match_type(formal.type, a.t, subst, {p.name for p in dtdecl.type_params})
        targs = tuple(subst.get(p.name, INT) for p in dtdecl.type_params)
        dt = RType("data", targs, name=scope.prefix() + dtdecl.name, decl=dtdecl, scope=scope)
        info = self.types.ctor_info(dt, ctor.name)
        if len(args) != len(info.fields):
            raise _u("constructor arity", node)
        reps = [self.types.to_rep(self.coerce(a, ft)) for a, (_, ft, _) in zip(args, info.fields)]
        return TV(info.make(*reps) if reps else info.make(), dt)

    def _datatype_of(self, ctor: ast.Ctor, scope: Scope) -> ast.Datatype:
        for d in self.resolver.modules.get(scope.module, {}).values():
            if isinstance(d, ast.Datatype) and any(c is ctor for c in d.ctors):
                return d
        raise _u("constructor outside a datatype", ctor)

    def _call_function(self, f: ast.Function, scope: Scope, args: list[TV], node, env: Env,
                       this: TV | None = None) -> TV:
        if len(args) != len(f.params):
            raise _u(f"call of {f.name} with {len(args)} arguments", node)
        fscope = self.resolver.scope_of(f)
        if isinstance(fscope.cls, (ast.ClassDecl, ast.Datatype)) and not f.static and this is None:
            raise _u("instance function", node)
        # what the body may read besides its parameters: the receiver and the heap state it is called in
        heap = {k: v for k, v in ((THIS, this), (HEAP, env.vars.get(HEAP))) if v is not None}
        subst: dict[str, RType] = {}
        for formal, a in zip(f.params, args):
            _match_type(formal.type, a.t, subst, {p.name for p in f.type_params})
        for p in f.type_params:
            subst.setdefault(p.name, INT)
        ptypes = [self.resolver.rtype(p.type, fscope, subst) for p in f.params]
        rtype = self.resolver.rtype(f.result_type, fscope, subst)
        args = [self.coerce(a, t) for a, t in zip(args, ptypes)]
        if f.body is None:
            return self._opaque(f, ptypes, rtype, args, heap)
        recursive = self._is_recursive(f, fscope)
        if recursive and self.opaque_recursion:
            return self._opaque(f, ptypes, rtype, args, heap)
        if not recursive:
            binds = {p.name: TV(a.v, t, a.lit) for p, a, t in zip(f.params, args, ptypes)}
            out = self.enc(f.body, Env({**heap, **binds}, fscope, env.budget, rtype))
            return self.coerce(out, rtype)
        # the fields the body reads are free constants of its Z3 definition: one definition per receiver
        # and heap state
        key = (id(f), tuple(ptypes), rtype, *(id(v.v) for v in heap.values()))
        if key not in self._recfuns:
            sorts = [self.types.sort(t) for t in ptypes]
            rec = z3.RecFunction(self.types.fresh(f.name), *sorts, self.types.sort(rtype))
            self._recfuns[key] = rec
            formals = [z3.Const(self.types.fresh(p.name), s) for p, s in zip(f.params, sorts)]
            binds = {p.name: self.types.from_rep(c, t) for p, c, t in zip(f.params, formals, ptypes)}
            body = self.coerce(self.enc(f.body, Env({**heap, **binds}, fscope, 0, rtype)), rtype)
            rep = self.types.to_rep(body)
            z3.RecAddDefinition(rec, formals, rep)
            self.rec_defs.append((rec, formals, rep))
        rec = self._recfuns[key]
        return self.types.from_rep(rec(*[self.types.to_rep(a) for a in args]), rtype)

    def _opaque(self, f: ast.Function, ptypes: list[RType], rtype: RType, args: list[TV], heap: dict) -> TV:
        """A function without a body (abstract, {:extern}): an uninterpreted Z3 function, one per heap
        state, of its arguments and its receiver. The solver assumes nothing of it; a clause calling it is
        checked by the test where it compiles, else listed as unchecked."""
        key = ("opaque", id(f), tuple(ptypes), rtype, id(heap[HEAP].v) if HEAP in heap else None)
        this = heap.get(THIS)
        extra = [this.v.id] if this is not None and isinstance(this.v, ObjV) else []
        if key not in self._recfuns:
            sorts = [z3.IntSort()] * len(extra) + [self.types.sort(t) for t in ptypes]
            self._recfuns[key] = z3.Function(self.types.fresh(f.name), *sorts, self.types.sort(rtype))
        app = self._recfuns[key](*extra, *[self.types.to_rep(a) for a in args])
        return self.types.from_rep(app, rtype)

    def _is_recursive(self, f: ast.Function, scope: Scope) -> bool:
        if id(f) not in self._recursive:
            seen: set[int] = set()
            todo = [(f, scope)]
            found = False
            while todo and not found:
                g, s = todo.pop()
                for name in _called_names(g.body):
                    hit = s.lookup(name)
                    if hit and isinstance(hit[0], ast.Function):
                        if hit[0] is f:
                            found = True
                            break
                        if id(hit[0]) not in seen and hit[0].body is not None:
                            seen.add(id(hit[0]))
                            todo.append((hit[0], self.resolver.scope_of(hit[0])))
            self._recursive[id(f)] = found
        return self._recursive[id(f)]

    # ---------------------------------------------------------------- binders

    def e_Quantifier(self, e, env):
        return TV(quant.encode_quantifier(self, e, env), BOOL)

    def e_SetComprehension(self, e, env):
        return quant.encode_set_comprehension(self, e, env)

    def e_MapComprehension(self, e, env):
        return quant.encode_map_comprehension(self, e, env)


# ---------------------------------------------------------------- helpers


def _element_type(vals: list[TV], default: RType) -> RType:
    """A display's element type: of its first element that is no literal number, preferring one that is no
    empty display (`[[], [false]]` holds seq<bool>, not sequences of anything)."""
    typed = [v.t for v in vals if v.lit is None]
    return next((t for t in typed if not _untyped(t)), typed[0] if typed else default)


def _untyped(t: RType) -> bool:
    return t.kind == "any" or any(_untyped(a) for a in t.args)


def _seq_lit(reps, sort):
    if not reps:
        return z3.Empty(z3.SeqSort(sort))
    units = [z3.Unit(r) for r in reps]
    return units[0] if len(units) == 1 else z3.Concat(*units)


def _min(a, b):
    return z3.If(a <= b, a, b)


def _max0(a):
    return z3.If(a >= 0, a, 0)


def _dotted(e) -> str | None:
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.MemberSelect):
        head = _dotted(e.obj)
        return None if head is None else head + "." + e.name
    return None


def _called_names(e) -> list[str]:
    """Names of functions a body calls (or mentions), for recursion detection."""
    out: list[str] = []
    for x in ast.preorder(e):
        if isinstance(x, ast.Call):
            d = _dotted(x.callee)
            if d:
                out.append(d)
        elif isinstance(x, ast.Name):
            out.append(x.name)
    return out


def _match_type(t: ast.Type, actual: RType, subst: dict[str, RType], params: set[str]) -> None:
    """Infer type-parameter instantiations by matching a formal's syntactic type against an argument type."""
    if isinstance(t, ast.NamedType):
        if not t.args and t.name in params:
            if t.name not in subst and actual.kind != "any" and not (actual.args and actual.args[0].kind == "any"):
                subst[t.name] = actual
            return
        b = actual.base
        for sub, act in zip(t.args, b.args):
            _match_type(sub, act, subst, params)


_CONSTRUCT = {
    "Lambda": "lambda", "Old": "old", "Unchanged": "unchanged", "Wildcard": "wildcard",
    "FrameField": "frame field", "SeqInit": "seq constructor",
}

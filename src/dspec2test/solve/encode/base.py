"""What every part of the encoder shares: its state (the resolver, types, memo, recursive functions), the
entry points and the dispatch to `e_<Node>` methods, literals and names, and the typing helpers (coercion,
unification, equality). The other modules of this package add the methods of one concern each."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Callable

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.resolve import BOOL, CHAR, INT, REAL, RType, Resolver, STRING
from dspec2test.model.walk import dotted
from dspec2test.solve.types import Types
from dspec2test.solve.values import (Env, FuncV, HEAP, LambdaV, MapV, MultisetV, ObjV, PRE_HEAP, SetV, THIS, TV, and_,
                                     unsupported as _u)

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
class EncoderBase:
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
    # id(function) -> (its unfoldings in progress, the length bounds of the innermost's sequence arguments,
    # [bodies unfolded since the outermost], length bounds the solver proved of the outermost's sequences)
    _lambda_unfold: dict = field(default_factory=dict)
    decide_conditions: int = 0  # > 0: conditions that simplify to a constant take one branch (calls.py _unfold)
    # What `prove` assumes besides its own identity (the Solver's length limits): part of every memo key.
    context: object = None
    # the heap state before the call (a TV of a values.Heap), which old() reads fields in; None: no objects
    pre_heap: TV | None = None
    _memo: dict = field(default_factory=dict)
    _pure: dict = field(default_factory=dict)
    # lambda bodies being encoded for their type or value (calls.py): one inside another is not (a parser's
    # lambda calling the function that makes that parser would recurse without end)
    lambda_bodies: int = 0

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
        # the expected type too: it instantiates a generic constructor (`Failure(0)` of a Result<Split>)
        key = (id(e), id(env.scope), env.budget, env.expect, self.prove, self.context, *map(_tv_key, values))
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
        if tv.t.base.kind in ("set", "map") and b.kind == tv.t.base.kind and tv.t.base.args != b.args \
                and getattr(tv.v, "rep", None) is None:
            # a display (`{}`, `map[38 := a]`, its keys typed int): the context's element types, which the rep
            # a field holds it as is of (Map<u160, Account>, a sort of its own)
            return TV(tv.v, t)
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
            if not y.keys.cands:  # `map[]`: no key, no value to compare (its get has no value type)
                return same_keys
            return z3.And(same_keys, and_(z3.Implies(g, x.get(e) == y.get(e)) for g, e in x.keys.cands))
        if isinstance(x, (FuncV, LambdaV)) or isinstance(y, (FuncV, LambdaV)):
            written = next((v.node for v in (x, y) if isinstance(v, LambdaV) and v.node is not None), node)
            raise _u("equality of functions", written)  # at the lambda, where one was written
        if isinstance(x, ObjV) or isinstance(y, ObjV):
            return self.types.to_rep(a) == self.types.to_rep(b)
        if x.sort() != y.sort():
            raise _u(f"comparison of {x.sort()} with {y.sort()}", node)
        return x == y

    def _int(self, tv: TV, node=None):
        tv = self.coerce(tv, INT)
        if tv.t.base.kind == "bv":
            return z3.BV2Int(tv.v)
        if not isinstance(tv.v, z3.ArithRef):  # `forall d | d < self` of a datatype: d ranges over its parts
            k = tv.t.base.kind
            raise _u("< on datatype values (rank)" if k == "data" else f"{k} value where a number is needed", node)
        return tv.v

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


def _called_names(e) -> list[str]:
    """Names of functions a body calls (or mentions), for recursion detection."""
    out: list[str] = []
    for x in ast.preorder(e):
        if isinstance(x, ast.Call):
            d = dotted(x.callee)
            if d:
                out.append(d)
            elif isinstance(x.callee, ast.MemberSelect):  # on a value computed there: `Skip(1).SkipWhile(p)`
                out.append(x.callee.name)
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
    elif isinstance(t, ast.ArrowType) and actual.base.kind == "arrow":  # `f: T -> R` given a lambda
        for sub, act in zip((*t.params, t.result), actual.base.args):
            _match_type(sub, act, subst, params)


_CONSTRUCT = {
    "Old": "old", "Unchanged": "unchanged", "Wildcard": "wildcard",
    "FrameField": "frame field", "SeqInit": "seq constructor", "DecreasesTo": "decreases to",
}

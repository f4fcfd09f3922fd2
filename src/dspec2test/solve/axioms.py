"""Trusted lemmas as axioms of the functions without a body (model/axioms.py), instantiated on concrete
arguments: with a test's inputs pinned, `r == Tri(5)` holds the application Tri(5); the axiom
`forall n: nat :: Tri(n + 1) == Tri(n) + n + 1`, matched on it through its pattern Tri(n + 1), gives
`Tri(5) == Tri(4) + 5`, which holds Tri(4), and so on down to the guard `n >= 0` and `Tri(0) == 0`. The
instances are quantifier-free facts Z3 then computes with (uniqueness.py), so a query with them is as
decidable and as cheap as one without.

Why not hand Z3 the quantified axioms with these patterns: its E-matching also instantiates them on the
terms a false guard leaves (Tri(-1), Tri(-2), ...), so a satisfiable query never ends, and the expected
value comes from a model. Matching here stops where a guard is false, because an instance is simplified on
concrete values before its applications are matched in turn.

The axioms are used only in the questions about a model's outputs, never to partition or solve for inputs:
they cannot make a partition unsatisfiable, and members whose contract reaches no function without a body
never see them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Sequence

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.axioms import Axiom, axioms_reached
from dspec2test.model.resolve import INT, Scope
from dspec2test.model.walk import conj, conjuncts
from dspec2test.solve.core import SolverCore
from dspec2test.solve.values import TV, Env, and_

MAX_INSTANCES = 400  # instances of the axioms one question may add (Tri(400) takes 400)


@dataclass(frozen=True)
class EncodedAxiom:
    """One conjunct of a trusted lemma's ensures, closed over its parameters and peeled quantifiers."""

    label: str  # the lemma, as checks name it: `TriSucc (line 4)`
    bound: tuple[z3.ExprRef, ...]  # the constants standing for its parameters and bound variables
    formula: z3.BoolRef  # its requires and the parameters' types ==> the conjunct
    # the applications of a function without a body that bind every constant of `bound` and that no other
    # application of the same function in the formula is larger than (Tri(n + 1), not Tri(n): matching the
    # smaller would unfold upwards without end)
    triggers: tuple[z3.ExprRef, ...]


class AxiomInstances(SolverCore):
    def _axioms(self) -> list[EncodedAxiom]:
        """The trusted lemmas defining the bodiless functions the member's contract reaches, encoded once."""
        if self._axiom_cache is None:
            reached = axioms_reached(self.program, self.contract) if self.contract is not None else ()
            self._axiom_cache = [a for ax in reached for a in self._encoded_axiom(ax)]
        return self._axiom_cache

    def _encoded_axiom(self, ax: Axiom) -> list[EncodedAxiom]:
        """The lemma's ensures as axioms; none where something in it does not encode (it is then not used:
        an axiom left out makes fewer values known, never a wrong one)."""
        lemma = ax.lemma
        scope = self.resolver.scope_of(lemma)
        try:
            binds, bound, guards = self._bind([(p.name, p.type) for p in lemma.params], scope)
            env = Env(binds, scope)
            guards += [self.encoder.boolean(x, env) for c in lemma.spec.requires for x in c.exprs]
            out = []
            for c in lemma.spec.ensures:
                for x in c.exprs:
                    # a quantified conjunct is an axiom of its own, over its own variables; the others stay
                    # together (`Pow(n) == 2 * Pow(n - 1) && Pow(0) == 1`: the second has nothing to match on)
                    parts = conjuncts(x)
                    rest = [p for p in parts if not _forall(p)]
                    out += [a for p in parts if _forall(p) for a in self._closed(ax.label, p, env, bound, guards, scope)]
                    out += self._closed(ax.label, conj(rest), env, bound, guards, scope) if rest else []
            return out
        except (Unsupported, z3.Z3Exception):
            return []

    def _bind(self, params: Sequence[tuple[str, ast.Type | None]], scope: Scope) -> tuple[
            dict[str, TV], list[z3.ExprRef], list[z3.BoolRef]]:
        """Fresh constants for the parameters, and their types' constraints (`n >= 0` of a nat)."""
        binds: dict[str, TV] = {}
        bound: list[z3.ExprRef] = []
        guards: list[z3.BoolRef] = []
        for name, t in params:
            rt = self.resolver.rtype(t, scope) if t is not None else INT
            if rt.base.kind not in ("int", "bool", "char", "real", "seq", "data", "tuple"):
                raise Unsupported(f"axiom parameter of type {rt.base.kind}")
            tv = self.types.declare(self.types.fresh(name), rt)
            rep = self.types.to_rep(tv)
            if not _is_constant(rep):
                raise Unsupported("axiom parameter without a plain term")
            binds[name] = tv
            bound.append(rep)
            guards += self.types.wf(tv, False, self.encoder.constraint_of)
        return binds, bound, guards

    def _closed(self, label: str, e: ast.Expr, env: Env, bound: list[z3.ExprRef], guards: list[z3.BoolRef],
                scope: Scope) -> list[EncodedAxiom]:
        """`forall x | R :: B` peeled into one more bound constant and guard, then each conjunct of B."""
        if isinstance(e, ast.Quantifier) and e.kind == "forall":
            binds, more, types = self._bind([(v.name, v.type) for v in e.vars], scope)
            inner = env.bind(binds)
            guards = guards + types + ([self.encoder.boolean(e.range, inner)] if e.range is not None else [])
            body = e.body
            if isinstance(body, ast.BinOp) and body.op == "==>":
                guards = guards + [self.encoder.boolean(body.left, inner)]
                body = body.right
            parts = conjuncts(body)
            rest = [p for p in parts if not _forall(p)]
            return [a for p in parts if _forall(p) for a in self._closed(label, p, inner, bound + more, guards, scope)] \
                + (self._closed(label, conj(rest), inner, bound + more, guards, scope) if rest else [])
        formula = z3.Implies(and_(guards), self.encoder.boolean(e, env)) if guards else self.encoder.boolean(e, env)
        opaque = self.encoder.opaque_functions()
        apps = [t for t in _subterms(formula) if z3.is_app(t) and t.decl().name() in opaque]
        covering = [a for a in apps if all(_occurs(c, a) for c in bound)]
        triggers = tuple(a for a in covering if not any(_larger(b, a) for b in apps if b.decl().eq(a.decl())))
        if bound and not triggers:
            return []  # nothing to match it on: left out
        return [EncodedAxiom(label, tuple(bound), formula, triggers)]

    def axiom_instances(self, facts: Sequence[z3.BoolRef]) -> tuple[list[z3.BoolRef], tuple[str, ...]]:
        """The instances of the axioms on the applications of bodiless functions to concrete arguments in
        `facts` (the constraints with the inputs substituted), and in those instances in turn, to a fixpoint
        or MAX_INSTANCES; with the labels of the lemmas they came from, in program order."""
        axioms = self._axioms()
        if not axioms:
            return [], ()
        opaque = self.encoder.opaque_functions()
        instances = [a.formula for a in axioms if not a.bound]
        used = {a.label for a in axioms if not a.bound}
        queue = deque(t for f in list(facts) + instances for t in _ground_apps(f, opaque))
        seen: dict[int, z3.ExprRef] = {}  # the applications matched, by id (kept alive so ids stay theirs)
        while queue and len(instances) < MAX_INSTANCES:
            app = queue.popleft()
            if app.get_id() in seen:
                continue
            seen[app.get_id()] = app
            for ax in axioms:
                for trigger in ax.triggers:
                    if not trigger.decl().eq(app.decl()):
                        continue
                    binding = _match(trigger, app, ax.bound)
                    if binding is None:
                        continue
                    instance = z3.simplify(z3.substitute(ax.formula, *binding))
                    if z3.is_true(instance):
                        continue  # its guard is false here: nothing said, nothing more to match
                    instances.append(instance)
                    used.add(ax.label)
                    queue.extend(_ground_apps(instance, opaque))
        return instances, tuple(dict.fromkeys(a.label for a in axioms if a.label in used))


def _forall(e: ast.Expr) -> bool:
    return isinstance(e, ast.Quantifier) and e.kind == "forall"


def _is_constant(t: z3.ExprRef) -> bool:
    return z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED


def _subterms(t: z3.ExprRef) -> list[z3.ExprRef]:
    seen: dict[int, z3.ExprRef] = {}
    todo = [t]
    while todo:
        x = todo.pop()
        if x.get_id() in seen:
            continue
        seen[x.get_id()] = x
        if z3.is_app(x):
            todo += x.children()
    return list(seen.values())


def _occurs(c: z3.ExprRef, t: z3.ExprRef) -> bool:
    return any(x.eq(c) for x in _subterms(t))


def _ground(t: z3.ExprRef) -> bool:
    """No variable, and no function of the program's (a value, built of values)."""
    return all(z3.is_app(x) and x.decl().kind() != z3.Z3_OP_UNINTERPRETED
               and x.decl().kind() != getattr(z3, "Z3_OP_RECURSIVE", -1) for x in _subterms(t))


def _ground_apps(f: z3.ExprRef, opaque: frozenset[str]) -> list[z3.ExprRef]:
    return [t for t in _subterms(f) if z3.is_app(t) and t.decl().name() in opaque and all(map(_ground, t.children()))]


def _larger(a: z3.ExprRef, b: z3.ExprRef) -> bool:
    """Is application `a` of a function larger than application `b` of it: each argument the same or larger,
    one larger (an integer by a positive constant; a datatype value or sequence built from the other's;
    the other a part or slice of it)?"""
    if a.eq(b):
        return False
    return all(x.eq(y) or _larger_value(x, y) for x, y in zip(a.children(), b.children()))


def _larger_value(x: z3.ExprRef, y: z3.ExprRef) -> bool:
    if z3.is_int(x) and z3.is_int(y):
        d = z3.simplify(x - y)
        return z3.is_int_value(d) and d.as_long() > 0
    if z3.is_app(y) and y.decl().kind() in (z3.Z3_OP_SEQ_EXTRACT, z3.Z3_OP_DT_ACCESSOR) and y.num_args() \
            and y.arg(0).eq(x):
        return True
    return z3.is_app(x) and x.decl().kind() in (z3.Z3_OP_DT_CONSTRUCTOR, z3.Z3_OP_SEQ_CONCAT) \
        and any(c.eq(y) for c in x.children())


def _match(trigger: z3.ExprRef, app: z3.ExprRef,
           bound: tuple[z3.ExprRef, ...]) -> list[tuple[z3.ExprRef, z3.ExprRef]] | None:
    """The values of the bound constants that make `trigger` the concrete application `app` (None: none
    do). An argument is a bound constant, or an integer one plus a constant (`n + 1` matches 5 with n = 4),
    or a datatype constructor over such (matched field by field), or is decided by the others' values."""
    values: dict[int, tuple[z3.ExprRef, z3.ExprRef]] = {}
    pending = list(zip(trigger.children(), app.children()))
    while pending:
        rest: list[tuple[z3.ExprRef, z3.ExprRef]] = []
        progress = False
        for pattern, value in pending:
            free = [c for c in bound if c.get_id() not in values and _occurs(c, pattern)]
            if not free:
                continue  # decided by the values found: checked below
            if len(free) == 1 and pattern.eq(free[0]):
                values[free[0].get_id()] = (free[0], value)
                progress = True
            elif len(free) == 1 and z3.is_int(pattern) and z3.is_int_value(value):
                x = free[0]
                offset = z3.simplify(z3.substitute(pattern, *values.values(), (x, z3.IntVal(0))))
                if not z3.is_int_value(offset):
                    return None
                values[x.get_id()] = (x, z3.IntVal(value.as_long() - offset.as_long()))
                progress = True
            elif z3.is_app(pattern) and z3.is_app(value) and pattern.decl().eq(value.decl()) \
                    and pattern.decl().kind() == z3.Z3_OP_DT_CONSTRUCTOR:
                rest += list(zip(pattern.children(), value.children()))  # `Cons(x, l)` on a list value: its fields
                progress = True
            else:
                rest.append((pattern, value))
        if rest and not progress:
            return None  # no argument binds anything more
        pending = rest
    if len(values) < len(bound):
        return None
    binding = list(values.values())
    # every argument, the bound ones included (`2 * n` is no offset), must come out as the application's
    same = all(z3.simplify(z3.substitute(p, *binding)).eq(v) for p, v in zip(trigger.children(), app.children()))
    return binding if same else None

"""What a model's inputs entail: whether its outputs are the only ones (--simplify's expected values), and
whether every state the calls that make its objects can leave meets the requires."""

from __future__ import annotations

from typing import Sequence

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import pre_state_name
from dspec2test.oracle import Model, SolveResult
from dspec2test.solve.core import PROVE_RLIMIT, SolverCore
from dspec2test.solve.values import FuncV, and_


class Uniqueness(SolverCore):
    def outputs_unique(self, constraints: Sequence[ast.Expr], model: Model) -> bool:
        """With the model's inputs fixed, can the outputs differ? Unsat means they are unique."""
        outs = [v for v in self.vars if v.output]
        ins = [v for v in self.vars if not v.output]
        if any(r.driven for r in self._objects.roots):
            return False  # the pinned state of a driven object is a belief, not what the test holds
        if any(isinstance(v.tv.v, FuncV) for v in self.vars) or self.built or self.made:
            return False  # a function's rule, fields the witness holds, a call: the model is not the test's value
        # nothing is length-limited here (inputs are pinned anyway), so uniqueness is no artefact of the limit
        self._unlimited = frozenset(v.name for v in self.vars)
        try:
            s = self._new()
            s.add(*self._wf(), *self._encode(constraints))
            pins = [self._pin(v, model.raw[v.name]) for v in ins]
            s.add(*[p for p in pins if p is not None])
            if not outs:
                return True
            out_pins = [self._pin(v, model.raw[v.name]) for v in outs]
            if any(p is None for p in out_pins) or any(p is None for p in pins):
                return False  # a function's value is not pinned: claim nothing
            s.add(z3.Or([z3.Not(p) for p in out_pins]))
            return self._run(s) is SolveResult.UNSAT
        except Unsupported:  # an encoding that needs the bound: claim nothing, check the clauses instead
            return False
        finally:
            self._unlimited = frozenset()

    def state_entailed(self, constraints: Sequence[ast.Expr], model: Model) -> bool:
        """With everything a test chooses pinned to the model (arguments, the constructor's and the calls'
        of driven objects), does every state those calls can leave meet the constraints, and each call's
        requires the state before it? The model's own
        state of a driven object is only what the solver believed of it: a field no ensures decides could
        hold anything at run time. True when there is no driven object."""
        driven = [r for r in self._objects.roots if r.driven and not r.output]
        if not driven:
            return True
        made = {r.name for r in driven}  # and the objects they hold: `this.c` of a driven `this`
        made |= {r.name for r in self._objects.roots if r.parent is not None and r.parent.split(".")[0] in made}
        free = {r.field_var(f) for r in self._objects.roots if r.name in made for f in r.fields}
        free |= {pre_state_name(n) for n in free}
        try:
            pins = [self._pin(v, model.raw[v.name]) for v in self.vars
                    if not v.output and v.name not in free and v.name in model.raw]
            s = self._new(budget=PROVE_RLIMIT)
            owed = list(self._element_facts.obligations) if self._element_facts is not None else []
            assumed = {o.get_id() for o in owed}  # owed, not given: out of the facts this query assumes
            s.add(*[f for f in self._wf() if f.get_id() not in assumed], *[p for p in pins if p is not None],
                  z3.Not(and_(self._encode(constraints) + owed)))
            return self._run(s) is SolveResult.UNSAT
        except Unsupported:
            return False

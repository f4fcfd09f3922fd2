"""What a model's inputs entail: whether its outputs are the only ones (the expected values of value checks), and
whether every state the calls that make its objects can leave meets the requires."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import pre_state_name
from dspec2test.oracle import Model, SolveResult
from dspec2test.solve.axioms import AxiomInstances
from dspec2test.solve.context import Query, Z3Context
from dspec2test.solve.core import PROVE_RLIMIT, SolverVar
from dspec2test.solve.literal import term_of
from dspec2test.solve.values import FuncV, and_

# the question whether a model's outputs are the only ones, asked of every test by default: its inputs are
# concrete, so what Z3 decides at all it decides well within this (Z3 resource units, roughly half a second)
UNIQUE_RLIMIT = 500_000


class Uniqueness(AxiomInstances):
    def outputs_unique(self, constraints: Sequence[ast.Expr], model: Model) -> Model | None:
        """With the model's inputs fixed, can the outputs differ? Unsat means they are unique: the model,
        its outputs the only ones (None: not shown). Where the contract reaches functions without a body
        that trusted lemmas define, those lemmas' instances on the inputs (axioms.py) decide the outputs,
        and the model returned holds the values they give, with the lemmas named."""
        outs = [v for v in self.vars if v.output]
        ins = [v for v in self.vars if not v.output]
        if any(r.driven for r in self._objects.roots):
            return None  # the pinned state of a driven object is a belief, not what the test holds
        if any(isinstance(v.tv.v, FuncV) for v in self.vars) or self.built or self.made:
            return None  # a function's rule, fields the witness holds, a call: the model is not the test's value
        # nothing is length-limited here (inputs are pinned anyway), so uniqueness is no artefact of the limit
        self._unlimited = frozenset(v.name for v in self.vars)
        try:
            # the inputs are concrete: a short budget, so a contract Z3 cannot decide costs a test its value
            # check, not the member its time; in a context of its own, so the inputs solved later are the
            # ones solved without value checks
            if self._unique_z is None or self._unique_z.interrupted:
                self._unique_z = Z3Context(self.encoder.rec_defs, self.on_stall)
            s = Query(self._unique_z, self.timeout_ms, budget=UNIQUE_RLIMIT)
            encoded = self._encode(constraints)
            s.add(*self._wf(), *encoded)
            pins = [self._pin(v, model.raw[v.name]) for v in ins]
            s.add(*[p for p in pins if p is not None])
            if not outs:
                return model
            if any(p is None for p in pins):
                return None  # a function's value is not pinned: claim nothing
            instances, lemmas = self.axiom_instances(self._on_inputs(encoded, ins, model))
            if instances:
                s.add(*instances)
                if self._run(s) is not SolveResult.SAT:
                    return None
                found = self._model(s.model())
                model = replace(model, values={**model.values, **{v.name: found.values[v.name] for v in outs}},
                                raw={**model.raw, **{v.name: found.raw[v.name] for v in outs}}, axioms=lemmas)
            out_pins = [self._pin(v, model.raw[v.name]) for v in outs]
            if any(p is None for p in out_pins):
                return None
            s.add(z3.Or([z3.Not(p) for p in out_pins]))
            return model if self._run(s) is SolveResult.UNSAT else None
        except Unsupported:  # an encoding that needs the bound: claim nothing, check the clauses instead
            return None
        finally:
            self._unlimited = frozenset()

    def _on_inputs(self, encoded: list[z3.BoolRef], ins: list[SolverVar], model: Model) -> list[z3.BoolRef]:
        """The constraints with the inputs' values in place of their variables, simplified: what the
        axioms are matched on (only where the contract reaches any)."""
        if not self._axioms():
            return []
        pairs = []
        for v in ins:
            rep = self.types.to_rep(v.tv)
            term = term_of(model.raw[v.name], v.type, self.types)
            if term is not None and z3.is_const(rep) and rep.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                pairs.append((rep, term))
        return [z3.simplify(z3.substitute(f, *pairs)) if pairs else z3.simplify(f) for f in encoded]

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

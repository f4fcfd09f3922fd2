"""Standard functions for function inputs the solver does not find.

A comparator input with a quantified precondition (`requires StrictTotalOrdering(less)`, `requires
TotalOrdering(R)`) asks Z3 for a whole function meeting order axioms over every integer, and it gives up.
Such contracts want a standard relation: where a scenario is unknown, each candidate (`<`, `<=`, `>`, `>=`
over numbers; the identity for a function from a number to the same type) is tried once per member, as an
axiom defining the function, against the input types and the requires alone. The first that Z3 finds
consistent is the function in every later query of the member (applied where it is called), and the
tests write it as the lambda (`(x, y) => x < y`); the admission of each test's literals checks the
requires on that lambda itself.
"""

from __future__ import annotations

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.resolve import RType
from dspec2test.oracle import SolveResult
from dspec2test.solve.admit import parse_literal
from dspec2test.solve.core import SolverCore, SolverVar
from dspec2test.solve.relevance import Relevance
from dspec2test.solve.values import TV, Env, FuncV, LambdaV

CANDIDATES = {
    "relation": ("(x, y) => x < y", "(x, y) => x <= y", "(x, y) => x > y", "(x, y) => x >= y"),
    "endo": ("x => x",),
}
STANDARD_RLIMIT = 500_000  # one candidate's consistency query


class StandardFunctions(SolverCore):
    def standard_functions(self) -> bool:
        """Once per member: adopt the first consistent candidate for each function input of a standard
        shape (module docstring); whether any was."""
        if self.standard_tried or self.contract is None:
            return False
        self.standard_tried = True
        shaped = [(v, shape) for v in self.vars for shape in [_shape(v)] if shape is not None]
        if not shaped:
            return False  # (before any term is made: other members' queries stay as they were)
        axioms: list[z3.BoolRef] = []
        lambdas: dict[str, TV] = {}
        requires = self._encode([cl.expr for cl in self.contract.requires])
        for v, shape in shaped:
            for text in CANDIDATES[shape]:
                e = parse_literal(text)
                assert isinstance(e, ast.Lambda)
                axiom = self._defining(v, e)
                if axiom is None:
                    continue
                s = self._new(budget=STANDARD_RLIMIT)
                s.add(*self._wf(), *requires, *axioms, axiom)
                if self._run(s) is SolveResult.SAT:
                    self.standard[v.name] = text
                    axioms.append(axiom)
                    lambdas[v.name] = TV(LambdaV(tuple(p.name for p in e.params), e.body, Env({}, self.scope)), v.type)
                    break
        if not lambdas:
            return False
        # every later query reads the function as its lambda, applied where it is called: the defining
        # axiom would leave a quantifier in each, and Z3 then ran out of time on most boundary scenarios
        self.env = self.env.bind(lambdas)
        self.relevance = Relevance(self.types, self.encoder, self.env, {v.name: v.type for v in self.vars if v.output})
        self._encoded.clear()
        return True

    def _defining(self, v: SolverVar, e: ast.Lambda) -> z3.BoolRef | None:
        """`forall args :: v(args) == body` of the candidate lambda (None: it does not encode here)."""
        assert isinstance(v.tv.v, FuncV) and isinstance(v.tv.v.fn, z3.FuncDeclRef)
        fn = v.tv.v.fn
        if len(e.params) != fn.arity():
            return None
        args = [z3.Const(f"{v.name}!{p.name}", fn.domain(i)) for i, p in enumerate(e.params)]
        env = Env({p.name: TV(a, t) for p, a, t in zip(e.params, args, v.type.base.args)}, self.scope)
        try:
            body = self.encoder.enc(e.body, env)
            return z3.ForAll(args, fn(*args) == body.v)
        except (Unsupported, z3.Z3Exception):
            return None


def _shape(v: SolverVar) -> str | None:
    """The standard shape of an input function's type, if it has one."""
    if v.output or not isinstance(v.tv.v, FuncV) or not isinstance(v.tv.v.fn, z3.FuncDeclRef):
        return None
    b = v.type.base
    if b.kind != "arrow":
        return None
    *dom, res = b.args
    if len(dom) == 2 and dom[0] == dom[1] and _number(dom[0]) and res.base.kind == "bool":
        return "relation"
    if len(dom) == 1 and dom[0] == res and dom[0].base.kind == "int":
        return "endo"
    return None


def _number(t: RType) -> bool:
    return t.base.kind in ("int", "real", "char")

"""Inputs checked against the requires before a test is written.

A solved scenario's inputs are Dafny literals; a literal can say less than the model it came from (a
function's rule lost, a value printed wrong) or the model can rest on an encoding that is weaker than
Dafny. So the literals are parsed back, encoded with the parameters' types, and the requires and the
types' constraints are decided on them: everything is concrete, so the query is cheap. The solver asks
Z3 (`Solver.admits`); this module builds the formula.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import z3

from dspec2test.dafny import ast
from dspec2test.dafny.parser import parse_program
from dspec2test.model.resolve import RType, Scope
from dspec2test.errors import DspecError
from dspec2test.solve.values import TV, Env, LambdaV, MultisetV, SetV, and_
from dspec2test.solve.witness import Built, built_wf

_NAME = "dspec2test_input"


@lru_cache(maxsize=4096)  # scenarios repeat literals; the AST is immutable
def parse_literal(text: str) -> ast.Expr | None:
    """A literal's expression, read by the same parser as programs (None: it does not parse)."""
    try:
        prog = parse_program(f"const {_NAME} := {text}\n", "<literal>")
    except DspecError:
        return None
    consts = [d for d in prog.decls if isinstance(d, ast.Const) and d.name == _NAME]
    return consts[0].value if len(consts) == 1 else None


def literal_value(encoder, text: str, t: RType, scope: Scope) -> TV | None:
    """The value a literal denotes, as a value of type t (None: not parsed)."""
    e = parse_literal(text)
    if e is None:
        return None
    if isinstance(e, ast.Lambda):
        if t.base.kind != "arrow" or len(e.params) != len(t.base.args) - 1:
            return None
        return TV(LambdaV(tuple(p.name for p in e.params), e.body, Env({}, scope)), t)
    # a call a test makes an input by (factories.py) is its function's body once, as the solver had it
    made = encoder.call_once(e, Env({}, scope), expect=t) if isinstance(e, ast.Call) else None
    tv = encoder.coerce(made if made is not None else encoder.enc(e, Env({}, scope)), t)
    if tv.v is None and t.base.kind in ("seq", "array"):  # `[]`: its type comes from the parameter
        tv = TV(z3.Empty(encoder.types.sort(t.base)), t)
    return TV(tv.v, t, tv.lit, tv.view)


def admission(encoder, types, values: dict[str, TV], constraints: Sequence[ast.Expr], scope: Scope,
              built: dict[str, Built] | None = None, made: frozenset[str] = frozenset()) -> z3.BoolRef:
    """The constraints and every value's type constraints, on the values (a closed formula); a value
    built from its type's witness (witness.py) meets those of its solved parts, one made by a call of a
    function returning its type (factories.py) all of them (Dafny proved it)."""
    env = Env(dict(values), scope)
    facts = [encoder.boolean(c, env) for c in constraints]
    for name, tv in values.items():
        if name in made:
            continue
        if built and name in built:
            facts += built_wf(built[name], tv, types, lambda x: _wf(encoder, types, x), encoder.constraint_of)
        else:
            facts += _wf(encoder, types, tv)
    return and_(facts)


def _wf(encoder, types, tv: TV) -> list[z3.BoolRef]:
    """The type constraints of a concrete value, element by element (Types.wf's for values of any length
    is a quantifier, which Z3 would have to be asked about even on a literal)."""
    t, b = tv.t, tv.t.base
    if t.kind in ("subset", "newtype"):
        inner = _wf(encoder, types, TV(tv.v, t.args[0]))
        if t.name == "nat":
            return inner + [tv.v >= 0]
        return inner + ([encoder.constraint_of(t, TV(tv.v, t.args[0]))] if t.constraint is not None else [])
    if b.kind == "char":
        return types.wf(tv, False, encoder.constraint_of)
    if isinstance(tv.v, (SetV, MultisetV)):
        return [f for _, e in tv.v.cands for f in _wf(encoder, types, types.from_rep(e, b.args[0]))]
    if b.kind in ("seq", "array") and types.has_wf(b.args[0]):
        n = z3.simplify(z3.Length(tv.v))
        if not z3.is_int_value(n):
            return types.wf(tv, False, encoder.constraint_of)
        return [f for k in range(n.as_long()) for f in _wf(encoder, types, types.from_rep(tv.v[k], b.args[0]))]
    if b.kind == "data" and types.has_wf(b):
        # a literal's fields, constructor by constructor (a `nat` or byte field of a machine state)
        v = z3.simplify(tv.v)
        info = next((i for i in types.ctors_of(b) if z3.is_true(z3.simplify(i.test(v)))), None)
        if info is None:
            return types.wf(tv, False, encoder.constraint_of)
        # a field's rep through its reader: a field held as a list (recursive.py) reads as its Seq
        return [f for _, ft, acc in info.fields for f in _wf(encoder, types, types.from_rep(z3.simplify(acc(v)), ft))]
    return []  # ints, booleans, reals, maps, functions: no constraint of their own

"""Relevance (DESIGN.md section 3): inputs on which every output-relevant literal discriminates.

Z3 likes minimal models on which an ensures clause holds vacuously: for "first pair summing to
target", nums = [a, b] leaves only (0, 1) as an answer, and a "last pair" bug passes. A literal L that
mentions an output is relevant on an input when some alternative output satisfies every other
output-mentioning literal of the scenario but violates L: then a wrong implementation can be caught
by L. For each such literal this module builds that condition over a copy of the output variables
(the inputs are shared), as a formula the solver adds as a preference. Literals that mention no
output are the same for the copy and the model, so they are left out. Range guards (`0 <= i < |a|`:
order comparisons of outputs with sizes and constants) are no goals, as in the paper: an index out of
range trivially breaks them, which says nothing about the input.

Only formulas are built here; Z3 runs in the Solver (prefer.py asks for them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import z3

from dspec2test.dafny import ast
from dspec2test.model.resolve import RType
from dspec2test.model.walk import free_names
from dspec2test.errors import Unsupported
from dspec2test.solve.encode import Encoder
from dspec2test.solve.types import Types
from dspec2test.solve.values import TV, Env, FuncV, and_

MAX_GOALS = 6  # more output literals than this: relevance of the first ones only (formula size)


@dataclass
class Relevance:
    """Relevance goals for one Solver's variables. Each output literal gets its own copy of the outputs,
    named after the literal's first-seen order, so the same literal encodes to the same terms in every
    scenario and the encodings are cached."""

    types: Types
    encoder: Encoder
    env: Env  # the solver's environment: inputs and outputs
    outputs: dict[str, RType]  # output name -> type
    _copies: dict[ast.Expr, int] = field(default_factory=dict)
    _envs: dict[int, tuple[Env, tuple[TV, ...]]] = field(default_factory=dict)
    _enc: dict[tuple, z3.BoolRef] = field(default_factory=dict)
    _wf: dict[tuple, list[z3.BoolRef]] = field(default_factory=dict)
    _dropped: dict[frozenset, frozenset] = field(default_factory=dict)
    _cored: dict[frozenset, tuple] = field(default_factory=dict)

    def goals(self, constraints: Sequence[ast.Expr], limited: bool) -> list[tuple[ast.Expr, z3.BoolRef]]:
        """One formula per output-mentioning literal: an alternative output meets the other such literals
        and breaks this one. Empty when no literal mentions an output (or an output is a function)."""
        if not self.outputs or any(isinstance(self.env.vars[o].v, FuncV) for o in self.outputs):
            return []
        lits = _dedupe([c for c in constraints if free_names(c) & self.outputs.keys()])
        targets = [c for c in lits if not _range_guard(c)][:MAX_GOALS]
        guards = tuple(c for c in lits if _range_guard(c))
        out = []
        try:
            for lit in targets:
                k = self._copies.setdefault(lit, len(self._copies))
                others = [self._encode(c, k, limited, guards) for c in lits if c is not lit]
                broken = z3.Not(self._encode(lit, k, limited, guards))
                out.append((lit, and_(self._copy_wf(k, limited) + others + [broken])))
        except Unsupported:  # a preference only: without it the ordinary tiers still solve
            return []
        return out

    def learned(self, keys: list) -> frozenset:
        """Preferences an earlier solve with the same preferences had to drop: scenarios of one partition
        differ by a pin only, so what no input met there is not retried in every scenario."""
        return self._dropped.get(frozenset(keys), frozenset())

    def learn(self, keys: list, dropped: frozenset) -> None:
        self._dropped[frozenset(keys)] = dropped

    def cored(self, keys: list) -> tuple[tuple[object, z3.BoolRef], ...] | None:
        """The preferences (key, formula) that unsat cores dropped in the first solve with these
        preferences (None: no such solve yet). A partition's first solve is its base scenario, the least
        constrained one; a later scenario only adds a pin, so what the base could not meet is not tried
        again, one core at a time, in every scenario."""
        return self._cored.get(frozenset(keys))

    def learn_cored(self, keys: list, dropped: tuple[tuple[object, z3.BoolRef], ...]) -> None:
        self._cored.setdefault(frozenset(keys), dropped)

    def _copy(self, k: int) -> tuple[Env, tuple[TV, ...]]:
        if k not in self._envs:
            alt = {name: self.types.declare(f"{name}'alt{k}", t) for name, t in self.outputs.items()}
            self._envs[k] = (self.env.bind(alt), tuple(alt.values()))
        return self._envs[k]

    def _copy_wf(self, k: int, limited: bool) -> list[z3.BoolRef]:
        key = (k, limited)
        if key not in self._wf:
            _, tvs = self._copy(k)
            self._wf[key] = [w for tv in tvs for w in self.types.wf(tv, limited, self.encoder.constraint_of)]
        return self._wf[key]

    def _encode(self, lit: ast.Expr, k: int, limited: bool, guards: tuple[ast.Expr, ...]) -> z3.BoolRef:
        """`lit` over copy k. The copy's range guards (always among the other literals, since a guard is
        no goal) are assumed by the encoder's bound proofs, so `forall jj :: i < jj < j ==> ...` over a
        copy with `i < j < |a|` expands fully instead of leaving a Z3 quantifier behind."""
        key = (lit, k, limited, guards)
        if key not in self._enc:
            env = self._copy(k)[0]
            context = [self.encoder.boolean(g, env) for g in guards if g is not lit]
            prove = self.encoder.prove
            if context:
                self.encoder.prove = lambda f: prove(z3.Implies(and_(context), f))
            try:
                self._enc[key] = self.encoder.boolean(lit, env)
            finally:
                self.encoder.prove = prove
        return self._enc[key]


def nontrivial(vars: list[tuple[str, TV]], limit: int, turn: int = 0,
               dims_of=None, lists_of=None) -> list[tuple[str, int, z3.BoolRef]]:
    """Preferences (name, rank, formula) for telling values: each numeric variable away from 0 and 1
    (rank 0), then above 1 (rank 1); the elements of a numeric sequence away from 0 (rank 0), at
    least three of them (rank 1), not sorted either way, and all positive or of both signs in turn
    (rank 2). Minimal models make
    counts 0 and thresholds 0 or negative, on which loops that never run and vacuous searches pass."""
    out = []
    for name, tv in vars:
        b = tv.t.base
        if b.kind in ("int", "real") and not isinstance(tv.v, FuncV):
            out.append((name, 0, z3.And(tv.v != 0, tv.v != 1)))
            out.append((name, 1, tv.v > 1))
        elif b.kind in ("seq", "array") and isinstance(tv.v, z3.SeqRef):
            s = tv.v
            if b.args[0].base.kind in ("int", "real"):
                out.append((name, 0, and_([z3.Implies(z3.IntVal(i) < z3.Length(s), s[i] != 0) for i in range(limit)])))
            out.append((name, 1, z3.Length(s) >= 3))  # room for a first, a middle and a last element
            if b.args[0].base.kind in ("int", "real"):
                # a rise and a fall: on a sorted input a running maximum or minimum never changes, and
                # the loops that track one pass whatever they do
                steps = [(z3.IntVal(i + 1) < z3.Length(s), s[i], s[i + 1]) for i in range(limit - 1)]
                out.append((name, 2, z3.And(z3.Or([z3.And(c, x < y) for c, x, y in steps]),
                                            z3.Or([z3.And(c, x > y) for c, x, y in steps]))))
                # signs, alternating over a partition's scenarios (`turn`: how many came before): all
                # positive (a comparison slipped to `0 > m` passes whenever the values start below 0),
                # then both signs (on same-signed values |a - b| and |a + b| agree in order)
                present = [(z3.IntVal(i) < z3.Length(s), s[i]) for i in range(limit)]
                if turn % 2 == 1:
                    out.append((name, 2, z3.And(z3.Or([z3.And(c, x < 0) for c, x in present]),
                                                z3.Or([z3.And(c, x > 0) for c, x in present]))))
                else:
                    out.append((name, 2, and_([z3.Implies(c, x > 0) for c, x in present])))
        elif b.kind in ("array2", "array3") and dims_of is not None:
            # at least two of each extent: a loop that skips the last row or column shows
            out.append((name, 1, and_([d >= 2 for d in dims_of(tv)])))
        elif b.kind == "data" and lists_of is not None and (fields := lists_of(tv)):
            # a node of a recursive datatype with two children or more (`Node(kids: seq<Tree>)`), not none
            out.append((name, 1, and_([z3.Implies(built, z3.Length(s) >= 2) for built, s in fields])))
    return out


_ORDER = {"<", "<=", ">", ">="}


def _range_guard(e: ast.Expr) -> bool:
    """An order comparison whose operands are only names, literals, sizes and sums of them."""
    if isinstance(e, ast.Chain):
        return all(op in _ORDER for op in e.ops) and all(_plain(o) for o in e.operands)
    if isinstance(e, ast.BinOp) and e.op in _ORDER:
        return _plain(e.left) and _plain(e.right)
    return False


def _plain(e: ast.Expr) -> bool:
    if isinstance(e, (ast.Name, ast.IntLit)):
        return True
    if isinstance(e, ast.Cardinality):
        return isinstance(e.expr, ast.Name)
    if isinstance(e, ast.MemberSelect):
        return e.name == "Length" and isinstance(e.obj, ast.Name)
    if isinstance(e, ast.UnOp) and e.op == "-":
        return _plain(e.operand)
    if isinstance(e, ast.BinOp) and e.op in ("+", "-"):
        return _plain(e.left) and _plain(e.right)
    return False


def _dedupe(xs: list[ast.Expr]) -> list[ast.Expr]:
    out: list[ast.Expr] = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out

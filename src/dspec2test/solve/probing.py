"""Questions about given values rather than searches: does an expression hold on a model's values, do the
literals a test will hold meet the requires, which input types can a test not construct."""

from __future__ import annotations

from collections.abc import Callable
from typing import Sequence

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import pre_state_name
from dspec2test.model.resolve import RType
from dspec2test.oracle import Model, SolveResult
from dspec2test.solve.admit import admission, literal_value
from dspec2test.solve.context import Query, Z3Context
from dspec2test.solve.core import PROVE_RLIMIT, SolverCore, SolverVar
from dspec2test.solve.encode import Encoder
from dspec2test.solve.factories import hidden_datatype
from dspec2test.solve.literal import literal, term_of
from dspec2test.solve.values import FuncV, and_, mentions_opaque
from dspec2test.solve.reads import Reads
from dspec2test.solve.types import ConstraintsTooLarge
from dspec2test.solve.witness import build, built_text_of


LARGE_INPUTS = 30_000  # characters of the inputs' type constraints from which they are first solved alone
REACH_MS = 5_000  # how long that takes at most
# a reach probe still running this long past REACH_MS ignores the interrupt: such inputs are out of reach
# too, and waiting the usual stall margin (watchdog.STALL_S) only delays the same answer
REACH_STALL_S = 2.0
PIN_RLIMIT = 2_000_000  # a query with the inputs fixed (solve_at): outputs of concrete inputs come quickly or not


def _nothing(_why: str) -> None:
    pass


class Probing(SolverCore):
    def _concrete(self) -> Encoder:
        """The encoder that decides clauses on literals: the solver's own, or, where it leaves recursive
        functions open (the second try of a member), one that defines them: a literal's admission must
        be computed, not assumed."""
        if not self.encoder.opaque_recursion:
            return self.encoder
        if self._admitter is None:
            e = self.encoder
            # the same definitions list: the queries' contexts define what either encoder makes
            self._admitter = Encoder(e.resolver, e.types, prove=e.prove, pre_state=e.pre_state, width=e.width,
                                     rec_defs=e.rec_defs, context=("concrete", e.context), pre_heap=e.pre_heap)
        return self._admitter

    def holds(self, e: ast.Expr, model: Model) -> bool | None:
        """The truth of e on the model's values (None: not decided without a query, e.g. a value with no
        plain Z3 constant, or a formula that does not simplify to a constant)."""
        pairs = []
        for v in self.vars:
            rep = self.types.to_rep(v.tv) if not isinstance(v.tv.v, FuncV) else None
            if rep is None or v.name not in model.raw or not _uninterpreted(rep):
                continue
            pairs.append((rep, term_of(model.raw[v.name], v.type, self.types)))
        try:
            formula = and_(self._encode([e]))
        except Unsupported:
            return None
        value = z3.simplify(z3.substitute(formula, *pairs) if pairs else formula)
        return True if z3.is_true(value) else False if z3.is_false(value) else None

    def admits(self, inputs: dict[str, str], constraints: Sequence[ast.Expr], raw: dict | None = None) -> bool | None:
        """Do the inputs, as the Dafny literals a test will hold, satisfy the constraints (the requires) and
        their types' constraints? `raw`: the plain values the literals came from, where known: a data literal
        that prints its value is read as that value, any other (a function's) is parsed back. None: not decided
        (a literal or clause this cannot read, or Z3 gave up)."""
        types = {v.name: v.type for v in self.vars}
        try:
            values = {}
            for name, text in inputs.items():
                t = types[name]
                # a literal that prints the value it came from is that value: no need to parse it back
                exact = raw is not None and name in raw and (name in self.built
                                                             or literal(raw[name], t, self.types) == text)
                term = term_of(raw[name], t, self.types) if raw is not None and exact else None
                tv = self.types.from_rep(term, t) if term is not None else literal_value(self.encoder, text, t, self.scope)
                if tv is None:
                    return None
                values[name] = tv
            formula = z3.simplify(admission(self._concrete(), self.types, values, constraints, self.scope,
                                            self.built, frozenset(self.made)))
        except (Unsupported, KeyError, z3.Z3Exception):
            return None
        if mentions_opaque(formula):
            return None
        if z3.is_true(formula) or z3.is_false(formula):
            return z3.is_true(formula)
        s = self._new(budget=PROVE_RLIMIT)
        s.add(formula)
        r = self._run(s)
        return None if r is SolveResult.UNKNOWN else r is SolveResult.SAT

    def var_types(self) -> dict[str, RType]:
        """The resolved type of each of the member's variables, by name (a modified array's is its parameter's)."""
        return {v.name: v.type for v in self.vars}

    def _pre_of(self, name: str) -> bool:
        return bool(self.encoder.pre_state) and name in (self.encoder.pre_state or {})

    def solve_at(self, constraints: Sequence[ast.Expr], pins: dict[str, object],
                 budget: int = PIN_RLIMIT) -> Model | None:
        """A model of the constraints with the inputs fixed to plain values (a candidate the search found):
        the outputs the contract allows there, and the proof the candidate is in the partition. None with
        status_of_last UNSAT when it is not, UNKNOWN when Z3 gave up within `budget`."""
        by_name = {v.name: v for v in self.vars}
        fixed = []
        for name, pv in pins.items():
            v = by_name.get(pre_state_name(name)) if self._pre_of(name) else by_name.get(name)
            if v is None:
                raise KeyError(name)
            pin = self._pin(v, pv)
            if pin is None:
                raise KeyError(name)
            fixed.append(pin)
        self._unlimited = self._collections  # the candidate's lengths are its own, not the solver's limit
        try:
            s = self._new(budget=budget)
            s.add(*self._wf(), *self._encode(constraints), *fixed)
            if self._run(s) is SolveResult.SAT:
                return self._model(s.model())
            return None
        finally:
            self._unlimited = frozenset()

    def literal_of(self, value: object, t: RType) -> str:
        """A plain value of type t as the Dafny literal a test writes."""
        return literal(value, t, self.types)

    def literals(self, values: dict[str, object]) -> dict[str, str]:
        """Plain values of inputs as the Dafny literals a test writes."""
        types = self.var_types()
        return {name: literal(pv, types[name], self.types) for name, pv in values.items()}

    def build_from_witnesses(self, requires_only: bool = False, rebuild: bool = False) -> list[str]:
        """Inputs whose type constraints are large (LARGE_INPUTS) and whose subset type has a witness are
        built from it, solving only the fields the contract reads (witness.py); what was done, for the user.
        `requires_only`: the inputs not built so far (the contract reads all of them), solving only what the
        requires read: for inputs out of the solver's reach otherwise; `rebuild`: those built so far too."""
        if self.large is None:  # measured once, at the member's start: later, measuring would make terms
            # inputs holding functions under a constraint count too (Z3 seldom finds those), unless made by a call
            functions = any(self.types.constrains_functions(v.type) for v in self.vars
                            if not v.output and v.name not in self.made)
            self.large = self.contract is not None and (functions or self._wf_chars() >= LARGE_INPUTS)
        if not self.large or self.contract is None:
            return []  # (the constraints made here are the ones every query uses: nothing is made twice)
        reads: Reads | None = None
        out = []
        for v in self.vars:
            if (v.name in self.built and not rebuild) or v.name in self.shallow or v.name in self.made:
                continue
            size = self._wf_chars(v)
            if v.output:  # made by the implementation: its fields' constraints would only slow the queries
                if size >= LARGE_INPUTS or requires_only:
                    self.shallow.add(v.name)
                    self._wf_cache.clear()
                continue
            if size < LARGE_INPUTS and not requires_only:  # (out of reach together: each is built)
                continue
            if v.name not in {p.name for p in self.contract.params} and not (v.name == "this" and self.contract.datatype):
                continue
            reads = reads or Reads(self.resolver.program)
            built = build(self.contract, reads, v.type, self.resolver, v.name, requires_only,
                          {x.name: x.type for x in self.vars})
            if built is not None:
                self.built[v.name] = built
                self._wf_cache.clear()
                what = "the requires read" if requires_only else "the contract reads"
                out.append(f"{v.name} is built as {built.shown.text}, from its type's witnesses, with only "
                           f"{', '.join(built.solved()) or 'its constructor'} solved for (what {what})")
        return out

    def _wf_chars(self, var: SolverVar | None = None) -> int:
        """Characters of the type constraints of var (None: of every variable, as queries have them); past
        types.WF_STEPS values, LARGE_INPUTS without making them all."""
        try:
            wf = self._wf() if var is None else self.types.wf(var.tv, True, self.encoder.constraint_of)
        except ConstraintsTooLarge:
            return LARGE_INPUTS
        return sum(len(f.sexpr()) for f in wf)

    def fixed_inputs(self) -> tuple[Model | None, list[str]]:
        """For a query Z3 gave up on, over large inputs: those inputs built again from their witnesses solving
        only what the requires read (once per member; what was built, for the user), and where every input
        is then built with nothing solved, the model of those values (the first constructor where several
        are possible). Its outputs are the implementation's, shown as `_` here."""
        if self.fixed_given or not self.large:
            return None, []
        self.fixed_given = True
        notes = self.build_from_witnesses(requires_only=True, rebuild=True)
        inputs = [v for v in self.vars if not v.output]
        if not notes or any(v.name not in self.built or self.built[v.name].solved() for v in inputs):
            return None, notes
        values = {v.name: built_text_of(self.built[v.name].root) for v in inputs}
        return Model({**values, **{v.name: "_" for v in self.vars if v.output}}), notes

    def inputs_out_of_reach(self, pending: Callable[[str], None] = _nothing) -> str | None:
        """Large type constraints of the inputs (a machine state of nested datatypes, maps and sets: evm-dafny's
        ExecutingState is 78 000 characters of Z3 terms) are first solved alone, briefly, in a context of
        their own: where Z3 finds no value of them, every scenario would wait out the clock for nothing, so
        the member is refused at once. Small ones are not asked (nor is any other query disturbed).
        `pending` hears the refusal before the check starts: Z3 may ignore the interrupt there, and the
        member's process then ends with that as its outcome."""
        try:
            wf = self._wf()
        except ConstraintsTooLarge as e:  # Z3 would not solve them either: no need to ask
            return f"inputs out of the solver's reach: their types constrain more than {e.steps} values"
        size = sum(len(f.sexpr()) for f in wf)
        if size < LARGE_INPUTS:
            return None
        why = (f"inputs out of the solver's reach: no value of their types found in {REACH_MS / 1000:g} s "
               f"(their constraints alone are {size} characters of Z3 terms)")
        pending(why)
        s = Query(Z3Context(self.encoder.rec_defs, self.on_stall, REACH_STALL_S), REACH_MS)
        s.add(*wf)
        return None if s.check() == z3.sat else why

    def defer_field_constraints(self) -> bool:
        """Datatype fields' subset-type constraints out of the queries: what Z3 could not solve with them
        may be solved without, and the admission of each test's literals still checks every field."""
        if self.types.field_depth == 0:
            return False
        self.types.field_depth = 0
        self._wf_cache.clear()
        return True

    def hidden_input_types(self) -> list[str]:
        """Datatypes of inputs that tests, outside their module, cannot construct: the module's default
        export set does not reveal them (`provides T` exports T opaque)."""
        out: list[str] = []
        seen: set[int] = set()

        def visit(t: RType) -> None:
            if id(t) in seen:
                return
            seen.add(id(t))
            if t.kind == "data" and t.scope is not None and hidden_datatype(self.resolver, t):
                out.append(f"datatype {t.name} (not revealed by the export set of module {'.'.join(t.scope.module)})")
            for a in t.args:
                visit(a)

        for v in self.vars:
            if not v.output and v.name not in self.made:  # (a call the tests make it by does not construct it)
                visit(v.type)
        return out


def _uninterpreted(term) -> bool:
    """A plain Z3 constant (a variable), not a value or a compound term."""
    return z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED

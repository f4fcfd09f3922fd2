"""The state the Solver's concerns share: one member's variables encoded for Z3, the length limit and its
widening, the encoder, the caches, and the building blocks every query uses (well-formedness, encoding,
a new query, running it, pins, reading a model back as Dafny literals).

The concerns are classes of their own over this core, in one module each: readable.py (preferences for
readable models), prefer.py (the relevance tier), bounded.py (the bounded fallback), optimise.py,
uniqueness.py, probing.py (questions about given values); solver.py puts them together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import member_contract, pre_state_arrays, pre_state_name
from dspec2test.model.objects import Objects
from dspec2test.model.resolve import Resolver, RType
from dspec2test.model.tuples import Tuples
from dspec2test.oracle import Model, SolveResult
from dspec2test.solve.context import Query, Z3Context
from dspec2test.solve.encode import AtomMisuse, Encoder
from dspec2test.solve.made import Made
from dspec2test.solve.literal import Approximate, literal, read_term, read_var, term_of
from dspec2test.solve.objects import ObjectFacts, object_facts
from dspec2test.solve.relevance import Relevance
from dspec2test.solve.types import DATA_DEPTH, Types
from dspec2test.solve.values import TV, Env, FuncV, unsupported
from dspec2test.solve.witness import Built, built_text, built_wf

# Preference tiers, optimisation probes and bound proofs are limited by Z3's resource counter, not by
# the clock, so the same input gives the same tests on a loaded machine as on an idle one. Roughly
# 0.15 to 2.5 million units a second, depending on the theory. The clock (--timeout) stays as a backstop.
PROVE_RLIMIT = 200_000  # a bound proof made while encoding
TIMEOUTS_BEFORE_SHORT = 3  # queries of a member stopped by its time limit before the rest get SHORT_TIMEOUT_MS
SHORT_TIMEOUT_MS = 1000
# the bounded fallback's queries for all of a member's scenarios (bounded.py)
BOUNDED_QUERIES = 64

# kinds whose well-formedness the length limit leaves alone (an object's fields are variables of their own)
_SCALARS = ("int", "bool", "char", "real", "class")


@dataclass(frozen=True)
class SolverVar:
    name: str
    type: RType
    output: bool
    tv: TV


class SolverCore:
    """Z3 queries about one member's variables. Each query starts a fresh Z3 solver (no shared state)."""

    def __init__(self, program: ast.Program, vars: Sequence[tuple[str, ast.Type, bool]], timeout_s: float = 10.0,
                 length_limit: int = 10, member=None, opaque_recursion: bool = False,
                 on_stall: Callable[[], None] | None = None):
        # what to do with a Z3 check that ignores its interrupt (watchdog.py); None: wait for it
        self.on_stall = on_stall
        self.tuples = Tuples.of(program)  # quantifiers over tuples, split into components before encoding
        # strings held in collections: first as atoms (Z3 4.8.12 does not decide sets of strings), unless
        # the contract takes a string apart
        atoms = _strings_in_collections(Resolver(program), member, vars)
        self._setup(program, vars, timeout_s, length_limit, member, atoms, opaque_recursion)
        if atoms and not self._atoms_fit(program, member):
            self._setup(program, vars, timeout_s, length_limit, member, False, opaque_recursion)

    def _atoms_fit(self, program: ast.Program, member) -> bool:
        contract = member_contract(program, member)
        try:
            self._encode([cl.expr for cl in contract.clauses] if contract is not None else [])
        except AtomMisuse:
            return False
        except Unsupported:
            pass  # unsupported either way: no reason to give the atoms up
        return True

    def _setup(self, program: ast.Program, vars: Sequence[tuple[str, ast.Type, bool]], timeout_s: float,
               length_limit: int, member, atoms: bool, opaque_recursion: bool = False) -> None:
        self.program = program
        self.resolver = Resolver(program)
        self.scope = self.resolver.scope_of(member)
        self._axiom_cache: list | None = None  # the trusted lemmas the contract reaches, encoded (axioms.py)
        self.timeout_ms = max(1, int(timeout_s * 1000))
        self.limit = length_limit
        self.types = Types(self.resolver, cap=length_limit, atoms=atoms)
        self.encoder = Encoder(self.resolver, self.types, prove=self._prove, width=length_limit + 1,
                               opaque_recursion=opaque_recursion)
        contract = member_contract(program, member) if member is not None else None
        self.contract = contract
        self.built: dict[str, Built] = {}  # inputs built from their type's witness (witness.py)
        self.made: dict[str, Made] = {}  # inputs made by a call of the program's function (factories.py)
        self.shallow: set[str] = set()  # large outputs: their datatype fields' constraints left out
        self.standard: dict[str, str] = {}  # function inputs fixed to a standard lambda: name -> its text
        self.standard_tried = False  # (standard.py, once per member)
        self.large: bool | None = None  # the inputs' type constraints are large (probing.LARGE_INPUTS); None: not measured
        self.fixed_given = False  # large inputs were built again for the requires alone (probing.fixed_inputs)
        objects = contract.objects if contract is not None else Objects()
        modified = (contract.pre_state if contract is not None and objects.roots else pre_state_arrays(member)) \
            if isinstance(member, (ast.Method, ast.Function)) else ()
        if member is not None and getattr(member.spec, "modifies", None) and not modified and not objects.roots:
            self.encoder.pre_state = None  # a frame beyond array parameters: old() is not modelled
        self.vars: list[SolverVar] = []
        for name, t, out in vars:
            rt = self.resolver.rtype(t, self.scope)
            # a modified array's own name is its state after the call, an output
            self.vars.append(SolverVar(name, rt, out or name in modified, self.types.declare(name, rt)))
        self._frame: list[z3.BoolRef] = []  # a modified array keeps its length
        for v in [v for v in self.vars if v.name in modified]:
            pre = SolverVar(pre_state_name(v.name), v.type, False, self.types.declare(pre_state_name(v.name), v.type))
            self.vars.append(pre)
            self.encoder.pre_state[v.name] = (v.tv, pre.tv)  # type: ignore[index]
            if "." not in v.name:  # an array parameter (not a field) keeps its lengths
                self._frame += self.types.same_shape(v.tv, pre.tv)
        self._limitable = frozenset(v.name for v in self.vars if v.type.base.kind not in _SCALARS)
        self.env = Env({v.name: v.tv for v in self.vars}, self.scope)
        self.relevance = Relevance(self.types, self.encoder, self.env,
                                   {v.name: v.type for v in self.vars if v.output})
        self.status_of_last = SolveResult.UNKNOWN
        self.timeouts = 0  # queries stopped by the time limit (--timeout), not by a resource budget
        self.bounded_left = BOUNDED_QUERIES  # the bounded fallback's queries left for this member
        self._bounded_done = False  # the current solve has tried the bounded fallback already
        self._unlimited = frozenset()
        self._prove_cache: dict[tuple, tuple[bool, z3.BoolRef]] = {}
        self._encoded: dict[tuple, z3.BoolRef] = {}
        self._wf_cache: dict[frozenset, list[z3.BoolRef]] = {}
        self._probers: dict[tuple, Query] = {}
        self._differs_cache: dict[int, tuple[Model, list[z3.BoolRef]]] = {}
        self._relaxations: dict[tuple, tuple[list, list[z3.BoolRef]]] = {}
        self._fix_lengths: set[frozenset] = set()  # preference sets whose relevance query needed fixed lengths
        self._nice_cache: dict[frozenset[int] | None, list[z3.BoolRef]] = {}
        self._distinct_cache: list[tuple[int, int, z3.BoolRef]] | None = None
        self._nontrivial_cache: dict[int, list[tuple[str, int, z3.BoolRef]]] = {}
        self.z = Z3Context(self.encoder.rec_defs, self.on_stall)
        # contexts for the small bound proofs made while encoding, and for optimising linear relaxations;
        # made when first needed (a context costs 10 to 20 ms, and many members need neither)
        self._prover_z: Z3Context | None = None
        self._linear_z: Z3Context | None = None
        # a context for the questions about a solved model's outputs (uniqueness.py): asked of every test, they
        # would otherwise change the term ids, and so the models, of every query after them
        self._unique_z: Z3Context | None = None
        self._objects_differ: list[z3.BoolRef] = []
        self._admitter: Encoder | None = None  # probing.py: a second encoder, for literals' admission
        self._element_facts: ObjectFacts | None = None  # objects held in collections (solve/objects.py)
        self._objects = objects
        if objects.roots or objects.elements:
            self._add_objects(objects)

    def _add_objects(self, objects: Objects) -> None:
        """The heap states, aliasing and construction of the member's objects (solve/objects.py)."""
        facts = object_facts(objects, {v.name: v.tv for v in self.vars if not v.name.startswith("old(")},
                             {n: pre for n, (_, pre) in (self.encoder.pre_state or {}).items()}, self.encoder)
        self.env = self.env.bind(facts.env)
        self.encoder.pre_heap = facts.pre_heap
        self._frame += facts.constraints
        self._objects_differ = facts.differ
        self._element_facts = facts
        self._wf_cache.clear()  # encoding the facts may have asked for it before they were in
        self.relevance = Relevance(self.types, self.encoder, self.env, {v.name: v.type for v in self.vars if v.output})

    @property
    def _unlimited(self) -> frozenset[str]:
        """Variables whose sequence length is not limited now."""
        return self._unlimited_now

    @_unlimited.setter
    def _unlimited(self, names: frozenset[str]) -> None:
        self._unlimited_now = names
        # the encoder's bound proofs assume the limits, so its memo must tell the settings apart
        self.encoder.context = self._limits

    @property
    def _limits(self) -> frozenset[str]:
        """The unlimited variables whose constraints the length limit changes: the key of everything built
        under a setting. A scalar's are the same either way, so what the widened queries (the collections
        unlimited) built serves optimisation and uniqueness (every variable unlimited) too."""
        return self._unlimited_now & self._limitable

    def _wf(self) -> list[z3.BoolRef]:
        if self._limits not in self._wf_cache:
            # cached while it is built: a subset type's constraint with a quantifier proves its bounds
            # (_prove) under the constraints made so far, fewer assumptions and so sound, where asking for
            # all of them again recursed without end
            out = self._wf_cache[self._limits] = list(self._frame)
            try:
                for v in self.vars:
                    limited = v.name not in self._unlimited
                    if v.name in self.made or (v.output and self.types.constrains_functions(v.type)):
                        # a call's result (its requires are in _frame), or a parser the implementation makes:
                        # Dafny proved it of the type, which Z3 would seldom find a value of
                        continue
                    if v.name in self.built:
                        def field_wf(tv: TV, limited: bool = limited) -> list[z3.BoolRef]:
                            return self.types.wf(tv, limited, self.encoder.constraint_of)
                        out += built_wf(self.built[v.name], v.tv, self.types, field_wf, self.encoder.constraint_of)
                    else:
                        out += self.types.wf(v.tv, limited, self.encoder.constraint_of,
                                             depth=0 if v.name in self.shallow else DATA_DEPTH)
            except BaseException:
                del self._wf_cache[self._limits]
                raise
        return self._wf_cache[self._limits]

    def _seq_vars(self) -> list[SolverVar]:
        """The variables held as Z3 sequences (sequences, strings, arrays)."""
        return [v for v in self.vars if v.tv.t.base.kind in ("seq", "array") and isinstance(v.tv.v, z3.SeqRef)]

    @property
    def _collections(self) -> frozenset[str]:
        return frozenset(v.name for v in self.vars if v.tv.t.base.kind in ("seq", "array", "set", "multiset", "map"))

    def _encode(self, constraints: Sequence[ast.Expr]) -> list[z3.BoolRef]:
        out = []
        for c in constraints:
            key = (c, self._limits)  # AST nodes compare by structure (spans aside), so this is a safe key
            if key not in self._encoded:
                try:
                    self._encoded[key] = self.encoder.boolean(self.tuples.split(c), self.env)
                except z3.Z3Exception as exc:  # a term we built wrong: this clause is unsupported, not the member
                    raise unsupported(f"a term Z3 rejected ({exc})", c) from exc
            out.append(self._encoded[key])
        return out

    def _new(self, optimize: bool = False, budget: int = 0) -> Query:
        if self.z.interrupted:
            self.z = Z3Context(self.encoder.rec_defs, self.on_stall)
        return Query(self.z, self.timeout_ms, optimize, budget)

    def _run(self, s: Query, *assumptions: z3.BoolRef) -> SolveResult:
        r = s.check(*assumptions)
        self.timeouts += s.timed_out
        if self.timeouts >= TIMEOUTS_BEFORE_SHORT:
            # a contract Z3 cannot decide in time: the member's later queries get a short limit, so
            # what it can still answer comes in seconds, not in minutes of waiting out the full one
            self.timeout_ms = min(self.timeout_ms, SHORT_TIMEOUT_MS)
        self.status_of_last = (SolveResult.SAT if r == z3.sat else SolveResult.UNSAT if r == z3.unsat
                               else SolveResult.UNKNOWN)
        return self.status_of_last

    def _prove(self, formula: z3.BoolRef) -> bool:
        """Does formula hold under the variables' type constraints alone? (Used to drop residual quantifiers.)"""
        key = (formula.get_id(), self._limits)  # Z3 shares equal terms; the entry keeps this one alive
        if key not in self._prove_cache and z3.is_true(z3.simplify(formula)):
            self._prove_cache[key] = (True, formula)  # a bound over literals: no query (nor context) needed
        if key not in self._prove_cache:
            if self._prover_z is None or self._prover_z.interrupted:
                self._prover_z = Z3Context(self.encoder.rec_defs, self.on_stall)
            s = Query(self._prover_z, self.timeout_ms, budget=PROVE_RLIMIT)
            s.add(*self._wf())
            s.add(z3.Not(formula))
            self._prove_cache[key] = (s.check() == z3.unsat, formula)
        return self._prove_cache[key][0]

    def _pin(self, v: SolverVar, pv) -> z3.BoolRef | None:
        if isinstance(v.tv.v, FuncV):
            return None
        term = term_of(pv, v.type, self.types)
        return None if term is None else self.types.to_rep(v.tv) == term  # None: holds a function

    def _model(self, zm: z3.ModelRef) -> Model:
        raw = {v.name: read_var(zm, v.tv, self.types) for v in self.vars if v.name not in self.made}
        values = {v.name: built_text(self.built[v.name], raw[v.name], self.types) if v.name in self.built
                  else literal(raw[v.name], v.type, self.types) for v in self.vars if v.name not in self.made}
        values.update({name: made.text(values) for name, made in self.made.items()})
        values.update(self.standard)  # the lambda the function's defining axiom came from, not Z3's table
        facts = self._element_facts
        if facts is not None and facts.element_vars:  # what the test needs of objects held in collections
            idents = sorted({x for name in facts.element_vars for key in (name, pre_state_name(name))
                             for x in _idents(raw.get(key))})
            for ident in idents:
                for name, (term, t) in facts.element_terms(ident).items():
                    raw[name] = read_term(zm, term, t, self.types)
                    values[name] = literal(raw[name], t, self.types)
        # read off the values (asking the model again would make terms in the query's context, and Z3's search
        # follows term ids: every later query of the member would find other models)
        inexact = tuple(v.name for v in self.vars if not v.output and isinstance(raw.get(v.name), Approximate))
        return Model(values, raw, inexact=inexact)

    def _widened(self, query, *args, fallback=None):
        """Run query within the length limit; if that is unsat, once more without it. The limit keeps
        literals readable, it is no bound of the contract (`requires a.Length >= 20` must still be met).
        If Z3 gave up within the limit, `fallback()` has a go (its answer, or None, stands)."""
        try:
            self._unlimited = frozenset()
            result = query(*args)
            if self.status_of_last is SolveResult.UNKNOWN and fallback is not None:
                return fallback()
            if self.status_of_last is not SolveResult.UNSAT or not self._collections:
                return result
            self._unlimited = self._collections
            try:
                return query(*args)
            except Unsupported:  # some encodings need the bound: the limited answer stands
                self.status_of_last = SolveResult.UNSAT
                return result
        finally:
            self._unlimited = frozenset()

    def _differs(self, m: Model) -> list[z3.BoolRef]:
        """Some input differs from the model's (empty: nothing to compare). Built once per model: every
        later scenario of a partition avoids all earlier ones, and torneo's twenty long arrays made this a
        tenth of its time."""
        if id(m) not in self._differs_cache:  # the entry keeps m alive, so its id names no other model
            self._differs_cache[id(m)] = (m, self._differs_now(m))
        return self._differs_cache[id(m)][1]

    def _differs_now(self, m: Model) -> list[z3.BoolRef]:
        diffs = []
        for v in self.vars:
            if not v.output and v.name in m.raw:
                pin = self._pin(v, m.raw[v.name])
                if pin is not None:
                    diffs.append(z3.Not(pin))
        return [z3.Or(diffs)] if diffs else []


def _idents(value) -> list[int]:
    """The identities of the objects a collection's plain value holds (0, null, aside)."""
    if isinstance(value, (tuple, list, set, frozenset)):
        return [x for x in value if isinstance(x, int) and not isinstance(x, bool) and x != 0]
    return []


def _strings_in_collections(resolver: Resolver, member, vars: Sequence[tuple[str, ast.Type, bool]]) -> bool:
    """Does some variable hold strings inside a collection (a set of names, a map keyed by them)?"""
    def inside(t: RType, depth: int) -> bool:
        b = t.base
        if b.kind == "seq" and b.args and b.args[0].base.kind == "char":
            return depth > 0
        return b.kind in ("seq", "set", "multiset", "map", "array") and any(inside(a, depth + 1) for a in b.args)

    scope = resolver.scope_of(member)
    for _, t, _ in vars:
        try:
            if inside(resolver.rtype(t, scope), 0):
                return True
        except Unsupported:
            continue
    return False

"""The one place that runs Z3: satisfiability, models as Dafny literals, optimisation, uniqueness."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Hashable, Sequence

import z3

from dspec2test.dafny import ast
from dspec2test.model.resolve import Resolver, RType
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import member_contract, pre_state_arrays, pre_state_name
from dspec2test.model.objects import Objects, is_drive_op
from dspec2test.model.tuples import Tuples
from dspec2test.solve.admit import admission, literal_value
from dspec2test.solve.bounded import Dim, shapes
from dspec2test.solve.encode import AtomMisuse, Encoder
from dspec2test.solve.literal import literal, read_term, read_var, term_of
from dspec2test.solve.objects import ObjectFacts, object_facts
from dspec2test.solve.relevance import Relevance, nontrivial
from dspec2test.solve.types import Types, cells
from dspec2test.solve.values import TV, Env, FuncV, MapV, MultisetV, ObjV, SetV, and_
from dspec2test.solve.watchdog import Watchdog

NICE_INT = 100  # first attempt keeps numbers within +-NICE_INT and chars alphanumeric, for readable tests
SEED = 0
# Preference tiers, optimisation probes and bound proofs are limited by Z3's resource counter, not by
# the clock, so the same input gives the same tests on a loaded machine as on an idle one. Roughly
# 0.15 to 2.5 million units a second, depending on the theory. The clock (--timeout) stays as a backstop.
PREFER_RLIMIT = 300_000  # a preference tier: fall back to the next tier when it is not met quickly
PROBE_RLIMIT = 150_000  # one optimisation probe after the first model
# the probe far beyond a first model that tells unbounded terms apart: giving up there counts as unbounded
# anyway, so a larger budget only buys time for Z3 to unfold recursive functions at huge arguments
FAR_PROBE_RLIMIT = 15_000
PROVE_RLIMIT = 200_000  # a bound proof made while encoding
RELEVANCE_TRIES = 2  # relevance queries per solve that may give up; the quick unsat-core ones count apart
RELEVANCE_CORES = 8  # relevance queries per solve at most
RELEVANCE_RLIMIT = 300_000  # each relevance query
FIXED_LENGTH = 4  # input sequences' length in a relevance query retried after a timeout
TIMEOUTS_BEFORE_SHORT = 3  # queries of a member stopped by its time limit before the rest get SHORT_TIMEOUT_MS
SHORT_TIMEOUT_MS = 1000
UNBOUNDED_STEP = 1 << 20  # an optimum further than this from a first model counts as unbounded
# the bounded fallback (bounded.py) for a scenario Z3 gave up on: each small shape is one query of this
# budget, at most BOUNDED_TRIES shapes per scenario (it stops after BOUNDED_GIVE_UPS give-ups in a row:
# what defeats Z3 then is no length it could guess) and BOUNDED_QUERIES for all of a member's scenarios.
# Counted, not timed, so that a busy machine gives the same tests.
BOUNDED_RLIMIT = 200_000
BOUNDED_TRIES = 24
BOUNDED_GIVE_UPS = 6
BOUNDED_QUERIES = 64
BOUNDED_MS = 3000  # the clock's backstop for one of them


# kinds whose well-formedness the length limit leaves alone (an object's fields are variables of their own)
_SCALARS = ("int", "bool", "char", "real", "class")

class _Tier(Enum):
    NICE_UNSAT = "nice-unsat"  # `_relevant`'s answer when its base (constraints and readability) is unsat


_NICE_UNSAT = _Tier.NICE_UNSAT
Pref = tuple[Hashable, int, z3.BoolRef]  # a preference: its key (a literal or a name), rank (0 most wanted), formula


class SolveResult(str, Enum):
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Unbounded:
    """The optimised term has no bound in the asked direction."""


@dataclass(frozen=True)
class Model:
    values: dict[str, str]  # variable -> Dafny literal text
    raw: dict = field(default_factory=dict, compare=False)  # variable -> plain value (for exclusion/pinning)
    bounded: str = ""  # the small shape the bounded fallback fixed to find it (`|s| == 2`), if it did


class _Z3:
    """A Z3 context of the Solver's own, so a query searches the same way whatever else ran before in
    this process (Z3's heuristics follow term ids, which depend on everything created earlier). Terms are
    built in the main context and translated here once."""

    def __init__(self, rec_defs: list):
        self.ctx = z3.Context()
        self.rec_defs = rec_defs  # the encoder's recursive functions, defined here as they appear
        self.defined = 0
        self._cache: dict[int, tuple] = {}
        self.interrupted = False
        self.watch = Watchdog(self.ctx.interrupt)

    def tr(self, term):
        hit = self._cache.get(term.get_id())
        if hit is None:
            hit = (term, term.translate(self.ctx))  # keep the source alive so its id stays unique
            self._cache[term.get_id()] = hit
        return hit[1]

    def sync(self) -> None:
        for rec, formals, body in self.rec_defs[self.defined:]:
            sorts = [_sort_in(rec.domain(i), self.ctx) for i in range(rec.arity())]
            here = z3.RecFunction(rec.name(), *sorts, _sort_in(rec.range(), self.ctx))
            z3.RecAddDefinition(here, [f.translate(self.ctx) for f in formals], body.translate(self.ctx))
        self.defined = len(self.rec_defs)


class _Query:
    """One Z3 solver in the Solver's context.

    The time limit is the context's watchdog (watchdog.py), not Z3's own `timeout`."""

    def __init__(self, z: _Z3, timeout_ms: int, optimize: bool = False, budget: int = 0):
        self.z = z
        self.timeout_ms = timeout_ms
        self.solver = z3.Optimize(ctx=z.ctx) if optimize else z3.Solver(ctx=z.ctx)
        if not optimize:
            self.solver.set("random_seed", SEED)
            self.set_budget(budget)

    def set_budget(self, units: int) -> None:
        """Z3 resource limit of each later check (0: none); z3.Optimize ignores it, so never call it there."""
        self.solver.set("rlimit", units)

    def add(self, *formulas) -> None:
        self.z.sync()
        self.solver.add(*[self.z.tr(f) for f in formulas])

    def check(self, *assumptions):
        self.z.watch.arm(self.timeout_ms / 1000.0)
        try:
            return self.solver.check(*[self.z.tr(a) for a in assumptions])
        finally:
            self.timed_out = self.z.watch.disarm()
            if self.timed_out:
                self.z.interrupted = True  # the context may keep the cancel flag: later queries use a new one

    def model(self) -> z3.ModelRef:
        return self.solver.model()

    def core_names(self) -> set[str]:
        return {str(a) for a in self.solver.unsat_core()}

    def value(self, term) -> int:
        return self.model().eval(self.z.tr(term), model_completion=True).as_long()

    def keep_model(self) -> None:
        """Remember the current model, for `first_value` after later checks have replaced it."""
        self.kept = self.solver.model()

    def first_value(self, term) -> int:
        return self.kept.eval(self.z.tr(term), model_completion=True).as_long()

    def push(self) -> None:
        self.solver.push()

    def pop(self) -> None:
        self.solver.pop()


@dataclass(frozen=True)
class _Var:
    name: str
    type: RType
    output: bool
    tv: TV


class Solver:
    """Z3 queries about one member's variables. Each query starts a fresh Z3 solver (no shared state)."""

    def __init__(self, program: ast.Program, vars: Sequence[tuple[str, ast.Type, bool]], timeout_s: float = 10.0,
                 length_limit: int = 10, member=None, opaque_recursion: bool = False):
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
        self.resolver = Resolver(program)
        self.scope = self.resolver.scope_of(member)
        self.timeout_ms = max(1, int(timeout_s * 1000))
        self.limit = length_limit
        self.types = Types(self.resolver, cap=length_limit, atoms=atoms)
        self.encoder = Encoder(self.resolver, self.types, prove=self._prove, width=length_limit + 1,
                               opaque_recursion=opaque_recursion)
        contract = member_contract(program, member) if member is not None else None
        objects = contract.objects if contract is not None else Objects()
        modified = (contract.pre_state if contract is not None and objects.roots else pre_state_arrays(member)) \
            if isinstance(member, (ast.Method, ast.Function)) else ()
        if member is not None and getattr(member.spec, "modifies", None) and not modified and not objects.roots:
            self.encoder.pre_state = None  # a frame beyond array parameters: old() is not modelled
        self.vars: list[_Var] = []
        for name, t, out in vars:
            rt = self.resolver.rtype(t, self.scope)
            # a modified array's own name is its state after the call, an output
            self.vars.append(_Var(name, rt, out or name in modified, self.types.declare(name, rt)))
        self._frame: list[z3.BoolRef] = []  # a modified array keeps its length
        for v in [v for v in self.vars if v.name in modified]:
            pre = _Var(pre_state_name(v.name), v.type, False, self.types.declare(pre_state_name(v.name), v.type))
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
        self._probers: dict[tuple, _Query] = {}
        self._differs_cache: dict[int, tuple[Model, list[z3.BoolRef]]] = {}
        self._relaxations: dict[tuple, tuple[list, list[z3.BoolRef]]] = {}
        self._fix_lengths: set[frozenset] = set()  # preference sets whose relevance query needed fixed lengths
        self._nice_cache: dict[frozenset[int] | None, list[z3.BoolRef]] = {}
        self._distinct_cache: list[tuple[int, int, z3.BoolRef]] | None = None
        self._nontrivial_cache: dict[int, list[tuple[str, int, z3.BoolRef]]] = {}
        self.z = _Z3(self.encoder.rec_defs)
        # contexts for the small bound proofs made while encoding, and for optimising linear relaxations;
        # made when first needed (a context costs 10 to 20 ms, and many members need neither)
        self._prover_z: _Z3 | None = None
        self._linear_z: _Z3 | None = None
        self._objects_differ: list[z3.BoolRef] = []
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

    # ---------------------------------------------------------------- building blocks

    def _wf(self) -> list[z3.BoolRef]:
        if self._limits not in self._wf_cache:
            out = list(self._frame)
            for v in self.vars:
                out += self.types.wf(v.tv, v.name not in self._unlimited, self.encoder.constraint_of)
            self._wf_cache[self._limits] = out
        return self._wf_cache[self._limits]

    def _nice(self, chars: frozenset[int] | None) -> list[z3.BoolRef]:
        """Preferences for readable models: small numbers, alphanumeric characters (or ones the constraints
        mention). `chars` None means printable ASCII instead of alphanumerics. Built once per character set:
        every scenario of every partition asks for them."""
        if chars not in self._nice_cache:
            out = []
            for v in self.vars:
                out += self._nice_value(v.tv, chars, depth=0)
            for tv in self._element_facts.element_values if self._element_facts is not None else ():
                out += self._nice_value(tv, chars, depth=1)  # objects held in collections
            self._nice_cache[chars] = out
        return self._nice_cache[chars]

    def _nice_value(self, tv: TV, chars: frozenset[int] | None, depth: int) -> list[z3.BoolRef]:
        b = tv.t.base
        if depth > 2:
            return []
        if isinstance(tv.v, ObjV):  # objects differ and are not null, unless the scenario asks
            return [tv.v.id == tv.v.slot] if tv.v.name else []  # (one held in a collection: solve/objects.py)
        if b.kind in ("array2", "array3"):
            dims = self.types.dims(tv)
            return [z3.Implies(and_([z3.IntVal(i) < d for i, d in zip(idx, dims)]), and_(
                self._nice_value(self.types.cell(tv, [z3.IntVal(i) for i in idx]), chars, depth + 1)))
                for idx in cells(len(dims), self.limit)]
        if b.kind in ("int", "real"):
            return [tv.v >= -NICE_INT, tv.v <= NICE_INT]
        if b.kind == "char":
            c = tv.v
            if chars is None:
                return [c >= 32, c < 127]
            ranges = [z3.And(c >= ord(lo), c <= ord(hi)) for lo, hi in (("a", "z"), ("0", "9"), ("A", "Z"))]
            return [z3.Or(*ranges, *[c == k for k in sorted(chars)])]
        v = tv.v
        if isinstance(v, (SetV, MultisetV, MapV)):
            if isinstance(v, MapV):
                srt = self.types.sort(b)
                parts = [(srt.accessor(0, 0)(v.rep), b.args[0]), (srt.accessor(0, 1)(v.rep), b.args[1])]
            else:
                parts = [(v.rep, b.args[0])]
        elif b.kind in ("seq", "array") and isinstance(v, z3.SeqRef):  # (a string atom has no elements)
            parts = [(v, b.args[0])]
        else:
            return []
        out = []
        for seq, et in parts:
            for i in range(self.limit):
                inner = and_(self._nice_value(self.types.from_rep(seq[i], et), chars, depth + 1))
                out.append(z3.Implies(z3.IntVal(i) < z3.Length(seq), inner))
        return out

    def _nontrivial(self, turn: int) -> list[tuple[str, int, z3.BoolRef]]:
        """`relevance.nontrivial` for these variables, built once per parity of the turn (all it depends on)."""
        if turn % 2 not in self._nontrivial_cache:
            # (an object's fields after the call are the implementation's to choose: no preference on them)
            self._nontrivial_cache[turn % 2] = nontrivial(
                # (nor on which calls make a driven object: the fewer the more readable)
                [(v.name, v.tv) for v in self.vars if not (v.output and "." in v.name) and not is_drive_op(v.name)],
                self.limit, turn,
                self.types.dims)
        return self._nontrivial_cache[turn % 2]

    def _distinct(self) -> list[z3.BoolRef]:
        """Preference for telling models: the elements of each input sequence or array pairwise different.
        Z3's minimal models repeat one value ([0, 0]), on which index and off-by-one bugs go unseen."""
        return [f for _, _, f in self._distinct_pairs()]

    def _fixed_lengths(self) -> tuple[object, int, z3.BoolRef] | None:
        """A preference for input sequences of FIXED_LENGTH elements (None: no sequence input, or lengths
        unlimited, where the contract wants long ones)."""
        seqs = [v.tv.v for v in self._seq_vars() if not v.output]
        if not seqs or self._unlimited:
            return None
        return ("lengths", 0, and_([z3.Length(q) == min(FIXED_LENGTH, self.limit) for q in seqs]))

    def _seq_vars(self) -> list[_Var]:
        """The variables held as Z3 sequences (sequences, strings, arrays)."""
        return [v for v in self.vars if v.tv.t.base.kind in ("seq", "array") and isinstance(v.tv.v, z3.SeqRef)]

    def _neighbours(self) -> list[z3.BoolRef]:
        """The weaker form of `_distinct`, for partitions that need a repeated element: adjacent elements
        differ ("abcb", not "bbbb")."""
        return [f for i, j, f in self._distinct_pairs() if j == i + 1]

    def _distinct_pairs(self) -> list[tuple[int, int, z3.BoolRef]]:
        if self._distinct_cache is None:
            out = []
            for v in (v for v in self._seq_vars() if not v.output):
                seq = v.tv.v
                for j in range(1, self.limit):
                    for i in range(j):
                        out.append((i, j, z3.Implies(z3.IntVal(j) < z3.Length(seq), seq[i] != seq[j])))
            self._distinct_cache = out
        return self._distinct_cache

    def _encode(self, constraints: Sequence[ast.Expr]) -> list[z3.BoolRef]:
        out = []
        for c in constraints:
            key = (c, self._limits)  # AST nodes compare by structure (spans aside), so this is a safe key
            if key not in self._encoded:
                self._encoded[key] = self.encoder.boolean(self.tuples.split(c), self.env)
            out.append(self._encoded[key])
        return out

    def _new(self, optimize: bool = False, budget: int = 0) -> _Query:
        if self.z.interrupted:
            self.z = _Z3(self.encoder.rec_defs)
        return _Query(self.z, self.timeout_ms, optimize, budget)

    def _run(self, s, *assumptions) -> SolveResult:
        r = s.check(*assumptions)
        self.timeouts += getattr(s, "timed_out", False)
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
                self._prover_z = _Z3(self.encoder.rec_defs)
            s = _Query(self._prover_z, self.timeout_ms, budget=PROVE_RLIMIT)
            s.add(*self._wf())
            s.add(z3.Not(formula))
            self._prove_cache[key] = (s.check() == z3.unsat, formula)
        return self._prove_cache[key][0]

    def _pin(self, v: _Var, pv) -> z3.BoolRef | None:
        if isinstance(v.tv.v, FuncV):
            return None
        rep = self.types.to_rep(v.tv)
        return rep == term_of(pv, v.type, self.types)

    def _model(self, zm: z3.ModelRef) -> Model:
        raw = {v.name: read_var(zm, v.tv, self.types) for v in self.vars}
        values = {v.name: literal(raw[v.name], v.type, self.types) for v in self.vars}
        facts = self._element_facts
        if facts is not None and facts.element_vars:  # what the test needs of objects held in collections
            idents = sorted({x for name in facts.element_vars for key in (name, pre_state_name(name))
                             for x in _idents(raw.get(key))})
            for ident in idents:
                for name, (term, t) in facts.element_terms(ident).items():
                    raw[name] = read_term(zm, term, t, self.types)
                    values[name] = literal(raw[name], t, self.types)
        return Model(values, raw)

    # ---------------------------------------------------------------- the interface

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

    @property
    def _collections(self) -> frozenset[str]:
        return frozenset(v.name for v in self.vars if v.tv.t.base.kind in ("seq", "array", "set", "multiset", "map"))

    def check(self, constraints: Sequence[ast.Expr], budget: int = 0) -> SolveResult:
        """Satisfiability; `budget` limits each query by Z3's resource counter (0: the clock only)."""
        return self._widened(self._check, constraints, budget)

    def _check(self, constraints: Sequence[ast.Expr], budget: int = 0) -> SolveResult:
        s = self._new(budget=budget)
        s.add(*self._wf(), *self._encode(constraints))
        return self._run(s)

    def solve(self, constraints: Sequence[ast.Expr], exclude: Sequence[Model] = (),
              relevant: Sequence[ast.Expr] | None = None, avoid: Sequence[Model] = ()) -> Model | None:
        """A model of the constraints whose inputs differ from those of `exclude`, and preferably from
        those of `avoid` (earlier scenarios of the partition). `relevant`: the contract literals among the
        constraints whose relevance is preferred (default all; a BVA pin is no contract literal)."""
        self._bounded_done = False

        def fallback() -> Model | None:
            return None if self._bounded_done else self._bounded(constraints, exclude, avoid)

        return self._widened(self._solve, constraints, exclude, constraints if relevant is None else relevant,
                             avoid, fallback=fallback)

    def _bounded(self, constraints: Sequence[ast.Expr], exclude: Sequence[Model],
                 avoid: Sequence[Model] = ()) -> Model | None:
        """The bounded fallback (bounded.py): the first small shape of the inputs under which Z3 finds a model,
        within BOUNDED_TRIES shapes and the member's BOUNDED_QUERIES. In the shape that has one, readable values
        with distinct elements, new to the partition (`avoid`), are asked for next, as the ordinary tiers do."""
        found = None
        base = self._wf() + self._encode(constraints) + [d for m in exclude for d in self._differs(m)]
        wanted = and_(self._nice(frozenset(_chars_in(constraints))) + self._distinct()
                      + [d for m in avoid for d in self._differs(m)])
        gave_up = 0
        # its queries are the fallback's own: one the clock stops (Z3 past its budget on a busy machine)
        # must not shorten the limit of the member's later queries, nor wait out the whole limit
        timeouts, limit = self.timeouts, self.timeout_ms
        self.timeout_ms = min(limit, BOUNDED_MS)
        try:
            for k, shape in enumerate(shapes(*self._shape_dims())):
                if k >= BOUNDED_TRIES or self.bounded_left <= 0 or gave_up >= BOUNDED_GIVE_UPS:
                    break
                self.bounded_left -= 1
                s = self._new(budget=BOUNDED_RLIMIT)
                s.add(*base, *shape.facts)
                r = self._run(s)
                if r is SolveResult.SAT:
                    found = replace(self._model(s.model()), bounded=shape.text)
                    # the shape has a model: a readable one, new to the partition, if one is as quick
                    s.add(wanted)
                    if self._run(s) is SolveResult.SAT:
                        found = replace(self._model(s.model()), bounded=shape.text)
                    break
                gave_up = gave_up + 1 if r is SolveResult.UNKNOWN else 0
        finally:
            self.timeouts, self.timeout_ms = timeouts, limit
        self.status_of_last = SolveResult.SAT if found is not None else SolveResult.UNKNOWN
        return found

    def _shape_dims(self) -> tuple[list[Dim], list[Dim]]:
        """What a shape fixes: the lengths of the collection inputs (of the outputs, for a member without
        any), and the integer inputs."""
        ins = [v for v in self.vars if not v.output]
        lengths = [d for v in ins if (d := self._length_dim(v)) is not None]
        if not lengths:
            lengths = [d for v in self.vars if v.output and (d := self._length_dim(v)) is not None]
        ints = [Dim(v.name, v.tv.v) for v in ins if v.tv.t.base.kind == "int" and isinstance(v.tv.v, z3.ArithRef)]
        return lengths, ints

    def _length_dim(self, v: _Var) -> Dim | None:
        b = v.tv.t.base
        if b.kind == "array" and isinstance(v.tv.v, z3.SeqRef):
            return Dim(f"{v.name}.Length", z3.Length(v.tv.v))
        if b.kind == "seq" and isinstance(v.tv.v, z3.SeqRef):
            return Dim(f"|{v.name}|", z3.Length(v.tv.v))
        if isinstance(v.tv.v, (SetV, MultisetV)) and v.tv.v.rep is not None:
            return Dim(f"|{v.name}|", z3.Length(v.tv.v.rep))
        if isinstance(v.tv.v, MapV) and v.tv.v.rep is not None:
            return Dim(f"|{v.name}|", z3.Length(self.types.sort(b).accessor(0, 0)(v.tv.v.rep)))
        return None

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

    def _solve(self, constraints: Sequence[ast.Expr], exclude: Sequence[Model],
               relevant: Sequence[ast.Expr], avoid: Sequence[Model] = ()) -> Model | None:
        base = self._wf() + self._encode(constraints)
        for m in exclude:
            base += self._differs(m)
        mentioned = frozenset(_chars_in(constraints))
        nice = self._nice(mentioned)
        distinct = self._distinct()
        # ranks (0 most wanted): relevance goals, distinct elements, values away from 0 and 1, values above 1
        # and three elements, inputs new to the partition
        prefs: list[Pref] = [(lit, 0, f) for lit, f in self.relevance.goals(relevant, limited=not self._unlimited)]
        prefs += [("distinct", 1, and_(distinct))] if distinct else []
        # where the partition needs a repeated element, neighbours still differ: "abcb", not "bbbb"
        prefs += [("neighbours", 1, and_(self._neighbours()))] if distinct else []
        # objects whose fields differ from each other's: a copy that copies nothing shows
        prefs += [("objects differ", 1, and_(self._objects_differ))] if self._objects_differ else []
        prefs += [((name, k, n), 2 + k, f) for n, (name, k, f) in enumerate(self._nontrivial(len(avoid)))]
        fresh = [d for m in avoid for d in self._differs(m)]
        prefs += [("fresh", 4, and_(fresh))] if fresh else []
        found: Model | _Tier | None = None
        if prefs:
            found = self._relevant(base + nice, prefs)
            if isinstance(found, Model):
                return found
        tiers = ([nice + distinct] if distinct else []) + [nice, self._nice(None), []]
        if prefs and found is _NICE_UNSAT:
            tiers = tiers[-2:]  # the constraints with `nice` are unsat: the tiers with it would be too
        for k, extra in enumerate(tiers):
            last = k == len(tiers) - 1
            if last and k > 0 and self.status_of_last is SolveResult.UNKNOWN and not self._unlimited:
                # the tier before gave up within its budget: small shapes first, before the last tier
                # waits out the clock (which, as a backstop, also makes the answer depend on the machine)
                found = self._bounded(constraints, exclude, avoid)
                self._bounded_done = True
                if found is not None:
                    return found
            # a preference only: do not spend the whole time limit on it; the last tier has none
            s = self._new(budget=PREFER_RLIMIT if not last else 0)
            s.add(*base, *extra)
            if self._run(s) is SolveResult.SAT:
                return self._model(s.model())
        return None

    def _relevant(self, base: list, prefs: list[Pref]) -> Model | _Tier | None:
        """The first preference tier (DESIGN.md section 3, Relevance): every preference as a tracked
        assumption, a few short queries at most. An unsat core drops its least wanted preferences; a
        timeout drops all but the goals, then the last goal, and is remembered for the next scenario
        with the same preferences. None: fall back to the ordinary tiers; _NICE_UNSAT: the same, knowing
        that `base` itself is unsat."""
        keys = [k for k, _, _ in prefs if k != "fresh"]  # scenarios of a partition share these
        dropped = self.relevance.learned(keys)
        cored = self.relevance.cored(keys)
        # a formula, not only its key, must match: the sign preference changes from scenario to scenario
        live = [p for p in prefs if p[0] not in dropped
                and not any(p[0] == k and p[2].eq(f) for k, f in cored or ())]
        first = list(live)
        if not live:
            return None
        fixed = self._fixed_lengths()
        if fixed is not None:
            prefs = prefs + [fixed]
            if frozenset(keys) in self._fix_lengths:  # an earlier scenario needed them: from the start
                live = [fixed] + live
        flag = {k: z3.Bool(f"prefer!{n}") for n, (k, _, _) in enumerate(prefs)}
        found: Model | _Tier | None = None
        slow: set[Hashable] = set()
        timeouts, s = 0, None
        for _ in range(RELEVANCE_CORES):
            if s is None:  # a fresh query after a timeout: an interrupted search leaves Z3 worse off
                s = self._new(budget=RELEVANCE_RLIMIT)
                s.add(*base)
                s.add(*[z3.Implies(flag[k], f) for k, _, f in live])
            r = self._run(s, *[flag[k] for k, _, _ in live])
            if r is SolveResult.SAT:
                found = self._model(s.model())
                break
            timeouts += r is SolveResult.UNKNOWN
            core = s.core_names() if r is SolveResult.UNSAT else set()
            if r is SolveResult.UNSAT and not core:
                found = _NICE_UNSAT  # unsat without any preference: the tiers with `nice` would be too
                break
            if core:  # the least wanted (highest rank) in the core go
                blamed = [p for p in live if str(flag[p[0]]) in core]
                least = max(rank for _, rank, _ in blamed)
                out = [p for p in blamed if p[1] == least]
            elif fixed is not None and fixed not in live:
                # a timeout with free lengths: Z3's sequence solver is far quicker on fixed ones, so try
                # those before giving anything up (remembered for the partition's next scenarios)
                live = [fixed] + live
                self._fix_lengths.add(frozenset(keys))
                timeouts -= 1
                s = None
                continue
            else:  # a timeout: the query is hard, keep only the goals, then one goal fewer
                out = [p for p in live if p[1] > 0] or live[-1:]
            live = [p for p in live if p not in out]
            if not core:
                slow |= {k for k, _, _ in out}
                s = None
            if not live or timeouts >= RELEVANCE_TRIES:
                break
        if slow:  # timeouts are remembered for every later scenario with these preferences
            self.relevance.learn(keys, dropped | slow)
        if cored is None and isinstance(found, Model):
            kept = {id(p) for p in live}
            self.relevance.learn_cored(keys, tuple((p[0], p[2]) for p in first
                                                   if id(p) not in kept and p[0] not in slow and p[0] != "fresh"))
        return found

    def optimize(self, term: ast.Expr, constraints: Sequence[ast.Expr], maximize: bool):
        """Integer optimum of term under the constraints; sequence lengths are not limited here."""
        try:
            self._unlimited = frozenset(v.name for v in self.vars)
            return self._optimize(term, constraints, maximize)
        except Unsupported:
            # some encodings (multiset of a sequence) need a length bound: optimise within the limit
            self._unlimited = frozenset()
            return self._optimize(term, constraints, maximize)
        finally:
            self._unlimited = frozenset()

    def _optimize(self, term, constraints, maximize):
        # z3.Optimize aborts the process on some sequence formulas (4.8.12), so search with a plain solver:
        # gallop away from a first model's value, then bisect between the last sat and the first unsat.
        goal = self.encoder._int(self.encoder.enc(term, self.env))
        if goal.sort() == z3.RealSort():
            goal = z3.ToInt(goal)
        facts = self._wf() + self._encode(constraints)
        if _linear(facts + [goal >= 0]):  # Z3's optimiser is safe and quick only on linear arithmetic
            o = self._new(optimize=True)
            o.add(*facts)
            h = o.solver.maximize(o.z.tr(goal)) if maximize else o.solver.minimize(o.z.tr(goal))
            if self._run(o) is SolveResult.SAT:
                bound = o.solver.upper(h) if maximize else o.solver.lower(h)
                if "oo" in str(bound):
                    return Unbounded()
                if z3.is_int_value(bound):
                    return bound.as_long()
        s = self._probe_solver(constraints, facts)
        if s is None:
            return None
        sign = 1 if maximize else -1
        best = s.first_value(goal)
        # the optimum of the linear part bounds the true one: probes beyond it are unsat without asking
        # (and Z3's sequence solver, asked, often gives up on them instead)
        relaxed = self._relaxed_optimum(constraints, facts, goal, maximize)
        if relaxed == best or (relaxed is not None and self._attains(facts, goal, relaxed)):
            self.status_of_last = SolveResult.SAT
            return relaxed

        def beyond(v: int, budget: int = PROBE_RLIMIT) -> tuple[SolveResult, int | None]:
            # is a value at least as good as v possible?
            s.push()
            s.add(goal >= v if maximize else goal <= v)
            # set even when unchanged: setting a parameter resets Z3's search state, and skipping it
            # changes the models (and torneo's pins) that later probes find
            s.set_budget(budget)
            r = self._run(s)
            s.set_budget(PROBE_RLIMIT)
            found = s.value(goal) if r is SolveResult.SAT else None
            s.pop()
            if r is SolveResult.UNKNOWN:
                self._renew_prober(s, facts)
            return r, found

        if relaxed is None:
            # One probe far out settles the common unbounded case at once (galloping there takes ten); Z3
            # giving up that far beyond the length limit also counts as unbounded, as below.
            r, _ = beyond(best + sign * UNBOUNDED_STEP, FAR_PROBE_RLIMIT)
            if r is not SolveResult.UNSAT:
                self.status_of_last = SolveResult.SAT
                return Unbounded()
        step, worst_unsat = 1, None
        while worst_unsat is None:
            if relaxed is not None and sign * (best + sign * step - relaxed) > 0:
                worst_unsat = relaxed + sign  # the gallop would pass the bound: bisect up to it
                break
            if step > UNBOUNDED_STEP:
                self.status_of_last = SolveResult.SAT
                return Unbounded()
            r, found = beyond(best + sign * step)
            if r is SolveResult.UNKNOWN:
                # Z3's sequence theory gives up on long sequences: far beyond the length limit, call it unbounded
                if step > self.limit and relaxed is None:
                    self.status_of_last = SolveResult.SAT
                    return Unbounded()
                return None
            if r is SolveResult.SAT:
                best, step = found, step * 4
            else:
                worst_unsat = best + sign * step
        while abs(worst_unsat - best) > 1:
            mid = (best + worst_unsat) // 2
            r, found = beyond(mid)
            if r is SolveResult.UNKNOWN:
                return None
            if r is SolveResult.SAT:
                best = found
            else:
                worst_unsat = mid
        self.status_of_last = SolveResult.SAT
        return best

    def _attains(self, facts: list[z3.BoolRef], goal, value: int) -> bool:
        """Can goal be exactly value? Asked of a fresh solver: where the relaxation's bound is the optimum
        (most partitions), one query settles it, and Z3's incremental prober, pushed to a long array's far
        end, often gives up where a fresh search finds a model at once."""
        s = self._new(budget=PROBE_RLIMIT)
        s.add(*facts, goal == value)
        return self._run(s) is SolveResult.SAT

    def _relaxed_optimum(self, constraints: Sequence[ast.Expr], facts: list[z3.BoolRef], goal,
                         maximize: bool) -> int | None:
        """The optimum of goal under the facts' linear part, with each collection variable's length an integer
        of its own (a bound of the true optimum, found by Z3's optimiser in milliseconds where the full
        facts take a gallop of sequence queries); None when that part leaves the goal unbounded or is not
        linear."""
        key = (tuple(constraints), self._limits)
        if key not in self._relaxations:
            self._relaxations[key] = self._linear_part(facts)
        lengths, linear = self._relaxations[key]
        goal = z3.substitute(goal, *lengths) if lengths else goal
        if not linear or not _linear(linear + [goal >= 0]):
            return None
        # a context of its own: the optimiser and the sequence solver sharing one crashes Z3 4.8.12
        if self._linear_z is None:
            self._linear_z = _Z3([])
        o = _Query(self._linear_z, self.timeout_ms, optimize=True)
        o.add(*linear, *[n >= 0 for _, n in lengths])
        h = o.solver.maximize(o.z.tr(goal)) if maximize else o.solver.minimize(o.z.tr(goal))
        if o.check() != z3.sat:
            return None
        bound = o.solver.upper(h) if maximize else o.solver.lower(h)
        return bound.as_long() if z3.is_int_value(bound) else None

    def _linear_part(self, facts: list[z3.BoolRef]) -> tuple[list[tuple[z3.ArithRef, z3.ArithRef]], list[z3.BoolRef]]:
        lengths = [(z3.Length(v.tv.v), z3.Int(f"len!{v.name}")) for v in self._seq_vars()]
        linear = []
        for f in facts:
            g = z3.substitute(f, *lengths) if lengths else f
            if _linear([g]):
                linear.append(g)
        return lengths, linear

    def _renew_prober(self, old: _Query, facts: list[z3.BoolRef]) -> None:
        """A search cut by the resource limit can leave Z3 4.8.12's sequence solver broken (the next check
        on it may crash), so later optimisations get a new solver with the same facts and first model."""
        for key, q in list(self._probers.items()):
            if q is old and q.z is self.z:
                fresh = self._new(budget=PROBE_RLIMIT)
                fresh.add(*facts)
                fresh.kept = old.kept
                self._probers[key] = fresh

    def _probe_solver(self, constraints: Sequence[ast.Expr], facts: list[z3.BoolRef]) -> _Query | None:
        """One incremental solver per constraint set, kept with its first model: every optimisation of a
        partition (each variable, term and direction) probes the same solver, which keeps what it learnt."""
        key = (tuple(constraints), self._limits)
        hit = self._probers.get(key)
        if hit is None or hit.z is not self.z:  # a new context after an interrupt: start over
            s = self._new()
            s.add(*facts)
            if self._run(s) is not SolveResult.SAT:
                return None
            s.keep_model()
            s.set_budget(PROBE_RLIMIT)
            self._probers[key] = hit = s
        return hit

    def outputs_unique(self, constraints: Sequence[ast.Expr], model: Model) -> bool:
        """With the model's inputs fixed, can the outputs differ? Unsat means they are unique."""
        outs = [v for v in self.vars if v.output]
        ins = [v for v in self.vars if not v.output]
        if any(r.driven for r in self._objects.roots):
            return False  # the pinned state of a driven object is a belief, not what the test holds
        if any(isinstance(v.tv.v, FuncV) for v in self.vars):
            return False
        # nothing is length-limited here (inputs are pinned anyway), so uniqueness is no artefact of the limit
        self._unlimited = frozenset(v.name for v in self.vars)
        try:
            s = self._new()
            s.add(*self._wf(), *self._encode(constraints))
            s.add(*[self._pin(v, model.raw[v.name]) for v in ins])
            if not outs:
                return True
            s.add(z3.Or([z3.Not(self._pin(v, model.raw[v.name])) for v in outs]))
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
                exact = raw is not None and name in raw and literal(raw[name], t, self.types) == text
                term = term_of(raw[name], t, self.types) if raw is not None and exact else None
                tv = self.types.from_rep(term, t) if term is not None else literal_value(self.encoder, text, t, self.scope)
                if tv is None:
                    return None
                values[name] = tv
            formula = z3.simplify(admission(self.encoder, self.types, values, constraints, self.scope))
        except (Unsupported, KeyError, z3.Z3Exception):
            return None
        if z3.is_true(formula) or z3.is_false(formula):
            return z3.is_true(formula)
        s = self._new(budget=PROVE_RLIMIT)
        s.add(formula)
        r = self._run(s)
        return None if r is SolveResult.UNKNOWN else r is SolveResult.SAT

    def hidden_input_types(self) -> list[str]:
        """Datatypes of inputs that tests, outside their module, cannot construct: the module's default
        export set does not reveal them (`provides T` exports T opaque)."""
        out: list[str] = []
        seen: set[int] = set()

        def visit(t: RType) -> None:
            if id(t) in seen:
                return
            seen.add(id(t))
            if t.kind == "data" and t.scope is not None and not _revealed(self.resolver, t.scope.module,
                                                                          t.datatype[0].name):
                out.append(f"datatype {t.name} (not revealed by the export set of module {'.'.join(t.scope.module)})")
            for a in t.args:
                visit(a)

        for v in self.vars:
            if not v.output:
                visit(v.type)
        return out

    def literal_of(self, name: str, model: Model) -> str:
        return model.values[name]


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


def skip_python_checks() -> None:
    """Turn off the Python-side argument checks of Z3's API (`z3_debug`) in this process: they cost 10
    to 20% of generation, the encoder builds well-sorted terms, and Z3's C API still rejects ill-sorted
    ones. For the entry points (the CLI, the bench's generation worker), not for library use."""
    z3.z3.Z3_DEBUG = False


def fresh_z3() -> None:
    """Start Z3 afresh in this process: a new main context, so that a member's models do not depend on
    what the process solved before (Z3 shares terms and their order within a context). For a member's
    child process, before it builds any term; Z3 objects made earlier must not be used after it."""
    z3.z3._main_ctx = None


def _sort_in(sort: z3.SortRef, ctx: z3.Context) -> z3.SortRef:
    # SortRef.translate fails on sequence sorts in z3 4.8.12; a constant's translation carries the sort
    return z3.Const("_", sort).translate(ctx).sort()


def _linear(facts: list) -> bool:
    """Quantifier-free linear integer/real arithmetic, no sequences and no (recursive) functions."""
    ctx = facts[0].ctx
    goal = z3.Goal(ctx=ctx)
    goal.add(*facts)
    # Z3 4.8.12's probe rejects subtraction (`i - j`); simplified, that is `i + -1*j`, which it accepts
    simple = z3.Tactic("simplify", ctx=ctx)(goal)
    return all(z3.Probe("is-qflira", ctx=ctx)(g) == 1.0 for g in simple)


def _chars_in(e) -> set[int]:
    """Characters the constraints mention, so readable models may use them."""
    out: set[int] = set()
    if isinstance(e, ast.CharLit):
        out.add(ord(e.value))
    elif isinstance(e, ast.StringLit):
        out.update(ord(c) for c in e.value)
    if isinstance(e, ast.Node):
        for v in vars(e).values():
            out |= _chars_in(v)
    elif isinstance(e, (tuple, list)):
        for v in e:
            out |= _chars_in(v)
    return out


def _revealed(resolver: Resolver, module: tuple[str, ...], name: str) -> bool:
    """Is declaration `name` of `module` revealed outside it? Yes where the module declares no default
    export set (`export` or `export <module name>`), or that set reveals it or `*`."""
    if not module:
        return True
    decl = resolver.modules.get(module[:-1], {}).get(module[-1])
    exports = [d for d in getattr(decl, "decls", ()) if isinstance(d, ast.Export) and d.name in (None, module[-1])]
    return not exports or any(name in e.reveals or "*" in e.reveals for e in exports)


def _uninterpreted(term) -> bool:
    """A plain Z3 constant (a variable), not a value or a compound term."""
    return z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED

"""One member through the stages: contract -> partitions -> scenarios (base, boundary, diverse, repeated) ->
solved inputs -> emitted tests, collected as a MemberResult (records.py).

The rules of a member's generation live here: which clauses partition it, when it runs out of time, which
solved inputs become tests (one test per input; none where the literals break a requires, those solved
again without them a few times, or where an object's calls are not known to meet it), and what a member
stopped half way keeps.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.objects import inputs_of
from dspec2test.emit.tests_file import (Checks, EmitContext, checks_of, emit_test, in_test_scope, test_name,
                                        unbuildable, values_checkable, with_checks, with_values)
from dspec2test.emit.witness_search import bounded_search
from dspec2test.errors import Diagnostic, Severity, Unsupported
from dspec2test.generation.options import GenerateOptions
from dspec2test.isolate import Failed, Report, ignore_report, stall_exit
from dspec2test.model.contracts import Contract, ContractClause, pre_state_name
from dspec2test.model.walk import conj, free_names
from dspec2test.oracle import Model, SolverLike, SolveResult
from dspec2test.partition.diversity import Functions, PartitionState, diversify
from dspec2test.partition.lift import Definitions
from dspec2test.partition.partitions import Enumeration, PartitionSpec, check_clauses, partition
from dspec2test.partition.scenarios import ScenarioSpec, base_scenario, bva_scenarios
from dspec2test.partition.unfold import Unfolder
from dspec2test.probe import PROBE_S, probe_test
from dspec2test.records import (CheckKind, ClauseBranches, Limitation, MemberResult, PartitionResult, Scenario, ScenarioKind,
                                ScenarioResult, ScenarioStatus, TestCase, UncheckedClause, Unsatisfiable)
from dspec2test.search.access import MemberSearch, SearchAccess
from dspec2test.search.engine import Candidate
from dspec2test.solve import Solver
from dspec2test.solve.core import PROVE_RLIMIT, TIMEOUTS_BEFORE_SHORT

# (program, [(name, type, is_output)], member) -> a solver; the member gives it its module/class scope
SolverFactory = Callable[[ast.Program, Sequence[tuple[str, ast.Type, bool]], Any], SolverLike]

# time-limited queries of one member after which it gets no more boundary scenarios (and the solver a
# short limit): one threshold for both
MAX_TIMEOUTS = TIMEOUTS_BEFORE_SHORT
RESOLVE_REJECTED = 3  # inputs solved again after admission rejects one, each excluding those rejected before
MAX_UNSAT_SHOWN = 32  # unsatisfiable combinations of branches listed per member in the manifest


def default_solver_factory(options: GenerateOptions) -> SolverFactory:
    # isolated: a solver in a member's child process (a fork of this one) ends the child on a Z3 check that
    # ignores its time limit, rather than let it hang to the member's wall limit
    on_stall = stall_exit(os.getpid()) if options.isolate else None

    def make(program: ast.Program, vars_: Sequence[tuple[str, ast.Type, bool]], member: Any) -> SolverLike:
        return Solver(program, list(vars_), timeout_s=options.timeout_s, length_limit=options.length_limit,
                      member=member, opaque_recursion=options.opaque_recursion, on_stall=on_stall)

    return make


class MemberGeneration:
    """One member through the pipeline; collects its tests, cases, partitions, refusals and diagnostics."""

    def __init__(self, contract: Contract, ctx: EmitContext, options: GenerateOptions, factory: SolverFactory,
                 search: SearchAccess | None = None):
        self.contract = contract
        self.ctx = ctx
        self.options = options
        self.factory = factory
        self.search = search  # the contract compiled to Python, where the search can run it
        self.searcher: MemberSearch | None = None  # its pool of inputs, once searched
        self.tests: list[str] = []
        self.cases: list[TestCase] = []
        self.diagnostics: list[Diagnostic] = []
        self.timed_out = False  # out_of_time said so once
        self.states: list[PartitionState] = []  # partitions with their scenarios and models, in order
        self.refusals: list[Limitation] = []
        self.checks: Checks | None = None  # the clauses as the tests check them, and those they cannot
        self.awaiting: list[tuple[int, Model]] = []  # tests (by index) whose outputs may be expected as values
        self.capped = False
        self.deferred = False  # datatype fields' constraints left to admission: a literal must be shown to meet them
        self.made = False  # some input is made by a call (factories.py): its literal must be shown to meet the requires
        self.clauses: tuple[ClauseBranches, ...] | None = None  # the clauses partitioned on (clause coverage)
        self.unsatisfiable: list[Unsatisfiable] = []
        self.unsatisfiable_more = 0
        self.blocked: str | None = None
        self.report: Report = ignore_report  # hands the results so far to the parent process
        self.ahead = False  # a refusal was reported ahead of a check (pending) and not yet withdrawn
        # a guess at the work, to start the costliest members first: contract text length follows the
        # generation time of the paper's members closely (torneo's 359 characters and 8 s lead both)
        self.cost = sum(len(cl.text) for cl in contract.clauses)

    def unsupported(self, exc: Unsupported) -> None:
        line = exc.line or self.contract.line
        construct = exc.construct or exc.message
        file = exc.file if exc.line else ""  # a declaration's origin: named as the user named the file
        if file == self.contract.file:
            file = ""
        self.refusals.append(Limitation(construct, line, exc.message, file))
        self.diagnostics.append(Diagnostic(file or self.contract.file, line, exc.col, exc.message,
                                           Severity.UNSUPPORTED, construct))

    def warn(self, message: str) -> None:
        self.diagnostics.append(self.warning(message))

    def warning(self, message: str) -> Diagnostic:
        return Diagnostic(self.contract.file, self.contract.line, self.contract.col,
                          f"{self.contract.name}: {message}", Severity.WARNING)

    def probe_tests(self, result: MemberResult) -> list[tuple[TestCase, str]]:
        checks = checks_of(self.contract, self.ctx)
        return [(tc, probe_test(self.contract, tc, checks, self.ctx)) for tc in result.cases]

    def without(self, result: MemberResult, slow: frozenset[str]) -> MemberResult:
        """`result` without the tests whose checks could not be evaluated in time (by name)."""
        kept = [(t, tc) for t, tc in zip(result.tests, result.cases) if tc.name not in slow]
        dropped = sorted({tc.name for tc in result.cases} & slow)
        partitions = tuple(replace(p, scenarios=tuple(
            replace(sc, test=None, status=ScenarioStatus.SLOW_CONTRACT) if sc.test in slow else sc
            for sc in p.scenarios)) for p in result.partitions)
        warning = self.warning(f"{len(dropped)} test{'s' * (len(dropped) != 1)} left out: the contract could not be "
                               f"evaluated within {PROBE_S:g} s on their inputs ({', '.join(dropped)})")
        return replace(result, partitions=partitions, tests=tuple(t for t, _ in kept),
                       cases=tuple(tc for _, tc in kept), diagnostics=result.diagnostics + (warning,))

    def result(self, report: Report = ignore_report) -> MemberResult:
        self.report = report
        self.run()
        return self.so_far()

    def so_far(self) -> MemberResult:
        c = self.contract
        # in partition order: diverse scenarios are solved after every partition's boundaries
        order = sorted(range(len(self.cases)), key=lambda i: (self.cases[i].partition, self.cases[i].scenario))
        partitions = tuple(PartitionResult(s.part.id, s.part.label, s.constraint, tuple(s.part.clause_lines),
                                           s.part.status.lower(), tuple(s.scenarios), s.part.branches)
                           for s in self.states)
        return MemberResult(c.name, c.file, c.line, c.kind, not c.body_missing, partitions, tuple(self.refusals),
                            self.unchecked(), self.capped, c.instantiated() if c.instantiation else None, self.blocked,
                            clauses=self.clauses, unsatisfiable=tuple(self.unsatisfiable),
                            unsatisfiable_more=self.unsatisfiable_more, tests=tuple(self.tests[i] for i in order), cases=tuple(self.cases[i] for i in order),
                            diagnostics=tuple(self.diagnostics))

    def unchecked(self) -> tuple[UncheckedClause, ...]:
        """The clauses no test checks, with the reason. One a value check covers (the outputs equal to the
        only ones the contract allows meet it) is not listed where every test has that check, and says in
        how many it has where some do."""
        if self.checks is None:
            return ()
        valued = sum(1 for tc in self.cases if any(ch.kind is CheckKind.VALUE for ch in tc.checks))
        out = []
        for i, (cl, why) in enumerate(self.checks.unchecked):
            if i in self.checks.by_value and valued:
                if valued == len(self.cases):
                    continue
                why = f"{why}; checked by the expected values in {valued} of {len(self.cases)} tests"
            out.append(UncheckedClause(cl.line, cl.kind, cl.text, why))
        return tuple(out)

    def pending(self, why: str) -> None:
        """Hand the parent the refusal `why` as this member's outcome should its process end in the check
        about to start (one Z3 does not stop): `stopped` marks a result reported ahead of time."""
        c = self.contract
        r = self.so_far()
        self.ahead = True
        self.report(replace(r, unsupported=r.unsupported + (Limitation(why, c.line, f"{c.name}: {why}"),),
                            diagnostics=r.diagnostics + (Diagnostic(c.file, c.line, c.col, f"{c.name}: {why}",
                                                                    Severity.UNSUPPORTED, why),),
                            stopped="the solver did not stop at its time limit (Z3 ignored the interrupt)"))

    def failed(self, failed: Failed) -> MemberResult:
        """The result of a member whose child process gave no final result. With tests reported before it
        stopped, those stand, with a warning; without, the member is unsupported, with the reason."""
        c = self.contract
        partial = failed.partial
        if isinstance(partial, MemberResult) and partial.stopped and not partial.tests:
            return partial  # stopped in a check whose failure is a refusal: reported ahead of time (pending)
        if isinstance(partial, MemberResult) and partial.tests:
            warning = Diagnostic(c.file, c.line, c.col,
                                 f"{c.name}: generation did not finish ({failed.reason}); the {len(partial.tests)} "
                                 f"tests solved before that are kept, its later scenarios have none", Severity.WARNING)
            return replace(partial, stopped=failed.reason, diagnostics=partial.diagnostics + (warning,))
        if failed.reason.startswith("took longer than"):  # the wall limit, not Z3 (a hang may be ours)
            why = f"generation stopped: {failed.reason} (member-timeout)"
            self.unsupported(Unsupported(why, c.line, c.col, why))
        else:
            self.unsupported(Unsupported(f"solver failure ({failed.reason})", c.line, c.col,
                                         f"generation of {c.name} failed: {failed.reason}"))
        return self.so_far()

    def run(self) -> MemberGeneration:
        c = self.contract
        try:
            checks = self.checks = checks_of(c, self.ctx)
            if c.blocked:  # a reason no test can call it, not a construct we lack
                self.blocked = c.blocked
                raise Unsupported(c.blocked.split(" (")[0], c.line, c.col, f"{c.name}: {c.blocked}")
            cannot = unbuildable(c)  # fail early when an object input cannot be made
            if cannot is not None:
                raise cannot
            for note in c.objects.notes:
                self.warn(note)
            if c.objects.unreachable and self.search is None:
                # a reason, not a construct we lack: no test, and the user is told why
                for why in c.objects.unreachable:
                    self.warn(f"no test: {why}")
                return self
            try:
                solver = self.factory(self.ctx.program, [(v.name, v.type, v.is_output) for v in c.solver_vars],
                                      c.member)
            except Unsupported as refused:
                if self.search_only(checks, refused):
                    return self
                raise
            for note in solver.make_from_functions():
                self.made = True
                self.warn(note)
            hidden = solver.hidden_input_types()
            if hidden:
                raise Unsupported(hidden[0], c.line, c.col, f"{c.name}: tests cannot construct an input of {hidden[0]}")
            for note in solver.build_from_witnesses(requires_only=self.options.requires_only_inputs):
                self.warn(note)
            out_of_reach = solver.inputs_out_of_reach(self.pending)
            if out_of_reach is not None:
                out_of_reach = self.within_reach(solver, out_of_reach, rebuild=False)
            if out_of_reach is not None and solver.defer_field_constraints():
                again = solver.inputs_out_of_reach(self.pending)
                self.deferred = True
                if again is None:
                    self.warn(f"{out_of_reach}; solved without their datatype fields' own constraints, which "
                              f"each test's literals are checked against before it is written")
                out_of_reach = again
            if out_of_reach is not None:
                # still out of reach: the inputs built for what the contract reads are built again for what
                # the requires read (a beacon-chain state's 8192-root vectors, which the ensures read)
                out_of_reach = self.within_reach(solver, out_of_reach, rebuild=True)
            if out_of_reach is not None:
                raise Unsupported(out_of_reach, c.line, c.col, f"{c.name}: {out_of_reach}")
            if self.ahead:  # the checks passed: the refusal reported ahead is no longer the outcome
                self.report(self.so_far())
                self.ahead = False
            # a lemma's ensures are what its tests check, not what its inputs are solved for: solving for
            # them too would leave no input exactly where the property is false
            usable, bad = check_clauses(self.lemma_requires(solver) if c.is_lemma else c.clauses, solver)
            for clause, refusal in bad:
                self.unsupported(refusal)
            if any(clause.kind == "requires" for clause, _ in bad):
                # the solver's inputs could break a precondition it cannot read: only the search's, which
                # ran the compiled requires, are trustworthy
                self.search_only(checks, next(exc for clause, exc in bad if clause.kind == "requires"), noted=True)
                return self
            checks = self.checks = with_values(c, self.witness_searched(checks, solver),
                                               frozenset(cl.line for cl in usable))
            whole = tuple(cl.expr for cl in usable)
            # the search first: its inputs settle which combinations of branches are satisfiable, and become
            # the partitions' tests
            searched = MemberSearch(self.search, c, solver, self.ctx.program) if self.search is not None else None
            if searched is not None and searched.pool.reason:
                self.warn(f"no search: {searched.pool.reason}")
            parts = self.partitions(usable, solver, searched.known(usable) if searched is not None else None)
            found = searched.chosen(usable, parts, self.options.per_partition, self.options.search_tests) \
                if searched is not None else {}
            self.searcher = searched
            for part in parts:
                self.partition(part, solver, checks, whole, found.get(part.id, ()))
            if c.objects.unreachable and not self.cases:  # the search's calls did not reach it either
                for why in c.objects.unreachable:
                    self.warn(f"no test: {why}")
            if self.options.bva is not None and self.options.diverse:
                # after every partition's boundaries, so that the budget is shared round robin
                diversify(c, self.states, self.ctx.types, solver,
                          lambda state, sc, constraints: self.diverse(state, sc, constraints, solver, checks, whole),
                          Functions.of(self.ctx.program), stop=lambda: self.out_of_time(solver))
            self.expect_values(solver, checks, whole)
        except Unsupported as exc:
            self.unsupported(exc)
        except Exception as exc:  # noqa: BLE001 - one member's failure must not stop the others
            if os.environ.get("DSPEC2TEST_DEBUG"):
                raise
            # formulas too large for the member's memory cap (Python's or Z3's): the solver's limit, not a bug
            if isinstance(exc, MemoryError) or (type(exc).__name__ == "Z3Exception" and "out of memory" in str(exc)):
                self.unsupported(Unsupported("solver out of memory (its formulas are too large)", c.line, c.col))
                return self
            self.unsupported(Unsupported(f"internal error ({type(exc).__name__})", c.line, c.col,
                                         f"internal error while generating {c.name}: {exc}"))
        return self

    def search_only(self, checks: Checks, why: Unsupported, noted: bool = False) -> bool:
        """Tests from the search alone, where the solver cannot take the contract (`why`): its inputs are
        admitted by running the compiled requires (every one of them must compile), and each test checks
        every clause; one partition, the contract as a whole. False where the search cannot do it either."""
        c = self.contract
        if self.search is None or any(cl.kind == "requires" for cl, _ in checks.unchecked):
            return False
        searched = MemberSearch(self.search, c, None, self.ctx.program)
        found = searched.pool.choose([(1, ())], searched.types, self.options.per_partition * 2, searched.vocab.chars)
        if not found:
            return False
        if not noted:
            self.unsupported(why)
        self.searcher = searched
        part = PartitionSpec(1, (), "(the search's inputs: the solver cannot read this contract)",
                             tuple(sorted({cl.line for cl in c.clauses})), "UNKNOWN")
        state = PartitionState(part, [], [], "")
        self.states.append(state)
        for cand in found[1][:self.options.per_partition]:
            given = searched.test_inputs(cand)
            sc = Scenario(1, len(state.scenarios) + 1, ScenarioKind.SEARCH)
            entry, _ = self.scenario_of(part, sc, Model(given), None, checks, (), (), given=given)  # type: ignore[arg-type]
            if entry.test is not None:
                self.add(state, entry)
        self.warn(f"tested on the search's inputs alone ({len(self.cases)}): the solver cannot read the contract "
                  f"({why.construct or why.message}); every test checks every clause it can")
        return True

    def witness_searched(self, checks: Checks, solver: SolverLike) -> Checks:
        """`checks` with the unchecked clauses a bounded witness search decides (emit/witness_search.py)
        checked, where the solver proves its bound complete (one query per `exists`, on a short budget);
        where it does not, the clause stays unchecked and says so."""
        c = self.contract
        ghosts = {v.name for v in c.vars if v.ghost}
        kinds = {v.name: self.ctx.types.kind(v.type) for v in c.vars if not v.ghost}
        kept: list[tuple[ContractClause, str]] = []
        found: dict[str, list[tuple[ContractClause, ast.Expr]]] = {"requires": [], "ensures": []}
        sources: list[tuple[ContractClause, str]] = []
        for cl, why in checks.unchecked:
            search = None if free_names(cl.expr) & ghosts else bounded_search(cl.expr, self.ctx.ghosts, kinds)
            if search is None:
                kept.append((cl, why))
            elif all(solver.valid(ob, PROVE_RLIMIT) for ob in search.obligations):
                found[cl.kind].append((cl, in_test_scope(c, search.expr, self.ctx.names)))
                sources.append((cl, search.source))
            else:
                names = ", ".join(b.split("|")[1] for b in search.bounds)
                kept.append((cl, f"{why}; no bound on {names} was proved complete for a search"))
        if kept == list(checks.unchecked):
            return checks
        return replace(checks, requires=checks.requires + tuple(found["requires"]),
                       ensures=checks.ensures + tuple(found["ensures"]), unchecked=tuple(kept),
                       sources=checks.sources + tuple(sources))

    def within_reach(self, solver: SolverLike, why: str, rebuild: bool) -> str | None:
        """Inputs built again from their witnesses solving only what the requires read (`rebuild`: those
        built already too), and None where that brings them within reach (else `why`). The ensures' fields
        are then left at the witness's values: a test may exercise another of the ensures' partitions than
        the one it is solved for, but it checks every clause."""
        kept = solver.build_from_witnesses(requires_only=True, rebuild=rebuild)
        if not kept or solver.inputs_out_of_reach(self.pending) is not None:
            return why
        for note in kept:
            self.warn(f"{note}; the other fields keep their witness's values, so a test may exercise another "
                      f"partition of the ensures than the one it is labelled with")
        return None

    def lemma_requires(self, solver: SolverLike) -> tuple[ContractClause, ...]:
        """A lemma's requires for partitioning: each with the predicates it calls unfolded where that splits
        it into more ways to hold (partition/unfold.py) and the solver encodes the result."""
        c = self.contract
        defs = Definitions.of(self.ctx.program, c.module, self.ctx.types.decls.values())
        unfolder = Unfolder(self.ctx.program)
        out = []
        for cl in c.requires:
            unfolded = unfolder.splitting(cl.expr, c.member, defs)
            if unfolded is not None:
                try:
                    solver.check([unfolded])
                    cl = replace(cl, expr=unfolded)
                except Unsupported:
                    pass  # the clause as written, which the solver may still encode
            out.append(cl)
        return tuple(out)

    def partitions(self, usable: tuple[ContractClause, ...], solver: SolverLike,
                   known: Callable[[tuple[int, ...], tuple[ast.Expr, ...]], bool] | None = None) -> list[PartitionSpec]:
        """The partitions of the usable clauses; for an object built through a trait with several classes,
        those of each class (`this is C && ...`), numbered on. `known`: combinations of the usable clauses'
        branches shown satisfiable by a searched input (MemberSearch.known)."""
        c = self.contract
        out: list[PartitionSpec] = []
        defs = Definitions.of(self.ctx.program, c.module, self.ctx.types.decls.values())
        for choice in c.objects.class_choices():
            given = tuple(ContractClause("requires", e, c.line, print_expr(e)) for e in choice)
            res = partition(c, given + usable, solver, full=self.options.fdnf,
                            cap=max(1, self.options.max_partitions - len(out)), defs=defs,
                            known=known if not given else None)
            self.capped = self.capped or res.capped
            for message in res.messages:
                self.warn(message)
            self.cover(usable, given, res)
            n = len(given)
            out += [replace(p, id=len(out) + i, branches=p.branches[n:]) for i, p in enumerate(res.partitions, 1)]
        return out

    def cover(self, usable: tuple[ContractClause, ...], given: tuple[ContractClause, ...],
              res: Enumeration) -> None:
        """Clause coverage: each clause's branches, and the combinations found unsatisfiable (named by their
        literals; the lines of the clauses they combine)."""
        n = len(given)
        if self.clauses is None:
            self.clauses = tuple(ClauseBranches(cl.kind, cl.line, cl.text, tuple(labels), tuple(vacuous))
                                 for cl, labels, vacuous in zip(usable, res.clause_branches[n:], res.vacuous[n:]))
        clauses = given + usable
        for path, label in res.unsat[:MAX_UNSAT_SHOWN - len(self.unsatisfiable)]:
            self.unsatisfiable.append(Unsatisfiable(label, tuple(sorted({clauses[i].line
                                                                          for i in range(n, len(path))}))))
        if len(res.unsat) > MAX_UNSAT_SHOWN:
            self.unsatisfiable_more += len(res.unsat) - MAX_UNSAT_SHOWN

    def partition(self, part: PartitionSpec, solver: SolverLike, checks: Checks, whole: tuple[ast.Expr, ...],
                  found: tuple[Candidate, ...] = ()) -> None:
        c = self.contract
        implicit = [e for v in c.params for e in self.ctx.types.constraints(v.name, v.type)]
        state = PartitionState(part, [], [], print_expr(conj(part.literals + tuple(implicit))))
        self.states.append(state)  # now, so that a report made half way through shows it
        models = state.models
        # the search's inputs first: the solver confirms each with its inputs fixed, and solves the partition
        # itself only where the search found none
        models += self.searched(state, found, solver, checks, whole)
        if not models and not c.objects.unreachable:
            # (no call sequence the solver knows of reaches the requires: only the search's calls could)
            # the base scenario: its model tells which BVA pins the partition allows or leaves open
            entry, model = self.scenario(part, base_scenario(part), solver, checks, whole, (), ())
            self.add(state, entry)
            models.append(model)
        specs = []
        if self.options.bva is not None and models and models[0] is not None and not self.out_of_time(solver):
            # (with no base input, each pin would only add to a query the solver already gave up on)
            specs = bva_scenarios(c, part, solver, self.ctx.types, self.options.bva, witness=models[0])[1:]
        for spec in specs:
            if self.out_of_time(solver):
                break
            spec = replace(spec, scenario=replace(spec.scenario, id=len(state.scenarios) + 1))
            # earlier scenarios' inputs are avoided where the pin allows: BVA pins alone leave them alike
            entry, model = self.scenario(part, spec, solver, checks, whole, (), tuple(m for m in models if m))
            self.add(state, entry)
            models.append(model)
        if self.options.bva is None and models and models[0] is not None and not found:
            # --repeat: each further solution must differ from the previous ones in its inputs
            for _ in range(2, self.options.repeat + 1):
                spec = ScenarioSpec(Scenario(part.id, len(state.scenarios) + 1, ScenarioKind.REPEAT), part.literals)
                entry, model = self.scenario(part, spec, solver, checks, whole,
                                             tuple(m for m in models if m is not None), ())
                if model is None:
                    break  # no further distinct input exists (or the solver gave up)
                self.add(state, entry)
                models.append(model)

    def searched(self, state: PartitionState, found: tuple[Candidate, ...], solver: SolverLike, checks: Checks,
                 whole: tuple[ast.Expr, ...]) -> list[Model | None]:
        """Tests of the search's candidates for the partition: each fixed in the solver, which finds the
        outputs the contract allows there (and so shows the candidate is in the partition: one it rules out
        is dropped). Where the solver gives up, the candidate is tested as found: the requires admitted it
        when the contract ran on it, and the test checks every clause."""
        part = state.part
        models: list[Model | None] = []
        # an object's state is an input no solver varies: the search's variety of it is all there is
        limit = self.options.per_partition * (2 if any(cand.objects for cand in found) else 1)
        for cand in found:
            if self.out_of_time(solver) or len(models) >= limit:
                break
            sc = Scenario(part.id, len(state.scenarios) + 1, ScenarioKind.SEARCH)
            if cand.objects and self.searcher is not None:
                # objects made by calls: their state is what the calls left, which the test makes again.
                # The solver does not see it, so only a requires the harness ran in full admits them
                if any(cl.kind == "requires" for cl, _ in checks.unchecked):
                    continue
                given = self.searcher.test_inputs(cand)
                entry, m = self.scenario_of(part, sc, Model(given), solver, checks, whole, (), given=given)
                if entry.test is not None:
                    self.add(state, entry)
                    models.append(m)
                continue
            try:
                model = solver.solve_at(part.literals, cand.values)
            except (Unsupported, KeyError):
                model = None
            if model is None:
                if solver.status_of_last is SolveResult.UNSAT:
                    continue  # the literals over outputs (or left out of the projections) rule it out
                # named as the solver names inputs: an input the member modifies by its value before the call
                values = {**cand.values, **{pre_state_name(k): v for k, v in cand.values.items()
                                            if k in self.contract.pre_state}}
                try:
                    model = Model(solver.literals(values), values)
                except (Unsupported, KeyError, ValueError):
                    continue
            entry, m = self.scenario_of(part, sc, model, solver, checks, whole, ())
            if entry.test is None:
                continue
            self.add(state, entry)
            models.append(m)
        return models

    def diverse(self, state: PartitionState, sc: Scenario, constraints: tuple[ast.Expr, ...], solver: SolverLike,
                checks: Checks, whole: tuple[ast.Expr, ...]) -> Model | None:
        """One diverse scenario: recorded when the solver finds an input, dropped (silently) when not."""
        entry, model = self.scenario(state.part, ScenarioSpec(sc, constraints), solver, checks, whole, (),
                                     tuple(m for m in state.models if m is not None))
        if model is not None:
            self.add(state, entry)
        return model

    def add(self, state: PartitionState, scenario: ScenarioResult) -> None:
        state.scenarios.append(scenario)
        if scenario.test is not None:
            self.report(self.so_far())

    def out_of_time(self, solver: SolverLike) -> bool:
        """After MAX_TIMEOUTS queries of this member hit the time limit, it gets no more boundary scenarios
        (base scenarios still): on contracts Z3 cannot decide (recursive functions over sequences) each
        pin costs another full limit, and a pull request should not wait minutes for them."""
        if solver.timeouts < MAX_TIMEOUTS:
            return False
        if not self.timed_out:
            self.timed_out = True
            self.warn(f"{MAX_TIMEOUTS} solver queries reached the time limit: no further boundary scenarios")
        return True

    def scenario(self, part: PartitionSpec, spec: ScenarioSpec, solver: SolverLike, checks: Checks,
                 whole: tuple[ast.Expr, ...], exclude: tuple[Model, ...],
                 avoid: tuple[Model, ...]) -> tuple[ScenarioResult, Model | None]:
        sc = spec.scenario
        entry = ScenarioResult(sc.id, sc.kind, sc.pin)
        rejected: tuple[Model, ...] = ()
        while True:
            model = solver.solve(spec.constraints, exclude + rejected, relevant=part.literals, avoid=avoid)
            if model is None and rejected:
                break  # no other input: the last one rejected stands
            if model is None:
                status = ScenarioStatus.UNSAT if solver.status_of_last is SolveResult.UNSAT else ScenarioStatus.UNKNOWN
                if sc.kind not in (ScenarioKind.REPEAT, ScenarioKind.DIVERSE):
                    self.warn(f"partition {part.id} scenario {sc.id}: the solver found no input ({status.value})")
                return replace(entry, status=status), None
            got = self.scenario_of(part, sc, model, solver, checks, whole, exclude + rejected)
            if got[0].status is not ScenarioStatus.BAD_INPUT:
                return got
            # the literals a test would hold break a requires or a type constraint: solved again without
            # that input, a few times, before the scenario is given up
            rejected += (model,)
            if model.inexact or len(rejected) > RESOLVE_REJECTED or self.out_of_time(solver):
                break  # an irrational real: the solver looked for rational ones already (Solver.solve)
        why = (f": {', '.join(model.inexact)} {'is' if len(model.inexact) == 1 else 'are'} irrational in the "
               f"solver's model, and no rational value was found" if model is not None and model.inexact else
               f" ({len(rejected)} inputs solved, each rejected)" if len(rejected) > 1 else "")
        self.warn(f"partition {part.id} scenario {sc.id}: the solved inputs break a requires clause or a type "
                  f"constraint; no test written{why}")
        return got

    def scenario_of(self, part: PartitionSpec, sc: Scenario, model: Model, solver: SolverLike, checks: Checks,
                    whole: tuple[ast.Expr, ...], exclude: tuple[Model, ...],
                    given: dict[str, str] | None = None) -> tuple[ScenarioResult, Model | None]:
        """The scenario's test from the model solved for it (or why none is written). `given`: the test's
        inputs as the search ran them (objects made by calls), admitted by running the requires."""
        c = self.contract
        entry = ScenarioResult(sc.id, sc.kind, sc.pin)
        if model.fixed:
            self.warn(f"partition {part.id} scenario {sc.id}: {model.fixed}")
        # a candidate the solver could not confirm has no outputs: its test checks the clauses on the call's
        missing = [v.name for v in c.vars if v.name not in model.values and not v.is_output]
        if missing and given is None:
            raise Unsupported(f"no value for {', '.join(missing)}", c.line, c.col)
        inputs = given if given is not None else inputs_of(c, model.values, model.raw)
        same = next((i for i, t in enumerate(self.cases) if t.partition == part.id and t.inputs == inputs), None)
        if same is not None:
            # one test per input: a later scenario with the same inputs is carried by the earlier test
            earlier = self.cases[same]
            merged = replace(earlier, also=earlier.also + ((sc.id, sc.pin),))
            self.cases[same] = merged
            self.tests[same] = emit_test(c, merged, checks, self.ctx, self.options.simplify)
            return replace(entry, test=merged.name, same_as=earlier.scenario, inputs=dict(inputs),
                           outputs=_outputs(c, model), unique=earlier.unique), model
        state = {v.name: pre_state_name(v.name) if v.name in c.pre_state else v.name for v in c.params}
        raw = {name: model.raw[key] for name, key in state.items() if key in model.raw}
        admitted = True if given is not None else solver.admits(inputs, [cl.expr for cl in c.requires], raw)
        if admitted is False or (admitted is None and self.deferred):
            # large inputs solved without their fields' constraints broke them: once per member, built again
            # from their witnesses solving only what the requires read, with every constraint back
            again = solver.rebuilt_for_requires(exclude)
            if again is not None:
                self.deferred = False
                return self.scenario_of(part, sc, again, solver, checks, whole, exclude)
        # inputs built from witnesses (model.fixed) must be shown to meet the requires: Z3 did not solve them
        # for it, or solved them for it alone with kept parts it only guessed (evm-dafny's CallEnter ran with
        # a world its requires rejects). Without requires, only their types are left, which Dafny proved of
        # the witnesses. So must inputs made by a call, whose lambdas the solver may have held opaque
        if admitted is None and (self.options.strict_admission or self.deferred
                                 or ((model.fixed or self.made) and c.requires)):
            left = "datatype fields' constraints" if self.deferred else "recursive functions"
            how = "built from their types' witnesses" if model.fixed else "made by calls holding functions" \
                if self.made and not self.deferred else f"solved with their {left} left open"
            self.warn(f"partition {part.id} scenario {sc.id}: the solved inputs are not known to meet the requires "
                      f"and input types ({how}); no test written")
            return replace(entry, status=ScenarioStatus.UNKNOWN, inputs=inputs,
                           message="the solved inputs are not known to meet the requires and input types"), None
        if admitted is False:
            # the literals a test would hold break a requires or a type constraint: never written (the
            # caller solves again without them)
            return replace(entry, status=ScenarioStatus.BAD_INPUT, inputs=inputs,
                           message="the solved inputs break a requires clause or a type constraint"), model
        if given is None and not solver.state_entailed([cl.expr for cl in c.requires], model):
            # the state an object's calls leave is not known to meet the requires: the test could break them
            self.warn(f"partition {part.id} scenario {sc.id}: the constructor and method calls that make the "
                      f"object are not known by their ensures to meet the requires; no test written")
            return replace(entry, status=ScenarioStatus.UNKNOWN, inputs=inputs,
                           message="the calls that make an object are not known to meet the requires"), None
        tc = TestCase(name=test_name(c, part.id, sc.id), method=c.name, file=c.file, line=c.line,
                      partition=part.id, scenario=sc.id, label=part.label, kind=sc.kind, pin=sc.pin,
                      inputs=inputs, outputs=_outputs(c, model), unique=False,
                      clauses=part.clause_lines, instantiation=c.instantiated(), diverges=c.diverges)
        tc = with_checks(c, tc, checks, self.ctx, self.options.simplify)
        self.tests.append(emit_test(c, tc, checks, self.ctx, self.options.simplify))
        self.cases.append(tc)
        # whether its outputs are the only ones is asked once every input is solved (expect_values): not where no
        # test could expect them as values, nor of a search's input the solver did not confirm (it has no outputs)
        if self.options.simplify and values_checkable(c, self.ctx) and all(v.name in model.raw for v in c.outputs):
            self.awaiting.append((len(self.cases) - 1, model))
        # found by the solver's bounded fallback, within this shape
        return replace(entry, test=tc.name, inputs=dict(tc.inputs), outputs=dict(tc.outputs),
                       bounded=model.bounded or None), model

    def expect_values(self, solver: SolverLike, checks: Checks, whole: tuple[ast.Expr, ...]) -> None:
        """The tests whose outputs the solver proves the only ones for their inputs (from the axioms of the
        functions without a body the contract reaches, where it reaches some) expect those values too. Asked
        after every input is solved, so that the inputs are those solved without value checks: the question
        leaves terms and names behind in the solver, which would steer the models of later queries."""
        c = self.contract
        idle: set[int] = set()
        for i, model in self.awaiting:
            valued = solver.outputs_unique(whole, model)
            if valued is None:
                if self.cases[i].kind is ScenarioKind.SEARCH and self.cases[i].unchecked:
                    idle.add(i)  # a search's input whose test could check nothing: one more is noise, not a test
                continue
            tc = replace(self.cases[i], unique=True, outputs=_outputs(c, valued), axioms=valued.axioms)
            tc = with_checks(c, tc, checks, self.ctx, True)
            self.cases[i] = tc
            self.tests[i] = emit_test(c, tc, checks, self.ctx, True)
            for state in self.states:
                state.scenarios[:] = [replace(sc, unique=True, outputs=dict(tc.outputs)) if sc.test == tc.name else sc
                                      for sc in state.scenarios]
        self.awaiting = []
        if idle and len(idle) < len(self.cases):
            gone = {self.cases[i].name for i in idle}
            self.cases = [tc for i, tc in enumerate(self.cases) if i not in idle]
            self.tests = [t for i, t in enumerate(self.tests) if i not in idle]
            for state in self.states:
                state.scenarios[:] = [sc for sc in state.scenarios if sc.test not in gone]
        self.report(self.so_far())


def _outputs(c: Contract, model: Model) -> dict[str, str]:
    """The outputs the model holds (none for an input the solver did not confirm)."""
    return {v.name: model.values[v.name] for v in c.outputs if v.name in model.values}

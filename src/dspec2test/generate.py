"""Front door of generation: program file -> partitions -> scenarios -> solved test cases -> tests text.

Implemented by the partition/solve/emit stages; this module only wires them (see `generate`).
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.objects import inputs_of
from dspec2test.emit.tests_file import (
    Checks, EmitContext, checks_of, emit_file, emit_test, modules_to_open, unbuildable, checks_for, test_name,
)
from dspec2test.errors import Diagnostic, Severity, Unsupported
from dspec2test.gencache import Cache, Entry, keepable, member_key
from dspec2test.isolate import Done, Failed, Limits, Report, ignore_done, ignore_report, run_isolated
from dspec2test.model.contracts import Contract, ContractClause, pre_state_name, select, unproved_lemmas
from dspec2test.model.exports import exported_only
from dspec2test.model.externs import without_code
from dspec2test.model.program import LoadedProgram, Sources, load_program
from dspec2test.partition.diversity import Functions, PartitionState, diversify
from dspec2test.partition.oracle import SolverLike, result_name
from dspec2test.partition.lift import Definitions
from dspec2test.partition.partitions import PartitionSpec, check_clauses, partition
from dspec2test.partition.unfold import Unfolder
from dspec2test.partition.scenarios import ScenarioSpec, base_scenario, bva_scenarios
from dspec2test.model.walk import conj
from dspec2test.probe import PROBE_S, probe, probe_test, probeable, reaches_recursion
from dspec2test.records import Scenario, ScenarioKind, TestCase
from dspec2test.solve import Solver, fresh_z3
from dspec2test.solve.solver import TIMEOUTS_BEFORE_SHORT


# (program, [(name, type, is_output)], timeout_s, length_limit) -> a solver
# (program, variables, member): the member gives the solver its module/class scope for name lookup
SolverFactory = Callable[[ast.Program, Sequence[tuple[str, ast.Type, bool]], Any], SolverLike]


# time-limited queries of one member after which it gets no more boundary scenarios (and the solver a
# short limit): one threshold for both
MAX_TIMEOUTS = TIMEOUTS_BEFORE_SHORT
MAX_UNSAT_SHOWN = 32  # unsatisfiable combinations of branches listed per member in the manifest


@dataclass(frozen=True)
class GenerateOptions:
    methods: tuple[str, ...] = ()  # --method NAME (qualified or short); empty: every member with a contract
    fdnf: bool = False  # --fdnf
    bva: int | None = None  # --bva [N]: None off, else the default extreme (100)
    diverse: bool = True  # with bva: diverse scenarios after the boundary ones (partition/diversity.py)
    simplify: bool = False  # --simplify: concrete expected outputs where unique
    repeat: int = 1  # --repeat N (ignored with bva)
    max_partitions: int = 64
    length_limit: int = 10
    timeout_s: float = 10.0  # Z3 time limit per query
    unverified: tuple[str, ...] | None = None  # members selected by `dafny verify` failures, plus {:testEntry}
    jobs: int = 1  # members generated at once, each in a child process of its own
    isolate: bool = True  # a child process per member, so a Z3 crash or runaway costs that member only
    member_timeout_s: float = 120.0  # wall limit of one member's whole generation; its tests so far are kept
    probe: bool = True  # measure recursive contracts' evaluation on the tests' values (probe.py)
    # recursive functions uninterpreted in the solver: set for the second try of a member whose solver
    # hung on their definitions (Z3 4.8.12 can ignore both its resource limit and interrupts there)
    opaque_recursion: bool = False
    target: str = "py"  # the language the tests run in: externs with no code for it are not tested
    cache_dir: str | None = None  # reuse members' tests from here and keep new ones here (gencache.py)


RETRY_S = 40.0  # wall limit of that second try


@dataclass(frozen=True)
class Generated:
    program: str  # path of the program file
    tests_text: str  # the Dafny tests file (to be compiled together with the program)
    cases: tuple[TestCase, ...]
    manifest: dict  # the `generate --json` manifest (DESIGN.md section 5)
    diagnostics: tuple[Diagnostic, ...] = field(default_factory=tuple)  # parse errors, unsupported, caps
    inputs: tuple[str, ...] = ()  # what dafny builds beside the tests (the program, or its project file)
    files: tuple[str, ...] = ()  # every file of the program, as reports name them (the program first)
    cached: tuple[str, ...] = ()  # the members whose tests came from the cache (generation skipped)
    looked_up: int = 0  # the members looked up in the cache (0: no cache)


# ---------------------------------------------------------------- the pipeline


class GenerationProgress(Protocol):
    """Hears how generation goes, for a progress display (report/terminal.py)."""

    def generating(self, members: int) -> None: ...

    def member_done(self, member: str, tests: int, seconds: float, stopped: str | None) -> None: ...


class _Quiet:
    def generating(self, members: int) -> None:
        pass

    def member_done(self, member: str, tests: int, seconds: float, stopped: str | None) -> None:
        pass


def generate(path: str, options: GenerateOptions = GenerateOptions(),
             solver_factory: SolverFactory | None = None, files: frozenset[str] | None = None,
             progress: GenerationProgress | None = None) -> Generated:
    """Parse `path`, then for every selected member: contract -> partitions -> scenarios -> solve -> emit.

    Never raises for bad input: a parse error comes back as a diagnostic with no tests; a member the
    engine cannot handle becomes `unsupported` manifest entries and diagnostics, and the others go on.
    """
    return generate_all((path,), options, solver_factory, files=(files,), progress=progress)[0]


def generate_all(paths: Sequence[str], options: GenerateOptions = GenerateOptions(),
                 solver_factory: SolverFactory | None = None, sources: Sources | None = None,
                 files: Sequence[frozenset[str] | None] = (),
                 progress: GenerationProgress | None = None) -> list[Generated]:
    """`generate` for several programs, one result each in the order given. The members of all of them
    share one pool of `options.jobs` children: a program of one member no longer leaves a core idle
    while another program's five wait their turn. `files[i]`: the files of program i whose members are
    tested (None: its own file only); `sources`: files parsed already."""
    factory = solver_factory or default_solver_factory(options)
    sources = sources or Sources()
    plans = [_Plan.of(path, options, factory, sources, files[i] if i < len(files) else None)
             for i, path in enumerate(paths)]
    gens = [g for plan in plans for g in plan.gens]
    cache = Cache(Path(options.cache_dir)) if options.cache_dir else None
    keys = [member_key(g.contract, g.ctx.program, options) for g in gens] if cache else []
    results: list[Any] = [None] * len(gens)
    for i, key in enumerate(keys):
        if cache is not None and (hit := cache.load(key)) is not None:
            results[i] = MemberResult(hit.tests, hit.cases, hit.entry, hit.diagnostics)
    hits = frozenset(i for i, r in enumerate(results) if r is not None)
    # the likely costliest first, so that the slowest member does not start last and run alone
    order = sorted((i for i in range(len(gens)) if i not in hits), key=lambda i: -gens[i].cost)
    progress = progress or _Quiet()
    progress.generating(len(order))
    ordered = [gens[i] for i in order]

    def done(k: int, result: Any, seconds: float) -> None:
        got = result.partial if isinstance(result, Failed) else result
        tests = len(got.cases) if isinstance(got, MemberResult) else 0
        progress.member_done(ordered[k].contract.name, tests, seconds,
                             result.reason if isinstance(result, Failed) else None)

    ran = _run(ordered, options, done)
    for i, r in zip(order, ran):
        results[i] = r
    if solver_factory is None:
        results = _retried(gens, results, options)
    out, start = [], 0
    for plan in plans:
        span = range(start, start + len(plan.gens))
        mine = [r if isinstance(r, MemberResult) else g.failed(r) for g, r in zip(plan.gens, results[span.start:span.stop])]
        if options.probe:
            mine = _probed(plan, mine, options, frozenset(i - start for i in span if i in hits))
        for i, m in zip(span, mine):
            entry = Entry(m.tests, m.cases, m.entry, m.diagnostics)
            if cache is not None and i not in hits and keepable(entry):
                cache.store(keys[i], entry)
        cached = tuple(plan.gens[i - start].contract.name for i in span if i in hits)
        out.append(replace(plan.assemble(mine), cached=cached, looked_up=len(span) if cache else 0))
        start += len(plan.gens)
    return out


def _run(gens: Sequence["MemberGeneration"], options: GenerateOptions, done: Done | None = None) -> list[Any]:
    if options.isolate:
        jobs = [functools.partial(_afresh, g) for g in gens]
        return run_isolated(jobs, options.jobs, Limits(wall_s=options.member_timeout_s), done or ignore_done)
    out = []
    for k, g in enumerate(gens):
        start = time.monotonic()
        out.append(g.result(ignore_report))
        if done is not None:
            done(k, out[-1], time.monotonic() - start)
    return out


def _afresh(gen: "MemberGeneration", report: Report) -> "MemberResult":
    """In a member's child process: Z3 starts afresh, so that its tests do not depend on what the parent
    solved before it forked (same tests for a file alone, in a batch, or after other work)."""
    fresh_z3()
    return gen.result(report)


def _retried(gens: Sequence["MemberGeneration"], results: list[Any], options: GenerateOptions) -> list[Any]:
    """Members stopped before any test whose contract reaches a recursive function, generated once more
    with recursive functions left open to the solver: its inputs then meet every clause but those calls,
    and the tests still check every clause at run time. Not where a requires calls one: an input could
    break it, and the test would be bad input."""
    if options.opaque_recursion:
        return results
    again = [i for i, (g, r) in enumerate(zip(gens, results))
             if isinstance(r, Failed) and not (isinstance(r.partial, MemberResult) and r.partial.tests)
             and reaches_recursion(g.contract, g.ctx.program)
             and not reaches_recursion(g.contract, g.ctx.program, frozenset({"requires"}))]
    if not again:
        return results
    # no concrete expected values (--simplify): the outputs of a model with open functions mean nothing
    opts = replace(options, opaque_recursion=True, simplify=False,
                   member_timeout_s=min(options.member_timeout_s, RETRY_S))
    factory = default_solver_factory(opts)
    out = list(results)
    for i, r in zip(again, _run([MemberGeneration(gens[i].contract, gens[i].ctx, opts, factory) for i in again], opts)):
        if isinstance(r, MemberResult) and r.tests:
            why = results[i].reason
            note = gens[i].warning(f"the solver did not finish with its recursive functions ({why}); its inputs "
                                   f"were solved with those left open, so a scenario may not be in the partition "
                                   f"it is labelled with; every clause is still checked")
            out[i] = replace(r, entry=dict(r.entry, opaque_recursion=True), diagnostics=r.diagnostics + (note,))
    return out


def _probed(plan: "_Plan", results: list["MemberResult"], options: GenerateOptions,
            cached: frozenset[int] = frozenset()) -> list["MemberResult"]:
    """The members whose contract reaches a recursive function, with tests whose checks cannot be
    evaluated in time generated again with the unbounded boundary pulled in, or left out (probe.py).
    `cached`: members whose results came from the cache, probed when they were kept."""
    chosen = [i for i, (g, r) in enumerate(zip(plan.gens, results))
              if i not in cached and r.cases and probeable(g.contract, g.ctx.program)]
    if not chosen:
        return results
    out = list(results)
    bva = options.bva
    while chosen:
        got = probe(plan.path, [plan.gens[i].probe_tests(out[i]) for i in chosen],
                    [".".join(plan.gens[i].contract.module) for i in chosen if plan.gens[i].contract.module],
                    plan.inputs)
        if got.skipped:
            return [replace(r, diagnostics=r.diagnostics + (plan.gens[i].warning(got.skipped),)) if i in chosen else r
                    for i, r in enumerate(out)]
        slow = [i for i in chosen if any(tc.name in got.slow for tc in out[i].cases)]
        if not slow:
            return out
        if bva is None or bva <= 10:
            for i in slow:
                out[i] = plan.gens[i].without(out[i], got.slow)
            return out
        # again with the unbounded boundary pulled in tenfold, for these members only
        wide, bva = bva, bva // 10
        again = _run([MemberGeneration(plan.gens[i].contract, plan.gens[i].ctx, replace(options, bva=bva),
                                       plan.gens[i].factory) for i in slow], options)
        for i, r in zip(slow, again):
            r = r if isinstance(r, MemberResult) else plan.gens[i].failed(r)
            note = plan.gens[i].warning(f"boundary values at {bva} instead of {wide}: the contract could not be "
                                        f"evaluated within {PROBE_S:g} s at {wide}")
            out[i] = replace(r, diagnostics=r.diagnostics + (note,))
        chosen = [i for i in slow if out[i].cases]
    return out


@dataclass(frozen=True)
class _Plan:
    """One program of a generation run: its parse error, or a generation per selected member."""

    path: str
    error: Diagnostic | None
    gens: tuple["MemberGeneration", ...]
    loaded: LoadedProgram | None = None
    extern_code: tuple[str, ...] = ()  # the code of externs for the target, built with the program

    @property
    def inputs(self) -> tuple[str, ...]:
        return (*self.loaded.inputs, *self.extern_code) if self.loaded is not None else ()

    @staticmethod
    def of(path: str, options: GenerateOptions, factory: SolverFactory, sources: Sources | None = None,
           files: frozenset[str] | None = None) -> "_Plan":
        loaded = load_program(path, sources)
        if isinstance(loaded, Diagnostic):
            return _Plan(path, loaded, ())
        parsed = loaded.program
        ctx = EmitContext.of(parsed)
        # a lemma none of whose ensures a test can evaluate has nothing to be tested for, and one Dafny
        # takes on trust may be false in a program that verifies: both left out, as ghost members are,
        # rather than listed as unsupported in every report
        trusted = unproved_lemmas(parsed)
        contracts = [c for c in select(parsed, options.methods, options.unverified, files)
                     if not c.is_lemma or (c.short not in trusted and checks_of(c, ctx).ensures)]
        contracts = exported_only(parsed, contracts)
        contracts, extern_code = without_code(parsed, contracts, options.target, sources.base if sources else None)
        return _Plan(path, None, tuple(MemberGeneration(c, ctx, options, factory) for c in contracts), loaded,
                     extern_code)

    def assemble(self, members: Sequence["MemberResult"]) -> Generated:
        if self.error is not None or self.loaded is None:
            return Generated(self.path, "", (), {"methods": []}, tuple(d for d in (self.error,) if d is not None))
        members = _without_name_clashes(self.gens, members)
        tests = [t for m in members for t in m.tests]
        text = emit_file(self.path, modules_to_open([g.contract for g, m in zip(self.gens, members) if m.tests]),
                         tests)
        manifest = {"methods": [m.entry for m in members]}
        return Generated(self.path, text, tuple(tc for m in members for tc in m.cases), manifest,
                         self.loaded.diagnostics + tuple(d for m in members for d in m.diagnostics),
                         self.inputs, self.loaded.paths)


def _without_name_clashes(gens: Sequence["MemberGeneration"], members: Sequence["MemberResult"]) -> list["MemberResult"]:
    """Test names are injective by construction (emit.tests_file.member_tag); should two members still
    give one name (the same member selected twice, say), the later one is refused, never merged."""
    seen: dict[str, str] = {}
    out = []
    for g, m in zip(gens, members):
        clash = next((tc.name for tc in m.cases if tc.name in seen), None)
        if clash is not None:
            c = g.contract
            message = f"{c.name}: its test {clash} has the name of a test of {seen[clash]}"
            refusal = {"construct": "test name clash", "line": c.line, "message": message}
            m = MemberResult((), (), dict(m.entry, partitions=[], unsupported=[*m.entry["unsupported"], refusal]),
                             m.diagnostics + (Diagnostic(c.file, c.line, c.col, message, Severity.UNSUPPORTED,
                                                         "test name clash"),))
        seen.update({tc.name: g.contract.name for tc in m.cases})
        out.append(m)
    return out


def default_solver_factory(options: GenerateOptions) -> SolverFactory:
    def make(program: ast.Program, vars_: Sequence[tuple[str, ast.Type, bool]], member: Any) -> SolverLike:
        return Solver(program, list(vars_), timeout_s=options.timeout_s, length_limit=options.length_limit,
                      member=member, opaque_recursion=options.opaque_recursion)

    return make


@dataclass(frozen=True)
class MemberResult:
    """What one member's generation hands back (from a child process, so plain picklable values)."""

    tests: tuple[str, ...]
    cases: tuple[TestCase, ...]
    entry: dict
    diagnostics: tuple[Diagnostic, ...]


class MemberGeneration:
    """One member through the pipeline; collects its tests, cases, manifest entry and diagnostics."""

    def __init__(self, contract: Contract, ctx: EmitContext, options: GenerateOptions, factory: SolverFactory):
        self.contract = contract
        self.ctx = ctx
        self.options = options
        self.factory = factory
        self.tests: list[str] = []
        self.cases: list[TestCase] = []
        self.diagnostics: list[Diagnostic] = []
        self.timed_out = False  # out_of_time said so once
        self.states: list[PartitionState] = []  # partitions with their models, for the diverse scenarios
        self.report: Report = ignore_report  # hands the results so far to the parent process
        # a guess at the work, to start the costliest members first: contract text length follows the
        # generation time of the paper's members closely (torneo's 359 characters and 8 s lead both)
        self.cost = sum(len(cl.text) for cl in contract.clauses)
        self.entry: dict[str, Any] = {"name": contract.name, "file": contract.file, "line": contract.line,
                                      "kind": contract.kind, "body": not contract.body_missing,
                                      "partitions": [], "unsupported": [], "unchecked": [], "capped": False}
        if contract.instantiation:
            self.entry["instantiation"] = contract.instantiated()

    def unsupported(self, exc: Unsupported) -> None:
        line = exc.line or self.contract.line
        construct = exc.construct or exc.message
        self.entry["unsupported"].append({"construct": construct, "line": line, "message": exc.message})
        self.diagnostics.append(Diagnostic(self.contract.file, line, exc.col, exc.message, Severity.UNSUPPORTED,
                                           construct))

    def warn(self, message: str) -> None:
        self.diagnostics.append(self.warning(message))

    def warning(self, message: str) -> Diagnostic:
        return Diagnostic(self.contract.file, self.contract.line, self.contract.col,
                          f"{self.contract.name}: {message}", Severity.WARNING)

    def probe_tests(self, result: "MemberResult") -> list[tuple[TestCase, str]]:
        checks = checks_of(self.contract, self.ctx)
        return [(tc, probe_test(self.contract, tc, checks, self.ctx)) for tc in result.cases]

    def without(self, result: "MemberResult", slow: frozenset[str]) -> "MemberResult":
        """`result` without the tests whose checks could not be evaluated in time (by name)."""
        kept = [(t, tc) for t, tc in zip(result.tests, result.cases) if tc.name not in slow]
        dropped = sorted({tc.name for tc in result.cases} & slow)
        entry = dict(result.entry, partitions=[
            dict(p, scenarios=[dict(sc, test=None, status="slow-contract") if sc.get("test") in slow else sc
                               for sc in p["scenarios"]]) for p in result.entry["partitions"]])
        warning = self.warning(f"{len(dropped)} test{'s' * (len(dropped) != 1)} left out: the contract could not be "
                               f"evaluated within {PROBE_S:g} s on their inputs ({', '.join(dropped)})")
        return MemberResult(tuple(t for t, _ in kept), tuple(tc for _, tc in kept), entry,
                            result.diagnostics + (warning,))

    def result(self, report: Report = ignore_report) -> MemberResult:
        self.report = report
        self.run()
        return self.so_far()

    def so_far(self) -> MemberResult:
        # in partition order: diverse scenarios are solved after every partition's boundaries
        order = sorted(range(len(self.cases)), key=lambda i: (self.cases[i].partition, self.cases[i].scenario))
        return MemberResult(tuple(self.tests[i] for i in order), tuple(self.cases[i] for i in order), self.entry,
                            tuple(self.diagnostics))

    def failed(self, failed: Failed) -> MemberResult:
        """The result of a member whose child process gave no final result. With tests reported before it
        stopped, those stand, with a warning; without, the member is unsupported, with the reason."""
        c = self.contract
        partial = failed.partial
        if isinstance(partial, MemberResult) and partial.tests:
            entry = dict(partial.entry, stopped=failed.reason)
            warning = Diagnostic(c.file, c.line, c.col,
                                 f"{c.name}: generation did not finish ({failed.reason}); the {len(partial.tests)} "
                                 f"tests solved before that are kept, its later scenarios have none", Severity.WARNING)
            return MemberResult(partial.tests, partial.cases, entry, partial.diagnostics + (warning,))
        self.unsupported(Unsupported(f"solver failure ({failed.reason})", c.line, c.col,
                                     f"generation of {c.name} failed: {failed.reason}"))
        return self.so_far()

    def run(self) -> "MemberGeneration":
        c = self.contract
        try:
            checks = checks_of(c, self.ctx)
            self.entry["unchecked"] = [{"line": cl.line, "kind": cl.kind, "text": cl.text, "reason": why}
                                       for cl, why in checks.unchecked]
            if c.blocked:  # a reason no test can call it, not a construct we lack
                self.entry["blocked"] = c.blocked
                raise Unsupported(c.blocked.split(" (")[0], c.line, c.col, f"{c.name}: {c.blocked}")
            cannot = unbuildable(c)  # fail early when an object input cannot be made
            if cannot is not None:
                raise cannot
            for note in c.objects.notes:
                self.warn(note)
            if c.objects.unreachable:  # a reason, not a construct we lack: no test, and the user is told why
                for why in c.objects.unreachable:
                    self.warn(f"no test: {why}")
                return self
            solver = self.factory(self.ctx.program, [(v.name, v.type, v.is_output) for v in c.solver_vars], c.member)
            hidden = getattr(solver, "hidden_input_types", lambda: [])()
            if hidden:
                raise Unsupported(hidden[0], c.line, c.col, f"{c.name}: tests cannot construct an input of {hidden[0]}")
            # a lemma's ensures are what its tests check, not what its inputs are solved for: solving for
            # them too would leave no input exactly where the property is false
            usable, bad = check_clauses(self.lemma_requires(solver) if c.is_lemma else c.clauses, solver)
            for clause, exc in bad:
                self.unsupported(exc)
            if any(clause.kind == "requires" for clause, _ in bad):
                return self  # inputs could break an unencoded precondition: no trustworthy tests
            whole = tuple(cl.expr for cl in usable)
            for part in self.partitions(usable, solver):
                self.partition(part, solver, checks, whole)
            if self.options.bva is not None and self.options.diverse:
                # after every partition's boundaries, so that the budget is shared round robin
                diversify(c, self.states, self.ctx.types, solver,
                          lambda state, sc, constraints: self.diverse(state, sc, constraints, solver, checks, whole),
                          Functions.of(self.ctx.program), stop=lambda: self.out_of_time(solver))
        except Unsupported as exc:
            self.unsupported(exc)
        except Exception as exc:  # noqa: BLE001 - one member's failure must not stop the others
            if os.environ.get("DSPEC2TEST_DEBUG"):
                raise
            self.unsupported(Unsupported(f"internal error ({type(exc).__name__})", c.line, c.col,
                                         f"internal error while generating {c.name}: {exc}"))
        return self

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

    def partitions(self, usable: tuple[ContractClause, ...], solver: SolverLike) -> list[PartitionSpec]:
        """The partitions of the usable clauses; for an object built through a trait with several classes,
        those of each class (`this is C && ...`), numbered on."""
        c = self.contract
        out: list[PartitionSpec] = []
        defs = Definitions.of(self.ctx.program, c.module, self.ctx.types.decls.values())
        for choice in c.objects.class_choices():
            given = tuple(ContractClause("requires", e, c.line, print_expr(e)) for e in choice)
            res = partition(c, given + usable, solver, full=self.options.fdnf,
                            cap=max(1, self.options.max_partitions - len(out)), defs=defs)
            self.entry["capped"] = self.entry["capped"] or res.capped
            for message in res.messages:
                self.warn(message)
            self.cover(usable, given, res)
            n = len(given)
            out += [replace(p, id=len(out) + i, branches=p.branches[n:]) for i, p in enumerate(res.partitions, 1)]
        return out

    def cover(self, usable: tuple[ContractClause, ...], given: tuple[ContractClause, ...], res: Any) -> None:
        """Clause coverage in the manifest: each clause's branches, and the combinations found unsatisfiable
        (named by their literals; the lines of the clauses they combine)."""
        n = len(given)
        if "clauses" not in self.entry:
            self.entry["clauses"] = [
                {"kind": cl.kind, "line": cl.line, "text": cl.text,
                 "branches": [{"label": label, "vacuous": vac} for label, vac in zip(labels, vacuous)]}
                for cl, labels, vacuous in zip(usable, res.clause_branches[n:], res.vacuous[n:])]
            self.entry["unsatisfiable"] = []
        clauses = given + usable
        for path, label in res.unsat[:MAX_UNSAT_SHOWN - len(self.entry["unsatisfiable"])]:
            self.entry["unsatisfiable"].append(
                {"label": label, "clauses": sorted({clauses[i].line for i in range(n, len(path))})})
        if len(res.unsat) > MAX_UNSAT_SHOWN:
            self.entry["unsatisfiable_more"] = self.entry.get("unsatisfiable_more", 0) + len(res.unsat) - MAX_UNSAT_SHOWN

    def partition(self, part: PartitionSpec, solver: SolverLike, checks: Checks, whole: tuple[ast.Expr, ...]) -> None:
        c = self.contract
        implicit = [e for v in c.params for e in self.ctx.types.constraints(v.name, v.type)]
        constraint = print_expr(conj(part.literals + tuple(implicit)))
        out: dict[str, Any] = {"id": part.id, "label": part.label, "constraint": constraint,
                               "clauses": list(part.clause_lines), "status": part.status.lower(),
                               "branches": list(part.branches), "scenarios": []}
        self.entry["partitions"].append(out)  # now, so that a report made half way through shows it
        # the base scenario first: its model tells which BVA pins the partition allows or leaves open
        entry, model = self.scenario(part, base_scenario(part), solver, checks, whole, (), ())
        self.add(out, entry)
        models = [model]
        specs = []
        if self.options.bva is not None and model is not None and not self.out_of_time(solver):
            # (with no base input, each pin would only add to a query the solver already gave up on)
            specs = bva_scenarios(c, part, solver, self.ctx.types, self.options.bva, witness=model)[1:]
        for spec in specs:
            if self.out_of_time(solver):
                break
            # earlier scenarios' inputs are avoided where the pin allows: BVA pins alone leave them alike
            entry, model = self.scenario(part, spec, solver, checks, whole, (), tuple(m for m in models if m))
            self.add(out, entry)
            models.append(model)
        if self.options.bva is None and models[0] is not None:
            # --repeat: each further solution must differ from the previous ones in its inputs
            for k in range(2, self.options.repeat + 1):
                spec = ScenarioSpec(Scenario(part.id, k, ScenarioKind.REPEAT), part.literals)
                entry, model = self.scenario(part, spec, solver, checks, whole, tuple(models), ())
                if model is None:
                    break  # no further distinct input exists (or the solver gave up)
                self.add(out, entry)
                models.append(model)
        self.states.append(PartitionState(part, out, models))

    def diverse(self, state: PartitionState, sc: Scenario, constraints: tuple[ast.Expr, ...], solver: SolverLike,
                checks: Checks, whole: tuple[ast.Expr, ...]) -> Any:
        """One diverse scenario: recorded when the solver finds an input, dropped (silently) when not."""
        entry, model = self.scenario(state.part, ScenarioSpec(sc, constraints), solver, checks, whole, (),
                                     tuple(m for m in state.models if m is not None))
        if model is not None:
            self.add(state.entry, entry)
        return model

    def add(self, partition: dict, scenario: dict) -> None:
        partition["scenarios"].append(scenario)
        if scenario["test"] is not None:
            self.report(self.so_far())

    def out_of_time(self, solver: SolverLike) -> bool:
        """After MAX_TIMEOUTS queries of this member hit the time limit, it gets no more boundary scenarios
        (base scenarios still): on contracts Z3 cannot decide (recursive functions over sequences) each
        pin costs another full limit, and a pull request should not wait minutes for them."""
        if getattr(solver, "timeouts", 0) < MAX_TIMEOUTS:
            return False
        if not self.timed_out:
            self.timed_out = True
            self.warn(f"{MAX_TIMEOUTS} solver queries reached the time limit: no further boundary scenarios")
        return True

    def scenario(self, part: PartitionSpec, spec: ScenarioSpec, solver: SolverLike, checks: Checks,
                 whole: tuple[ast.Expr, ...], exclude: tuple[Any, ...],
                 avoid: tuple[Any, ...]) -> tuple[dict, Any]:
        c = self.contract
        sc = spec.scenario
        entry: dict[str, Any] = {"id": sc.id, "kind": sc.kind.value, "pin": sc.pin, "test": None,
                                 "inputs": {}, "outputs": {}, "unique": False, "status": "solved"}
        model = solver.solve(spec.constraints, exclude, relevant=part.literals, avoid=avoid)
        if model is None:
            status = result_name(getattr(solver, "status_of_last", "UNKNOWN")).lower()
            entry["status"] = "unsat" if status == "unsat" else "unknown"
            if sc.kind not in (ScenarioKind.REPEAT, ScenarioKind.DIVERSE):
                self.warn(f"partition {part.id} scenario {sc.id}: the solver found no input ({entry['status']})")
            return entry, None
        missing = [v.name for v in c.vars if v.name not in model.values]
        if missing:
            raise Unsupported(f"no value for {', '.join(missing)}", c.line, c.col)
        inputs = inputs_of(c, model.values, model.raw)
        same = next((i for i, t in enumerate(self.cases) if t.partition == part.id and t.inputs == inputs), None)
        if same is not None:
            # one test per input: a later scenario with the same inputs is carried by the earlier test
            earlier = self.cases[same]
            merged = replace(earlier, also=earlier.also + ((sc.id, sc.pin),))
            self.cases[same] = merged
            self.tests[same] = emit_test(c, merged, checks, self.ctx, self.options.simplify)
            entry.update(test=merged.name, same_as=earlier.scenario, inputs=dict(inputs),
                         outputs={v.name: model.values[v.name] for v in c.outputs}, unique=earlier.unique)
            return entry, model
        admits = getattr(solver, "admits", None)
        state = {v.name: pre_state_name(v.name) if v.name in c.pre_state else v.name for v in c.params}
        raw = {name: model.raw[key] for name, key in state.items() if key in model.raw}
        if admits is not None and admits(inputs, [cl.expr for cl in c.requires], raw) is False:
            # the literals a test would hold break a requires or a type constraint: never written
            entry.update(status="bad-input", inputs=inputs,
                         message="the solved inputs break a requires clause or a type constraint")
            self.warn(f"partition {part.id} scenario {sc.id}: the solved inputs break a requires clause or a type "
                      f"constraint; no test written")
            return entry, model
        entailed = getattr(solver, "state_entailed", None)
        if entailed is not None and not entailed([cl.expr for cl in c.requires], model):
            # the state an object's calls leave is not known to meet the requires: the test could break them
            entry.update(status="unknown", inputs=inputs,
                         message="the calls that make an object are not known to meet the requires")
            self.warn(f"partition {part.id} scenario {sc.id}: the constructor and method calls that make the "
                      f"object are not known by their ensures to meet the requires; no test written")
            return entry, None
        unique = bool(self.options.simplify and c.outputs and solver.outputs_unique(whole, model))
        tc = TestCase(name=test_name(c, part.id, sc.id), method=c.name, file=c.file, line=c.line,
                      partition=part.id, scenario=sc.id, label=part.label, kind=sc.kind, pin=sc.pin,
                      inputs=inputs, outputs={v.name: model.values[v.name] for v in c.outputs}, unique=unique,
                      clauses=part.clause_lines, instantiation=c.instantiated())
        tc = replace(tc, checks=checks_for(c, tc, checks, self.ctx, self.options.simplify))
        self.tests.append(emit_test(c, tc, checks, self.ctx, self.options.simplify))
        self.cases.append(tc)
        entry.update(test=tc.name, inputs=dict(tc.inputs), outputs=dict(tc.outputs), unique=unique)
        if getattr(model, "bounded", ""):
            entry["bounded"] = model.bounded  # found by the solver's bounded fallback, within this shape
        return entry, model

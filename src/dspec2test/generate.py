"""Front door of generation: program file -> partitions -> scenarios -> solved test cases -> tests text.

This module only wires the stages: it loads each program and selects its members (`_Plan`), runs the
members' generations (generation/member.py) in the rounds of generation/rounds.py, and assembles each
program's tests file and results. The manifest is their JSON (generation/manifest.py).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from dspec2test.emit.tests_file import EmitContext, checks_of, emit_file, modules_to_open, shadowing
from dspec2test.errors import Diagnostic, Severity
from dspec2test.gencache import Cache, keepable, member_key
from dspec2test.generation.manifest import manifest_of
from dspec2test.generation.member import MemberGeneration, SolverFactory, default_solver_factory
from dspec2test.generation.options import GenerateOptions
from dspec2test.generation.rounds import Outcome, probed, retried, run_members
from dspec2test.isolate import Failed
from dspec2test.dafny import ast
from dspec2test.model.contracts import select, select_unreadable, unproved_lemmas
from dspec2test.model.resolve import UNREADABLE
from dspec2test.model.exports import exported_only
from dspec2test.model.externs import without_code
from dspec2test.model.program import LoadedProgram, Sources, load_program
from dspec2test.records import Limitation, MemberResult, TestCase
from dspec2test.search.access import SearchAccess
from dspec2test.search.compiled import Compiled, compile_harness
from dspec2test.search.harness import Harness, harness_of
from dspec2test.testbuild import TestBuild, lift, lifted_view

__all__ = ["GenerateOptions", "Generated", "GenerationProgress", "SolverFactory", "default_solver_factory", "generate",
           "generate_all"]


@dataclass(frozen=True)
class Generated:
    program: str  # path of the program file
    tests_text: str  # the Dafny tests file (to be compiled together with the program)
    cases: tuple[TestCase, ...]
    members: tuple[MemberResult, ...]  # one per selected member, in the program's order
    diagnostics: tuple[Diagnostic, ...] = field(default_factory=tuple)  # parse errors, unsupported, caps
    inputs: tuple[str, ...] = ()  # what dafny builds beside the tests (the program, or its project file)
    files: tuple[str, ...] = ()  # every file of the program, as reports name them (the program first)
    cached: tuple[str, ...] = ()  # the members whose tests came from the cache (generation skipped)
    looked_up: int = 0  # the members looked up in the cache (0: no cache)
    # the contracts compiled for the search, while the folder given to generate lives (shrinking runs them)
    searched: Compiled | None = None
    build: TestBuild = TestBuild()  # what the tests compile against: the program, its ghost state compiled where it can be

    @property
    def manifest(self) -> dict[str, Any]:
        """The `generate --json` manifest (DESIGN.md section 5)."""
        return manifest_of(self.members)


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
             progress: GenerationProgress | None = None, search_folder: Path | None = None) -> Generated:
    """Parse `path`, then for every selected member: contract -> partitions -> scenarios -> solve -> emit.

    Never raises for bad input: a parse error comes back as a diagnostic with no tests; a member the
    engine cannot handle becomes `unsupported` refusals and diagnostics, and the others go on.
    """
    return generate_all((path,), options, solver_factory, files=(files,), progress=progress,
                        search_folder=search_folder)[0]


def generate_all(paths: Sequence[str], options: GenerateOptions = GenerateOptions(),
                 solver_factory: SolverFactory | None = None, sources: Sources | None = None,
                 files: Sequence[frozenset[str] | None] = (),
                 progress: GenerationProgress | None = None, search_folder: Path | None = None) -> list[Generated]:
    """`generate` for several programs, one result each in the order given. The members of all of them
    share one pool of `options.jobs` children: a program of one member no longer leaves a core idle
    while another program's five wait their turn. `files[i]`: the files of program i whose members are
    tested (None: its own file only); `sources`: files parsed already. `search_folder`: where the search
    compiles the contracts (kept by the caller; default: the cache folder, else a folder of this call's)."""
    with tempfile.TemporaryDirectory(prefix="dspec2test-search-") as scratch:
        # the search's compiled contracts, kept by program version (as the test build is): in the cache
        # folder, else in the temporary directory's; a scratch folder where neither can be written
        folder = search_folder or writable(search_cache(options.cache_dir))
        return _generate_all(paths, options, solver_factory, sources, files, progress, folder or Path(scratch))


def search_cache(cache_dir: str | None) -> Path:
    """Where the search's compiled contracts are kept between runs (a folder per program version)."""
    return (Path(cache_dir) if cache_dir else Path(tempfile.gettempdir()) / "dspec2test") / "search"


def writable(folder: Path) -> Path | None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".written"
        probe.write_text("")
        return folder
    except OSError:
        return None


def _generate_all(paths: Sequence[str], options: GenerateOptions, solver_factory: SolverFactory | None,
                  sources: Sources | None, files: Sequence[frozenset[str] | None],
                  progress: GenerationProgress | None, folder: Path) -> list[Generated]:
    factory = solver_factory or default_solver_factory(options)
    sources = sources or Sources()
    plans = [_Plan.of(path, options, factory, sources, files[i] if i < len(files) else None,
                      folder if options.search else None)
             for i, path in enumerate(paths)]
    gens = [g for plan in plans for g in plan.gens]
    cache = Cache(Path(options.cache_dir)) if options.cache_dir else None
    keys = [member_key(g.contract, g.ctx.program, options) for g in gens] if cache else []
    results: list[Outcome | None] = [None] * len(gens)
    for i, key in enumerate(keys):
        if cache is not None:
            results[i] = cache.load(key)
    hits = frozenset(i for i, r in enumerate(results) if r is not None)
    # the likely costliest first, so that the slowest member does not start last and run alone
    order = sorted((i for i in range(len(gens)) if i not in hits), key=lambda i: -gens[i].cost)
    heard = progress or _Quiet()
    heard.generating(len(order))
    ordered = [gens[i] for i in order]

    def done(k: int, result: Outcome, seconds: float) -> None:
        got = result.partial if isinstance(result, Failed) else result
        tests = len(got.cases) if isinstance(got, MemberResult) else 0
        heard.member_done(ordered[k].contract.name, tests, seconds, result.reason if isinstance(result, Failed) else None)

    for i, r in zip(order, run_members(ordered, options, done)):
        results[i] = r
    ran: list[Outcome] = [r for r in results if r is not None]
    assert len(ran) == len(gens)  # every member was either a cache hit or run
    if solver_factory is None:
        ran = retried(gens, ran, options)
    out, start = [], 0
    for plan in plans:
        span = range(start, start + len(plan.gens))
        mine = [r if isinstance(r, MemberResult) else g.failed(r) for g, r in zip(plan.gens, ran[span.start:span.stop])]
        if options.probe:
            mine = probed(plan.path, plan.gens, plan.inputs, mine, options,
                          frozenset(i - start for i in span if i in hits), plan.build)
        for i, m in zip(span, mine):
            if cache is not None and i not in hits and keepable(m):
                cache.store(keys[i], m)
        cached = tuple(plan.gens[i - start].contract.name for i in span if i in hits)
        out.append(replace(plan.assemble(mine), cached=cached, looked_up=len(span) if cache else 0))
        start += len(plan.gens)
    return out


@dataclass(frozen=True)
class _Plan:
    """One program of a generation run: its parse error, or a generation per selected member."""

    path: str
    error: Diagnostic | None
    gens: tuple[MemberGeneration, ...]
    loaded: LoadedProgram | None = None
    extern_code: tuple[str, ...] = ()  # the code of externs for the target, built with the program
    compiled: Compiled | None = None  # its contracts compiled for the search
    refused: tuple[MemberResult, ...] = ()  # the declarations the parser skipped: one refusal each
    build: TestBuild = TestBuild()

    @property
    def inputs(self) -> tuple[str, ...]:
        return (*self.loaded.inputs, *self.extern_code) if self.loaded is not None else ()

    @staticmethod
    def of(path: str, options: GenerateOptions, factory: SolverFactory, sources: Sources | None = None,
           files: frozenset[str] | None = None, search: Path | None = None) -> _Plan:
        """`search`: the folder to compile the program's contracts for the search in (None: no search)."""
        loaded = load_program(path, sources)
        if isinstance(loaded, Diagnostic):
            return _Plan(path, loaded, ())
        # the program as its tests will run it: ghost state compiled where Dafny accepts it (testbuild/), once
        # per program version
        build = lift(loaded, options.target, options.cache_dir) if options.test_build else TestBuild()
        parsed = lifted_view(loaded.program, build)
        ctx = EmitContext.of(parsed, tuple((k.short, k.reason) for k in build.kept))
        # a lemma none of whose ensures a test can evaluate has nothing to be tested for: left out, as ghost
        # members are, rather than listed as unsupported in every report; one Dafny takes on trust is tested
        # unless the options leave such lemmas out
        left_out = frozenset() if options.trusted_lemmas else unproved_lemmas(parsed)
        contracts = [c for c in select(parsed, options.methods, options.unverified, files)
                     if not c.is_lemma or (c.name not in left_out and checks_of(c, ctx).ensures)]
        contracts = exported_only(parsed, contracts)
        contracts, extern_code = without_code(parsed, contracts, options.target, sources.base if sources else None)
        compiled = _compiled(path, contracts, ctx, loaded, (*loaded.inputs, *extern_code), options, search, build) \
            if search is not None else None
        access = {} if compiled is None else {name: SearchAccess(compiled, entry)
                                              for name, entry in compiled.harness.entries.items()}
        refused = tuple(_refusal(name, d, parsed.path)
                        for name, d in select_unreadable(parsed, options.methods, options.unverified, files))
        return _Plan(path, None, tuple(MemberGeneration(c, ctx, options, factory, access.get(c.name))
                                       for c in contracts), loaded, extern_code, compiled, refused, build)

    def assemble(self, members: Sequence[MemberResult]) -> Generated:
        if self.error is not None or self.loaded is None:
            return Generated(self.path, "", (), (), tuple(d for d in (self.error,) if d is not None))
        members = _without_name_clashes(self.gens, members)
        if self.refused:  # in the program's order, among the members read
            order = {p: k for k, p in enumerate(self.loaded.paths)}
            members = sorted([*members, *self.refused], key=lambda m: (order.get(m.file, len(order)), m.line))
        tests = [t for m in members for t in m.tests]
        opened = modules_to_open([g.contract for g, m in zip(self.gens, members) if m.tests])
        text = emit_file(self.path, opened, tests, shadowing(opened, self.gens[0].ctx) if self.gens else frozenset(),
                         lifted=not self.build.as_written)
        warned = (self.build.warning,) if self.build.warning is not None else ()
        return Generated(self.path, text, tuple(tc for m in members for tc in m.cases), tuple(members),
                         self.loaded.diagnostics + warned + tuple(d for m in members for d in m.diagnostics),
                         self.inputs, self.loaded.paths, searched=self.compiled, build=self.build)


def _compiled(path: str, contracts: Sequence[Any], ctx: EmitContext, loaded: LoadedProgram, inputs: tuple[str, ...],
              options: GenerateOptions, folder: Path, build: TestBuild = TestBuild()) -> Compiled | None:
    """The program's contracts compiled for the search (None where they cannot be: the solver alone then),
    against its test build, whose ghost state the contracts may read."""
    if not contracts:
        return None
    unicode = loaded.project is None or str(loaded.project.option("unicode-char", "true")).lower() != "false"
    if not build.as_written:
        placed = build.place(folder / "testbuild" / build.key)
        inputs = tuple(placed.sources.get(str(Path(i).resolve()), i) for i in inputs)

    def make(dropped: frozenset[str]) -> Harness:
        return harness_of(path, [c for c in contracts if c.name not in dropped], ctx, options.fdnf)

    got = compile_harness(make, inputs, loaded.paths, folder, unicode)
    return got if isinstance(got, Compiled) else None


def _refusal(name: str, decl: ast.Unreadable, program: str) -> MemberResult:
    """The result of a declaration the parser skipped: no test, and why, at the place it could not read."""
    return MemberResult(name, decl.origin or program, decl.span.line, decl.kind or "declaration", False,
                        unsupported=(Limitation(UNREADABLE, decl.span.line, decl.reason),),
                        diagnostics=(refusal_diagnostic(decl, program),))


def refusal_diagnostic(decl: ast.Unreadable, program: str) -> Diagnostic:
    """A declaration the parser skipped, located where it could not read on."""
    return Diagnostic(decl.origin or program, decl.error_line, decl.error_col, decl.reason, Severity.UNSUPPORTED,
                      UNREADABLE)


def read_whole(diagnostics: Sequence[Diagnostic]) -> bool:
    """False when a declaration selected, or one a selected member needs, could not be read (dafny/recover.py
    skipped it): the rest is generated, run and reported, and the command line's exit says the input was not
    all read (2), as `parse` does, rather than all good."""
    return not any(d.construct == UNREADABLE for d in diagnostics)


def _without_name_clashes(gens: Sequence[MemberGeneration], members: Sequence[MemberResult]) -> list[MemberResult]:
    """Test names are injective by construction (emit.tests_file.member_tag); should two members still
    give one name (the same member selected twice, say), the later one is refused, never merged."""
    seen: dict[str, str] = {}
    out = []
    for g, m in zip(gens, members):
        clash = next((tc.name for tc in m.cases if tc.name in seen), None)
        if clash is not None:
            c = g.contract
            message = f"{c.name}: its test {clash} has the name of a test of {seen[clash]}"
            m = replace(m, tests=(), cases=(), partitions=(),
                        unsupported=m.unsupported + (Limitation("test name clash", c.line, message),),
                        diagnostics=m.diagnostics + (Diagnostic(c.file, c.line, c.col, message, Severity.UNSUPPORTED,
                                                                "test name clash"),))
        seen.update({tc.name: g.contract.name for tc in m.cases})
        out.append(m)
    return out

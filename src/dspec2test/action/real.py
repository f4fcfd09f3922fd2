"""The real pipeline: each target file generated, run and completed in process (pipeline.run_program),
with typed results. A failure inside one program is that program's internal error, reported for its
members (not-tested, with the reason), and the other programs are still tested.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from dspec2test.action.choose import relative
from dspec2test.action.pipeline import PipelineOptions, PipelineResult, Target
from dspec2test.errors import Diagnostic
from dspec2test.model.program import LoadedProgram, Sources, load_program
from dspec2test.pipeline import run_program
from dspec2test.records import TestCase, Verdict
from dspec2test.report.coverage import member_coverage
from dspec2test.report.terminal import render
from dspec2test.run import RunOptions
from dspec2test.strength.program import strength_of_file
from dspec2test.strength.records import Measured, MemberStrength


def real_pipeline(targets: Sequence[Target], options: PipelineOptions) -> PipelineResult:
    verdicts: list[Verdict] = []
    diagnostics: list[Diagnostic] = []
    reports: list[str] = []
    cached: list[str] = []
    looked_up = 0
    generation_s = execution_s = 0.0
    coverage: list[dict] = []
    strength: list[MemberStrength] = []
    run_options = RunOptions(target=options.target, timeout_s=options.timeout)
    broken: set[str] = set()  # programs Dafny could not build: their guests are tried in their own
    queue = programs_of(targets, options.root)
    while queue:
        group = queue.pop(0)
        path = options.root / group.root
        files = frozenset(str(options.root / t.file) for t in group.targets)
        methods = tuple(m for t in group.targets for m in t.methods)
        try:
            tested = run_program(str(path), replace(options.generate, methods=methods), run_options,
                                 progress=options.progress, files=files)
        except Exception as exc:  # noqa: BLE001 - one program's internal error must not stop the others
            reason = f"internal error: {type(exc).__name__}: {exc}"[:500]
            diagnostics += [Diagnostic(t.file, 0, 0, reason) for t in group.targets]
            continue
        guests = [t for t in group.targets if t.file != group.root]
        if tested.result.program_broken and guests:
            # a file that includes the guests does not build (it may need a file its project gives on the
            # command line): the guests' own programs may, so they are not condemned with it
            broken.add(group.root)
            queue[:0] = programs_of(guests, options.root, avoid=frozenset(broken))
            own = [t for t in group.targets if t.file == group.root]
            if not own:
                continue
            keep = {m for t in own for m in t.methods}
            tested = replace(tested, result=replace(tested.result, verdicts=tuple(
                v for v in tested.result.verdicts if v.method in keep)))
        result = replace(tested.result, program=group.root, verdicts=tuple(
            replace(v, file=relative(v.file, options.root), clause_file=relative(v.clause_file, options.root))
            for v in tested.result.verdicts))
        verdicts += result.verdicts
        cached += tested.cached
        looked_up += tested.looked_up
        diagnostics += [_relative(d, options.root) for d in tested.diagnostics + tested.result.build_errors
                                                  + tested.result.unbuilt]
        generation_s += tested.generation_s
        execution_s += result.wall_s
        reports.append(render(result, tested.generation_s, recap=False))  # the caller recaps all programs
        coverage += [dict(member_coverage(e, tested.result.verdicts), file=relative(e.get("file", ""), options.root))
                     for e in tested.manifest.get("methods", [])]
        measured = tuple(m for t in group.targets for m in t.methods
                         if options.strength_members is None or (t.file, m) in options.strength_members)
        if options.strength is not None and measured:
            strength += _strength(path, files, measured, tested.cases, options)
    return PipelineResult(tuple(verdicts), tuple(diagnostics), "".join(reports), generation_s=generation_s,
                          execution_s=execution_s, cached=tuple(cached), looked_up=looked_up,
                          coverage=tuple(coverage), strength=tuple(strength))


def _strength(path: Path, files: frozenset[str], methods: tuple[str, ...], cases: Sequence[TestCase],
              options: PipelineOptions) -> list[MemberStrength]:
    """Contract strength of the tested members, on the inputs their tests were given; an internal error
    is that program's, reported for its members, never a failed run."""
    assert options.strength is not None
    try:
        got = strength_of_file(str(path), options.strength, methods, options.generate, cases, files=files)
    except Exception as exc:  # noqa: BLE001 - strength is a warning; its failure must not stop the report
        return [MemberStrength(m, relative(str(path), options.root), 0, Measured.ERROR,
                               f"internal error: {type(exc).__name__}: {exc}"[:300]) for m in methods]
    if got.error is not None:
        return []
    return [replace(r, file=relative(r.file, options.root),
                    findings=tuple(replace(f, file=relative(f.file, options.root)) for f in r.findings))
            for r in got.members]


@dataclass
class ProgramGroup:
    """Targets whose members are tested in one program, built once: the program of `root`, which holds
    the files of all of them (a file and the files that include it, or one project's files)."""

    root: str
    files: frozenset[str]
    targets: list[Target] = field(default_factory=list)


def programs_of(targets: Sequence[Target], root: Path, avoid: frozenset[str] = frozenset()) -> list[ProgramGroup]:
    """The targets grouped by program: the largest programs first, and a target whose file is already in
    a chosen program tested there (not in one of `avoid`, programs that did not build)."""
    sources = Sources(base=root)
    sized = []
    for t in targets:
        loaded = load_program(t.file, sources, top=root)
        paths = frozenset(loaded.paths) if isinstance(loaded, LoadedProgram) else frozenset({t.file})
        sized.append((t, paths))
    groups: list[ProgramGroup] = []
    for t, paths in sorted(sized, key=lambda tp: (-len(tp[1]), tp[0].file)):
        host = next((g for g in groups if t.file in g.files and g.root not in avoid), None)
        if host is None:
            host = ProgramGroup(t.file, paths)
            groups.append(host)
        host.targets.append(t)
    order = {t.file: i for i, t in enumerate(targets)}
    return sorted(groups, key=lambda g: min(order[t.file] for t in g.targets))


def _relative(d: Diagnostic, root: Path) -> Diagnostic:
    return replace(d, file=relative(d.file, root))

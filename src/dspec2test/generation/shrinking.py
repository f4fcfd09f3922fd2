"""After a run: each finding's smallest failing input, shrunk on the implementation (search/shrink.py) to the
smallest input that still fails the same check in the same partition, becomes a test of its own (kind
`shrunk`), so the reports show `s = [0, 1]` first where the solver or the search had `s = [93, 96, 95, 94]`.

Only members the search can run (search/harness.py `searchable`), and findings that name a check of the
contract (failed) or a crash. The new tests are real tests: the caller runs them like the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from dspec2test.emit.tests_file import EmitContext, checks_of, emit_file, emit_test, modules_to_open, shadowing, \
    test_name, with_checks
from dspec2test.errors import Diagnostic
from dspec2test.generation.options import GenerateOptions
from dspec2test.model.contracts import Contract, select
from dspec2test.model.program import load_program
from dspec2test.model.resolve import Resolver, RType
from dspec2test.records import MemberResult, ScenarioKind, Status, TestCase, Verdict
from dspec2test.search.compiled import Compiled
from dspec2test.search.harness import Entry, searchable
from dspec2test.search.literals import value_of
from dspec2test.search.shrink import shrink, total_size
from dspec2test.search.worker import CRASHED, Worker, WorkerDied, descriptors
from dspec2test.solve.literal import literal
from dspec2test.solve.types import Types
from dspec2test.testbuild import TestBuild, lifted_view

MAX_SHRUNK = 12  # findings shrunk per program at most (each is a few seconds of running the implementation)


@dataclass(frozen=True)
class Shrunk:
    tests_text: str  # the new tests, a tests file of their own (the program's inputs build it)
    cases: tuple[TestCase, ...]


def shrunk_tests(path: str, members: Sequence[MemberResult], cases: Sequence[TestCase], verdicts: Sequence[Verdict],
                 options: GenerateOptions, compiled: Compiled, build: TestBuild = TestBuild()) -> Shrunk | None:
    """A test per finding (member, broken check, partition) whose failing input shrinks; None when none
    does. `compiled`: the program's contracts compiled for the search, as generation left them; `build`:
    the program's test build (the new tests read the ghost state it compiles, as the others do)."""
    by_name = {tc.name: tc for tc in cases}
    groups: dict[tuple[str, str, int], list[tuple[TestCase, int]]] = {}
    for v in verdicts:
        tc = by_name.get(v.test)
        if tc is None or v.status not in (Status.FAILED, Status.CRASHED):
            continue
        code = CRASHED if v.status is Status.CRASHED else _check_number(tc, v)
        if code is None:
            continue
        groups.setdefault((tc.method, str(code), tc.partition), []).append((tc, code))
    if not groups or not compiled.pydir.is_dir():
        return None
    loaded = load_program(path)
    if isinstance(loaded, Diagnostic):
        return None
    program = lifted_view(loaded.program, build)
    names = tuple(sorted({method for method, _, _ in groups}))
    files = frozenset(m.file for m in members) | {program.path}
    contracts = {c.name: c for c in select(program, names, None, files) if searchable(c)}
    if not contracts:
        return None
    ctx = EmitContext.of(program, tuple((k.short, k.reason) for k in build.kept))
    resolver = Resolver(program)
    types = Types(resolver, cap=options.length_limit)
    results = {m.name: m for m in members}
    taken: dict[tuple[str, int], int] = {}  # (member, partition) -> the highest scenario number in use
    for tc in cases:
        key = (tc.method, tc.partition)
        taken[key] = max(taken.get(key, 0), tc.scenario, *(s for s, _ in tc.also))
    out: list[tuple[Contract, TestCase]] = []
    with Worker(compiled.pydir, compiled.unicode) as worker:
        for (method, _, partition), failing in list(groups.items())[:MAX_SHRUNK]:
            c = contracts.get(method)
            entry = compiled.harness.entries.get(method)
            member = results.get(method)
            if c is None or entry is None or member is None:
                continue
            got = _shrunk_one(worker, compiled, entry, c, member, failing, resolver, types, taken)
            if got is not None:
                out.append((c, got))
    if not out:
        return None
    tests = []
    for c, tc in out:
        checks = checks_of(c, ctx)
        tc = with_checks(c, tc, checks, ctx, options.simplify)
        tests.append((tc, emit_test(c, tc, checks, ctx, options.simplify)))
    opened = modules_to_open([c for c, _ in out])
    text = emit_file(path, opened, [t for _, t in tests], shadowing(opened, ctx), lifted=not build.as_written)
    return Shrunk(text, tuple(tc for tc, _ in tests))


def _shrunk_one(worker: Worker, compiled: Compiled, entry: Entry, c: Contract, member: MemberResult,
                failing: list[tuple[TestCase, int]], resolver: Resolver, types: Types,
                taken: dict[tuple[str, int], int]) -> TestCase | None:
    scope = resolver.scope_of(c.member)
    subst = {name: resolver.rtype(t, scope) for name, t in c.instantiation}
    rtypes: dict[str, RType] = {v.name: resolver.rtype(v.type, scope, subst) for v in c.params}
    if c.objects.roots or not all(name in rtypes for name in entry.params):
        return None  # objects are made by calls, whose shrinking is a sequence's: not done here
    ordered = [rtypes[name] for name in entry.params]
    try:
        d = descriptors(ordered, compiled.harness.makers, resolver.ctor_fields, compiled.harness.classes)
    except (KeyError, ValueError):
        return None
    readable = []
    for tc, code in failing:
        values = tuple(value_of(tc.inputs.get(name, ""), rtypes[name], resolver.ctor_fields) for name in entry.params)
        if all(v is not None for v in values):
            readable.append((total_size(values), tc, code, values))
    if not readable:
        return None
    _, tc, code, start = min(readable, key=lambda r: (r[0], r[1].scenario))
    projections = _projections(entry, c, member, tc.partition)
    try:
        small = shrink(worker, entry, d, ordered, resolver.ctor_fields, start, code, projections)
    except WorkerDied:
        return None
    if total_size(small) >= total_size(start):
        return None
    key = (tc.method, tc.partition)
    taken[key] = taken.get(key, 0) + 1
    inputs = {name: literal(v, rtypes[name], types) for name, v in zip(entry.params, small)}
    return replace(tc, name=test_name(c, tc.partition, taken[key]), scenario=taken[key], kind=ScenarioKind.SHRUNK,
                   pin=None, inputs=inputs, outputs={}, unique=False, also=(), checks=())


def _check_number(tc: TestCase, v: Verdict) -> int | None:
    """The number of the check (`c7`: 7) a failed verdict names, where it is a check of the contract's own
    (not a concrete value only the solver knew for the original input)."""
    check = next((k for k in tc.checks if k.line == v.clause_line and " ".join(k.text.split()) == " ".join(
        (v.clause or "").split()) and k.kind.value in ("ensures", "property")), None)
    return int(check.id[1:]) if check is not None and check.id[1:].isdigit() else None


def _projections(entry: Entry, c: Contract, member: MemberResult, partition: int) -> tuple[str, ...]:
    """The harness's projections that hold in the partition: its branches of the clauses it was split on,
    matched to the contract's clauses by kind, line and text."""
    part = next((p for p in member.partitions if p.id == partition), None)
    if part is None or member.clauses is None:
        return ()
    index = {(cl.kind, cl.line, " ".join(cl.text.split())): i for i, cl in enumerate(c.clauses)}
    out: list[str] = []
    for clause, branch in zip(member.clauses, part.branches):
        i = index.get((clause.kind, clause.line, " ".join(clause.text.split())))
        row = entry.projections[i] if i is not None and i < len(entry.projections) else None
        if row is not None and branch < len(row) and row[branch] is not None:
            out.append(row[branch])  # type: ignore[arg-type]
    return tuple(out)

"""The rounds of a generation run over its members: each member in a child process of its own (a Z3 crash or
runaway costs that member only), then a second try for members the solver hung on with recursive
functions, then the tests whose contract cannot be evaluated in time generated again with the unbounded
boundary pulled in, or left out.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from dataclasses import replace

from dspec2test.generation.member import MemberGeneration, default_solver_factory
from dspec2test.generation.options import GenerateOptions
from dspec2test.isolate import ChildLimits, Done, Failed, Report, ignore_done, ignore_report, run_isolated
from dspec2test.probe import PROBE_S, probe, probeable, reaches_recursion
from dspec2test.records import MemberResult
from dspec2test.solve import fresh_z3
from dspec2test.testbuild import TestBuild

RETRY_S = 40.0  # wall limit of the second try of a member the solver hung on

Outcome = MemberResult | Failed  # what a member's child process gave: its result, or why it stopped


def run_members(gens: Sequence[MemberGeneration], options: GenerateOptions, done: Done = ignore_done) -> list[Outcome]:
    """Each member's outcome, in order; `done` hears of each as it ends (for a progress display)."""
    if options.isolate:
        jobs = [functools.partial(_afresh, g) for g in gens]
        return run_isolated(jobs, options.jobs, ChildLimits(wall_s=options.member_timeout_s), done)
    out: list[Outcome] = []
    for k, g in enumerate(gens):
        start = time.monotonic()
        out.append(g.result(ignore_report))
        done(k, out[-1], time.monotonic() - start)
    return out


def _afresh(gen: MemberGeneration, report: Report) -> MemberResult:
    """In a member's child process: Z3 starts afresh, so that its tests do not depend on what the parent
    solved before it forked (same tests for a file alone, in a batch, or after other work)."""
    fresh_z3()
    return gen.result(report)


def retried(gens: Sequence[MemberGeneration], results: list[Outcome], options: GenerateOptions) -> list[Outcome]:
    """Members stopped before any test whose contract reaches a recursive function, generated once more
    with recursive functions left open to the solver: its inputs then meet every clause but those calls,
    and the tests still check every clause at run time. Where a requires or an input's type calls one,
    an input could break it: a test is written only for literals shown to meet them (computed)."""
    if options.opaque_recursion or options.requires_only_inputs:
        return results
    results = _unreached(gens, results, options)
    again = [i for i, (g, r) in enumerate(zip(gens, results))
             if isinstance(r, Failed) and not (isinstance(r.partial, MemberResult) and r.partial.tests)
             and reaches_recursion(g.contract, g.ctx.program)]
    if not again:
        return results
    # no concrete expected values (--simplify): the outputs of a model with open functions mean nothing
    opts = replace(options, opaque_recursion=True, simplify=False,
                   member_timeout_s=min(options.member_timeout_s, RETRY_S))
    strict = replace(opts, strict_admission=True)
    factory = default_solver_factory(opts)
    out = list(results)
    members = [MemberGeneration(gens[i].contract, gens[i].ctx,
                                strict if reaches_recursion(gens[i].contract, gens[i].ctx.program,
                                                            frozenset({"requires"})) else opts, factory,
                                gens[i].search)
               for i in again]
    for i, r in zip(again, run_members(members, opts)):
        first = results[i]
        if isinstance(r, MemberResult) and r.tests and isinstance(first, Failed):
            note = gens[i].warning(f"the solver did not finish with its recursive functions ({first.reason}); its "
                                   f"inputs were solved with those left open, so a scenario may not be in the "
                                   f"partition it is labelled with; every clause is still checked")
            out[i] = replace(r, opaque_recursion=True, diagnostics=r.diagnostics + (note,))
    return out


def _unreached(gens: Sequence[MemberGeneration], results: list[Outcome], options: GenerateOptions) -> list[Outcome]:
    """Members stopped in the probe of their inputs' reach (Z3 did not stop: the refusal came ahead, see
    MemberGeneration.pending), generated once more with their large inputs built from their witnesses
    solving only what the requires read, as they would have been had the probe said no in time."""
    again = [i for i, r in enumerate(results) if isinstance(r, Failed) and isinstance(r.partial, MemberResult)
             and r.partial.stopped and not r.partial.tests]
    if not again:
        return results
    opts = replace(options, requires_only_inputs=True, member_timeout_s=min(options.member_timeout_s, RETRY_S))
    out = list(results)
    for i, r in zip(again, run_members([MemberGeneration(gens[i].contract, gens[i].ctx, opts, gens[i].factory,
                                                         gens[i].search) for i in again], opts)):
        if isinstance(r, MemberResult) and r.tests:
            out[i] = r
    return out


def probed(path: str, gens: Sequence[MemberGeneration], inputs: tuple[str, ...], results: list[MemberResult],
           options: GenerateOptions, cached: frozenset[int] = frozenset(),
           build: TestBuild = TestBuild()) -> list[MemberResult]:
    """The members (of the program at `path`, built with `inputs`) whose contract reaches a recursive
    function, with tests whose checks cannot be evaluated in time generated again with the unbounded
    boundary pulled in, or left out (probe.py). `cached`: members whose results came from the cache,
    probed when they were kept."""
    chosen = [i for i, (g, r) in enumerate(zip(gens, results))
              if i not in cached and r.cases and probeable(g.contract, g.ctx.program)]
    if not chosen:
        return results
    out = list(results)
    bva = options.bva
    while chosen:
        got = probe(path, [gens[i].probe_tests(out[i]) for i in chosen],
                    [".".join(gens[i].contract.module) for i in chosen if gens[i].contract.module], inputs, build)
        if got.skipped:
            return [replace(r, diagnostics=r.diagnostics + (gens[i].warning(got.skipped),)) if i in chosen else r
                    for i, r in enumerate(out)]
        slow = [i for i in chosen if any(tc.name in got.slow for tc in out[i].cases)]
        if not slow:
            return out
        if bva is None or bva <= 10:
            for i in slow:
                out[i] = gens[i].without(out[i], got.slow)
            return out
        # again with the unbounded boundary pulled in tenfold, for these members only
        wide, bva = bva, bva // 10
        again = run_members([MemberGeneration(gens[i].contract, gens[i].ctx, replace(options, bva=bva),
                                              gens[i].factory, gens[i].search) for i in slow], options)
        for i, r in zip(slow, again):
            result = r if isinstance(r, MemberResult) else gens[i].failed(r)
            note = gens[i].warning(f"boundary values at {bva} instead of {wide}: the contract could not be "
                                   f"evaluated within {PROBE_S:g} s at {wide}")
            out[i] = replace(result, diagnostics=result.diagnostics + (note,))
        chosen = [i for i in slow if out[i].cases]
    return out

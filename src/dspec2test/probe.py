"""Oracle probes: a test is worth writing only if its contract can be evaluated in time on its inputs.

A contract that calls a recursive function (a naive `Fib(n)`, say) can make a boundary pin such as
`n == 100` a test whose oracle never finishes, whatever the implementation does. So after generation,
each member whose contract reaches a recursive function has its tests' checks run once on the values
the solver found, with no implementation involved (the solved outputs stand in for the call), under a
short limit on the Python target. A member with a test that does not finish (or overflows the stack)
is generated again with the unbounded boundary pulled in tenfold; tests that are still too slow then are
left out, with a warning. Where dafny is missing the probe is skipped, with a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_type
from dspec2test.emit.tests_file import Checks, EmitContext, emit_file, emit_test
from dspec2test.model.contracts import Contract, is_array_type, iter_members
from dspec2test.model.walk import called_names
from dspec2test.records import Status, TestCase
from dspec2test.run import RunOptions, run_tests

PROBE_WALL_S = 30.0  # per test
PROBE_S = 2.0  # CPU seconds a test's checks may take on the Python target


def reaches_recursion(contract: Contract, program: ast.Program, kinds: frozenset[str] | None = None) -> bool:
    """Whether the contract (its clauses of `kinds`, default all) calls, directly or through other
    functions, a function that calls itself (or is part of a cycle of calls)."""
    bodies = {f.name: f.body for _, f in iter_members(program.decls)
              if isinstance(f, ast.Function) and f.body is not None}
    calls = {name: called_names(body) & set(bodies) for name, body in bodies.items()}
    clauses = [c for c in contract.clauses if kinds is None or c.kind in kinds]
    start = set().union(*(called_names(c.expr) for c in clauses)) & set(bodies) if clauses else set()
    for root in start:
        seen: set[str] = set()
        stack = list(calls[root])
        while stack:
            name = stack.pop()
            if name == root:
                return True
            if name not in seen:
                seen.add(name)
                stack += calls.get(name, ())
    return False


def probeable(contract: Contract, program: ast.Program) -> bool:
    """Members whose tests a probe can stand in for: static, modifying nothing, with no objects or arrays
    among the outputs (no literal stands in for them: such a probe does not build, and its tests were
    left out as if slow), with a recursive contract."""
    return contract.is_static and not contract.pre_state and not contract.objects.roots \
        and not contract.objects.elements and not any(is_array_type(v.type) for v in contract.outputs) \
        and reaches_recursion(contract, program)


def probe_test(contract: Contract, tc: TestCase, checks: Checks, ctx: EmitContext) -> str:
    """The test of `tc` with the call replaced by the outputs the solver found."""
    # the type named in full from the member's module, as the test's inputs are (`Writers.Writer` opened there)
    scope = ctx.names.scope(contract.member)
    assigned = [f"var {v.name}: {print_type(ctx.names.type(v.type, scope))} := {tc.outputs[v.name]};"
                for v in contract.outputs if v.name in tc.outputs]
    return emit_test(contract, tc, checks, ctx, False, instead_of_call=assigned)


@dataclass(frozen=True)
class ProbeResult:
    slow: frozenset[str]  # names of the tests whose checks did not finish in time
    skipped: str = ""  # why nothing was probed, when so


def probe(program: str, members: Sequence[Sequence[tuple[TestCase, str]]], modules: Iterable[str],
          inputs: Sequence[str] = ()) -> ProbeResult:
    """Run the probe tests ((TestCase, probe text) per member) against the program at `program` (built
    from `inputs` when that is not the program file alone)."""
    tests = [t for member in members for t in member]
    if not tests:
        return ProbeResult(frozenset())
    text = emit_file(program, sorted(set(modules)), [t for _, t in tests])
    # judged by the processor time a test takes: on a busy machine the clock ran out on the probe of a
    # contract that takes milliseconds, and good tests were left out; the clock is only a backstop
    # each probe is judged on its own: the hang rule's short limits are for implementations that loop
    options = RunOptions(target="py", timeout_s=PROBE_WALL_S, cpu_s=PROBE_S, hang_rule=False)
    result = run_tests(program, text, [tc for tc, _ in tests], options, inputs=inputs)
    if result.build_errors or not result.ran:
        why = result.build_errors[0].render() if result.build_errors else result.verdicts[0].message
        return ProbeResult(frozenset(), f"the contracts' evaluation was not measured ({why})")
    # only a probe that ran can be slow: one that did not build (dafny refused to start under a memory
    # cap, say) says nothing of the contract, and its test is kept
    slow = {v.test for v in result.verdicts
            if v.test in result.ran and v.status in (Status.NOT_TESTED, Status.CRASHED, Status.TIMEOUT)}
    return ProbeResult(frozenset(slow))

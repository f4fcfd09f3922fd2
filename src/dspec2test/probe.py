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
from dspec2test.testbuild import TestBuild

PROBE_WALL_S = 30.0  # per test
PROBE_S = 2.0  # CPU seconds a test's checks may take on the Python target


def reaches_recursion(contract: Contract, program: ast.Program, kinds: frozenset[str] | None = None) -> bool:
    """Whether the contract (its clauses of `kinds`, default all; its inputs' type constraints count as
    requires) calls, directly or through other functions, a function that calls itself (or is part of a
    cycle of calls)."""
    bodies, refined = {}, {}
    for _, d in iter_members(program.decls):
        if isinstance(d, ast.Function) and d.body is not None:
            bodies[d.name] = d.body
        elif isinstance(d, (ast.SubsetType, ast.Newtype)) and d.constraint is not None:
            refined[d.name] = d
    calls = {name: called_names(body) & set(bodies) for name, body in bodies.items()}
    clauses = [c for c in contract.clauses if kinds is None or c.kind in kinds]
    start = set().union(*(called_names(c.expr) for c in clauses)) & set(bodies) if clauses else set()
    if kinds is None or "requires" in kinds:
        start |= _constraint_calls([v.type for v in contract.params], refined) & set(bodies)
    reached: set[str] = set()
    stack = list(start)
    while stack:
        name = stack.pop()
        if name not in reached:
            reached.add(name)
            stack += calls[name]
    return any(_in_cycle(name, calls) for name in reached)


def _in_cycle(root: str, calls: dict[str, set[str]]) -> bool:
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


def _constraint_calls(types: Iterable[ast.Type], refined: dict[str, ast.SubsetType | ast.Newtype]) -> set[str]:
    """The functions the constraints of these types (and of the types they refine) call."""
    out: set[str] = set()
    seen: set[str] = set()
    todo = list(types)
    while todo:
        for node in ast.preorder(todo.pop()):
            name = node.name.split(".")[-1] if isinstance(node, ast.NamedType) else None
            if name is not None and name in refined and name not in seen:
                seen.add(name)
                decl = refined[name]
                out |= called_names(decl.constraint) if decl.constraint is not None else set()
                todo.append(decl.base)
    return out


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
          inputs: Sequence[str] = (), build: TestBuild = TestBuild()) -> ProbeResult:
    """Run the probe tests ((TestCase, probe text) per member) against the program at `program` (built
    from `inputs` when that is not the program file alone, as its test `build` has it)."""
    tests = [t for member in members for t in member]
    if not tests:
        return ProbeResult(frozenset())
    text = emit_file(program, sorted(set(modules)), [t for _, t in tests])
    # judged by the processor time a test takes: on a busy machine the clock ran out on the probe of a
    # contract that takes milliseconds, and good tests were left out; the clock is only a backstop
    # each probe is judged on its own: the hang rule's short limits are for implementations that loop
    options = RunOptions(target="py", timeout_s=PROBE_WALL_S, cpu_s=PROBE_S, hang_rule=False)
    result = run_tests(program, text, [tc for tc, _ in tests], options, inputs=inputs, build=build)
    if result.build_errors or result.unbuilt or not result.ran:
        # (a program that builds only with members routed around: a check that reaches one halts, and
        # would read as slow)
        why = (result.build_errors or result.unbuilt)[0].render() if result.build_errors or result.unbuilt \
            else result.verdicts[0].message
        return ProbeResult(frozenset(), f"the contracts' evaluation was not measured ({why})")
    # only a probe that ran can be slow: one that did not build (dafny refused to start under a memory
    # cap, say) says nothing of the contract, and its test is kept
    slow = {v.test for v in result.verdicts
            if v.test in result.ran and v.status in (Status.NOT_TESTED, Status.CRASHED, Status.TIMEOUT)}
    return ProbeResult(frozenset(slow))

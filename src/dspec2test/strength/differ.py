"""Whether a verified mutant computes something else: the member, its unchanged copy and each surviving
mutant's copy run on the same inputs, in one build of one program.

The inputs are the spec tests' (TestCases the generator solved from the contract). Each input gets one
test per copy, emitted by the ordinary test emitter against the copy's contract (the member's, renamed),
printing every output and the arrays the member changes in place. An input on which the unchanged copy
and the member disagree is nondeterministic (a `:|` choice, an order of iteration) and is compared for
nothing; on the others, a mutant whose outputs differ from the member's is a real difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dspec2test.emit.tests_file import EmitContext, checks_for, checks_of, emit_file, emit_test, modules_to_open
from dspec2test.errors import Diagnostic
from dspec2test.model.contracts import Contract, select
from dspec2test.model.program import load_program
from dspec2test.records import Status, TestCase, Verdict
from dspec2test.run import RunOptions, run_tests
from dspec2test.strength.copies import CONTROL, copy_name

ORIGINAL = -1  # the member itself, beside its copies
CPU_S = 3.0  # CPU seconds per test: a mutant that verifies ends, but may take far longer than the member


@dataclass(frozen=True)
class Difference:
    """The first input on which a mutant's outputs differ from the member's."""

    mutant: int
    test: str  # the spec test whose input it is
    inputs: dict[str, str]
    original: dict[str, str]  # output -> value printed ("crashed: ..." when it did not return)
    mutated: dict[str, str]
    partition: int = 0
    label: str = ""
    inputs_differing: int = 1  # how many of the inputs compared showed a difference


@dataclass(frozen=True)
class Compared:
    differences: dict[int, Difference]  # by mutant id
    same: tuple[int, ...]  # mutants with the member's outputs on every input compared
    inputs: int  # inputs compared (deterministic ones)
    nondeterministic: int  # inputs left out: the unchanged copy disagreed with the member
    error: str = ""  # why no comparison could be made (the program with the copies did not build)
    wall_s: float = 0.0


def compare(copies_path: Path, qualified: str, survivors: Sequence[int], cases: Sequence[TestCase],
            timeout_s: float, compile_timeout_s: float) -> Compared:
    """Run the member `qualified`, its control and the copies of `survivors` (in the program at
    `copies_path`) on the inputs of `cases`, and compare their outputs."""
    loaded = load_program(str(copies_path), use_project=False)
    if isinstance(loaded, Diagnostic):
        return Compared({}, (), 0, 0, f"the program with the mutants does not parse: {loaded.render()}")
    program = loaded.program
    ctx = EmitContext.of(program)
    keys = [ORIGINAL, CONTROL, *survivors]
    contracts: dict[int, Contract] = {}
    prefix, _, short = qualified.rpartition(".")
    for key in keys:
        name = qualified if key == ORIGINAL else (f"{prefix}." if prefix else "") + copy_name(short, key)
        found = select(program, (name,), files=frozenset({program.path}))
        if not found:
            return Compared({}, (), 0, 0, f"internal error: no copy {name} in the program with the mutants")
        contracts[key] = found[0]
    tests, run_cases, named = [], [], {}
    for key, contract in contracts.items():
        checks = checks_of(contract, ctx)
        for tc in cases:
            mine = replace(tc, name=_test_name(tc.name, key), method=contract.name, file=program.path)
            # what it prints is compared, not judged: a test with no clause to check still shows its outputs
            mine = replace(mine, checks=checks_for(contract, mine, checks, ctx, False), unchecked=0, unchecked_first="")
            tests.append(emit_test(contract, mine, checks, ctx, False, observe=True))
            run_cases.append(mine)
            named[(tc.name, key)] = mine.name
    text = emit_file(str(copies_path), modules_to_open(list(contracts.values())), tests)
    result = run_tests(copies_path, text, run_cases,
                       RunOptions(target="py", timeout_s=timeout_s, cpu_s=CPU_S, compile_timeout_s=compile_timeout_s),
                       inputs=loaded.inputs)
    if result.build_errors or result.program_broken:
        first = result.build_errors[0].render() if result.build_errors else "the build failed"
        return Compared({}, (), 0, 0, f"the program with the mutants does not build: {first}", result.wall_s)
    verdicts = {v.test: v for v in result.verdicts}
    differences: dict[int, Difference] = {}
    counts: dict[int, int] = {}
    compared = skipped = 0
    for tc in cases:
        original = _seen(verdicts.get(named[(tc.name, ORIGINAL)]), result.outputs.get(named[(tc.name, ORIGINAL)]))
        control = _seen(verdicts.get(named[(tc.name, CONTROL)]), result.outputs.get(named[(tc.name, CONTROL)]))
        if original is None:
            continue  # the member itself gave no answer on this input (bad input, not run)
        if control != original:
            skipped += 1
            continue
        compared += 1
        for key in survivors:
            mutated = _seen(verdicts.get(named[(tc.name, key)]), result.outputs.get(named[(tc.name, key)]))
            if mutated is None or mutated == original:
                continue
            counts[key] = counts.get(key, 0) + 1
            if key not in differences:
                differences[key] = Difference(key, tc.name, dict(tc.inputs), original, mutated, tc.partition, tc.label)
    differences = {k: replace(d, inputs_differing=counts[k]) for k, d in differences.items()}
    same = tuple(k for k in survivors if k not in differences)
    return Compared(differences, same, compared, skipped, wall_s=result.wall_s)


def _test_name(name: str, key: int) -> str:
    return name if key == ORIGINAL else f"{name}_k{key}"


def _seen(verdict: Verdict | None, outputs: dict[str, str] | None) -> dict[str, str] | None:
    """What a test showed of its member: the outputs printed after a normal return, else how it ended.
    None when the member was never called (our input was bad, the test did not run)."""
    if verdict is None or verdict.status in (Status.BAD_INPUT, Status.NOT_TESTED, Status.NO_IMPLEMENTATION,
                                             Status.TIMEOUT):
        return None  # a mutant that is only slower (it verifies, so it ends) computes nothing else
    if verdict.status is Status.CRASHED:
        return {"(end)": verdict.status.value}  # how it failed, not the message (which names temp files)
    return dict(outputs or {})

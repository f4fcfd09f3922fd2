"""Contract strength of the members of one program file: their spec tests' inputs from the generator,
then each member through the engine, one after the other (each uses every core while it verifies)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from dspec2test.errors import Diagnostic
from dspec2test.generate import GenerateOptions, generate, refusal_diagnostic
from dspec2test.model.contracts import Contract, select, select_unreadable
from dspec2test.model.program import load_program
from dspec2test.records import TestCase
from dspec2test.strength.engine import StrengthOptions, measure, unmeasurable
from dspec2test.strength.records import MemberStrength

MORE_INPUTS = 3  # solutions per partition asked for when the spec tests' inputs tell no survivor apart


@dataclass(frozen=True)
class FileStrength:
    path: str
    members: tuple[MemberStrength, ...]
    error: Diagnostic | None = None  # the file does not parse
    generate_s: float = 0.0
    skipped: tuple[Diagnostic, ...] = ()  # the selected declarations the parser skipped: nothing measured of them


def strength_of_file(path: str, options: StrengthOptions, members: Sequence[str] = (),
                     generation: GenerateOptions = GenerateOptions(bva=100),
                     cases: Sequence[TestCase] | None = None,
                     progress: Callable[[MemberStrength], None] | None = None,
                     files: frozenset[str] | None = None) -> FileStrength:
    """The strength of the members of `path` (those named in `members`, else every member with a contract
    that has code). `cases`: the spec tests already generated for them (else they are generated here with
    `generation`). `files`: the files of the program whose members are measured (None: `path` itself)."""
    loaded = load_program(path)
    if isinstance(loaded, Diagnostic):
        return FileStrength(path, (), loaded)
    contracts = select(loaded.program, tuple(members), files=files)
    measurable = [c for c in contracts if not unmeasurable(c)]
    generate_s = 0.0
    if cases is None:
        t0 = time.monotonic()
        generated = generate(path, replace(generation, methods=tuple(c.name for c in measurable)),
                             files=files) if measurable else None
        cases = generated.cases if generated is not None else ()
        generate_s = round(time.monotonic() - t0, 2)
    out = []
    for contract in contracts:
        mine = [tc for tc in cases if tc.method == contract.name]
        more = _more_inputs(path, contract, generation, files)
        result = measure(loaded, contract, mine, options, more)
        out.append(result)
        if progress is not None:
            progress(result)
    skipped = tuple(refusal_diagnostic(d, loaded.program.path)
                    for _, d in select_unreadable(loaded.program, tuple(members), files=files))
    return FileStrength(path, tuple(out), generate_s=generate_s, skipped=skipped)


def _more_inputs(path: str, contract: Contract, generation: GenerateOptions,
                 files: frozenset[str] | None) -> Callable[[], Sequence[TestCase]]:
    """Further inputs of the member's partitions: several solutions per partition, not its boundaries."""
    def more() -> Sequence[TestCase]:
        options = replace(generation, methods=(contract.name,), bva=None, repeat=MORE_INPUTS, probe=False,
                          member_timeout_s=min(generation.member_timeout_s, 30.0))
        return generate(path, options, files=files).cases

    return more

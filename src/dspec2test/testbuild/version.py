"""Another version of a program file (a benchmark's mutant) lifted as its test build lifts the original:
the same declarations, found by name in the version's own parse, so the tests generated from the
original build against it."""

from __future__ import annotations

from dataclasses import replace

from dspec2test.dafny.parser import parse_program
from dspec2test.errors import DspecError
from dspec2test.model.refine import stamped
from dspec2test.testbuild.edits import edited
from dspec2test.testbuild.record import TestBuild
from dspec2test.testbuild.sites import sites_of


def lifted_text(text: str, path: str, build: TestBuild, function_syntax: int = 4) -> str:
    """`text` (a version of the file `path`) with the declarations `build` lifted made compiled; as it is
    when nothing is lifted or it does not parse (its build then says what is wrong)."""
    if not build.lifted:
        return text
    try:
        program = parse_program(text, path)
    except DspecError:
        return text
    program = replace(program, decls=stamped(program.decls, path, function_syntax))
    chosen = [s for s in sites_of(program, function_syntax) if set(s.names) <= build.lifted]
    return edited(text, chosen)

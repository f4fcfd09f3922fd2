"""What can still run when program and tests do not build: the decisions `run` and the bench share.

Two kinds of build error leave the rest of the tests runnable. Errors in the program's own members (a
member without a body, compiled code that calls a ghost function, a construct the target refuses, a type
error in a body) make those members faults: the test build routes around them (run/stubs.py) and tries
again, a bounded number of times, while each round finds new faults. Errors inside some of our generated
tests take those tests out, each with its error. Any other error (in a type's declaration, outside every
member) stops the build for every test.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from dspec2test.dafny import ast
from dspec2test.dafny.parser import parse_program
from dspec2test.emit.metadata import test_blocks
from dspec2test.errors import Diagnostic, DspecError
from dspec2test.run.diagnostics import no_body_member
from dspec2test.run.stubs import Fault, Member, Repair, members

MAX_REPAIR_ROUNDS = 8  # builds spent finding faults (Dafny's compiler reports one error at a time)


def faults_of(errors: Sequence[Diagnostic], sources: Mapping[str, str], known: Sequence[Fault]) -> tuple[Fault, ...] | None:
    """`known` and the faults these build errors add: the member each error in one of the program's files
    lies in (`sources`: file as the errors name it -> its text as built), or, for a member already routed
    around and still at fault, the next repair. Errors elsewhere (in the tests) are not looked at. None
    when nothing new is found, or some error in the program is where no repair reaches."""
    found = {f.member: f for f in known}
    new = False
    parsed: dict[str, ast.Program | None] = {}
    for d in errors:
        if d.file not in sources:
            continue
        if d.file not in parsed:
            parsed[d.file] = _parsed(sources[d.file], d.file)
        program = parsed[d.file]
        at = member_at(program, d.line, d.col) if program is not None else None
        if at is None:
            return None
        name, _ = at
        prior = found.get(name)
        if prior is None:
            found[name] = Fault(name, None if no_body_member(d) else d, Repair.STUB, d.file)
            new = True
        elif prior in known:
            # routed around, and still at fault: ghost is the last resort
            if prior.repair is Repair.GHOST:
                return None
            found[name] = replace(prior, repair=Repair.GHOST)
            new = True
    return tuple(found.values()) if new else None


def member_at(program: ast.Program, line: int, col: int) -> tuple[str, Member] | None:
    """The member whose declaration holds the position (line, col), with its qualified name."""
    for name, m in members(program):
        s = m.span
        if (s.line, s.col) <= (line, col) <= (s.end_line, s.end_col):
            return name, m
    return None


def _parsed(text: str, path: str) -> ast.Program | None:
    try:
        return parse_program(text, path)
    except DspecError:
        return None


def broken_tests(errors: tuple[Diagnostic, ...], tests_text: str, tests_files: Collection[str],
                 pending: Collection[str]) -> dict[str, Diagnostic] | None:
    """When every build error lies inside some of our pending tests (in a file named in `tests_files`):
    the first error of each such test. None when any error is elsewhere."""
    blocks = test_blocks(tests_text)
    broken: dict[str, Diagnostic] = {}
    for d in errors:
        owner = next((name for name, first, last in blocks if first <= d.line <= last), None)
        if d.file not in tests_files or owner is None or owner not in pending:
            return None
        broken.setdefault(owner, d)
    return broken or None

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


def faults_of(errors: Sequence[Diagnostic], sources: Mapping[str, str],
              known: Sequence[Fault]) -> tuple[Fault, ...] | None:
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
        at = member_at(program, d) if program is not None else None
        if at is None:
            return None
        name, member = at
        prior = found.get(name)
        if prior is None:
            culprit = _ghost_made(member, d, known)
            # a constant has no body to stub: it is made ghost, and its compiled users are at fault in turn
            repair = Repair.GHOST if isinstance(member, ast.Const) else Repair.STUB
            found[name] = (Fault(name, culprit.error, repair, d.file, culprit.cause or culprit.member)
                           if culprit is not None else Fault(name, None if no_body_member(d) else d, repair, d.file))
            new = True
        elif prior in known:
            # routed around, and still at fault: ghost is the last resort
            if prior.repair is Repair.GHOST:
                return None
            found[name] = replace(prior, repair=Repair.GHOST)
            new = True
    return tuple(found.values()) if new else None


def _ghost_made(member: Member, d: Diagnostic, known: Sequence[Fault]) -> Fault | None:
    """The fault made ghost (a function as the last resort, a constant) that the name at the error's
    position in `member` refers to: the error is that one's, reached from here, not this member's own."""
    ghosts = {f.member.rsplit(".", 1)[-1]: f for f in known if f.repair is Repair.GHOST}
    for node in ast.preorder(member) if ghosts else ():
        if isinstance(node, (ast.Name, ast.MemberSelect)) and node.name in ghosts and _holds(node.span, d):
            return ghosts[node.name]
    return None


def _holds(span: ast.Span, d: Diagnostic) -> bool:
    """Whether the error's position lies in the span (Dafny counts columns from 0, the parser from 1; the
    end is taken in, where a call's error points at its parenthesis)."""
    return (span.line, span.col) <= (d.line, d.col + 1) <= (span.end_line, span.end_col)


def member_at(program: ast.Program, d: Diagnostic) -> tuple[str, Member] | None:
    """The member whose declaration holds the error's position, with its qualified name."""
    return next(((name, m) for name, m in members(program) if _holds(m.span, d)), None)


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

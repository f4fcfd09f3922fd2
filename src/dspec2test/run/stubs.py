"""A program whose members lack a body, made to compile so that the other members can still be tested.

Dafny will not compile a program with a compiled member that has no body (`... has no body so it cannot
be compiled`). In a copy of the program, each such method gets a body that prints, stamped like every
marker of the run, that it was reached, then halts: its tests and its callers' are `no-implementation`
naming it, and the other tests run. No statement can stand for a function's value, so a body-less
function is made ghost instead: that compiles wherever only contracts and proofs use it (a compiled
call of it then stays a build error, reported as before). Places come from the parser's spans.
"""

from __future__ import annotations

from collections.abc import Sequence

from dspec2test.dafny import ast
from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.dafny.printer import string_literal
from dspec2test.emit.markers import Marker
from dspec2test.errors import DspecError

_FUNCTION_WORDS = ("function", "predicate")


def stubbed(text: str, path: str, missing: Sequence[str], frame: str) -> str | None:
    """`text` with the members named in `missing` (qualified, as `no_body_member` names them) given a
    stub body (methods) or made ghost (functions); None when one of them cannot be found or handled."""
    try:
        program = parse_program(text, path, recover=True)  # a declaration it cannot read is not one of them
    except DspecError:
        return None
    found = {name: m for name, m in iter_members(program) if name in missing}
    if set(found) != set(missing):
        return None
    edits: list[tuple[int, str]] = []
    for name, member in found.items():
        if isinstance(member, ast.Method) and member.body is None and member.kind in ("method", "constructor"):
            edits.append((member.span.end, f' {{ print "\\n{frame} {Marker.NO_BODY.value} {name}\\n"; '
                                           f'expect false, {string_literal(f"dspec2test: {name} has no body yet")}; }}'))
        elif isinstance(member, ast.Function) and member.body is None and not member.ghost:
            keyword = min((i for w in _FUNCTION_WORDS if (i := text.find(w, member.span.start, member.span.end)) >= 0),
                          default=-1)
            if keyword < 0:
                return None
            edits.append((keyword, "ghost "))
        else:
            return None
    for offset, insert in sorted(edits, reverse=True):
        text = text[:offset] + insert + text[offset:]
    return text

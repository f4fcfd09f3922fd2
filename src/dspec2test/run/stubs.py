"""A program that does not build as a whole, made to compile so that what does not reach the fault is tested.

Dafny will not compile a program with a compiled member that has no body (`... has no body so it cannot
be compiled`), nor one whose compiled code the target refuses (a call of a ghost function, a construct
the target does not support, a type error in a body). In a copy of the program, each member at fault
(a `Fault`, found by run/recover.py from the build's located errors) gets a body that prints, stamped
like every marker of the run, that it was reached, then halts: the tests that reach it are
`no-implementation` (no body) or `not-tested` naming the build error, and the others run. A function
keeps its place in compiled code the same way, by a `by method` that halts (its own body becomes a call
of itself, ghost and never run); one the target still refuses is made ghost, and compiled code that
calls it is at fault in turn. Ghost code at fault (a lemma's body) runs never: it is emptied.

Places come from the parser's spans; a replaced body keeps its line breaks, so every line after it (the
clause lines the tests name, the next round's error locations) stays where it was.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from dspec2test.dafny import ast
from dspec2test.dafny.parser import iter_declared, parse_program
from dspec2test.dafny.printer import string_literal
from dspec2test.emit.markers import Marker
from dspec2test.errors import Diagnostic, DspecError

_FUNCTION_WORDS = ("function", "predicate")
_GHOST_KINDS = ("lemma", "twostate lemma", "least lemma", "greatest lemma", "least predicate", "greatest predicate",
                "twostate function", "twostate predicate")

Member = ast.Method | ast.Function | ast.Const


class Repair(str, Enum):
    STUB = "stub"  # a body that says it was reached and halts (a function's: its `by method`)
    GHOST = "ghost"  # made ghost (when a stub does not compile either): compiled callers are at fault in turn


@dataclass(frozen=True)
class Fault:
    """A member the build cannot take as written, and what the test build does with it."""

    member: str  # qualified, as `members` names it
    error: Diagnostic | None = None  # the build error, located as the user knows the file (None: no body)
    repair: Repair = Repair.STUB
    file: str = ""  # the file it is declared in, as the error names it
    # the member whose fault this one inherits (made ghost: its compiled users are at fault in turn), whose
    # error `error` is; its stub names that member ("": this one)
    cause: str = ""

    @property
    def no_body(self) -> bool:
        return self.error is None


def members(program: ast.Program) -> Iterator[tuple[str, Member]]:
    """Methods, functions and constants anywhere in the program, named as Dafny's messages name them
    without `_module` and `_default`."""
    return iter_declared(program, (ast.Method, ast.Function, ast.Const))


def stubbed(text: str, path: str, faults: Sequence[Fault], frame: str) -> str | None:
    """`text` with each member of `faults` routed around as its repair says; None when one of them cannot
    be found or handled (the build then fails as it did)."""
    try:
        program = parse_program(text, path, recover=True)  # a declaration it cannot read is not one of them
    except DspecError:
        return None
    wanted = {f.member: f for f in faults}
    found = {name: m for name, m in members(program) if name in wanted}
    if set(found) != set(wanted):
        return None
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
    for name, member in found.items():
        got = _edits(text, name, member, wanted[name], frame)
        if got is None:
            return None
        edits += got
    edits.sort(reverse=True)
    for (start, end, _), (next_start, _, _) in zip(edits[1:], edits):
        if end > next_start:
            return None  # overlapping edits: the spans are not what they seem
    for start, end, insert in edits:
        text = text[:start] + insert + text[end:]
    return text


def _edits(text: str, name: str, member: Member, fault: Fault, frame: str) -> list[tuple[int, int, str]] | None:
    if isinstance(member, ast.Const):
        if member.ghost or member.value is None:
            return None
        return _made_ghost(text, member, ("const",))
    if isinstance(member, ast.Method):
        return _method_edits(text, name, member, fault, frame)
    return _function_edits(text, name, member, fault, frame)


def _method_edits(text: str, name: str, m: ast.Method, fault: Fault, frame: str) -> list[tuple[int, int, str]] | None:
    ghost = m.ghost or m.kind in _GHOST_KINDS
    if ghost or fault.repair is Repair.GHOST:
        if m.body is None or m.kind == "constructor":
            return None
        emptied = [_replaced(text, m.body.span, "{ }")]
        return emptied if ghost else (None if (g := _made_ghost(text, m, ("method",))) is None else g + emptied)
    if m.kind not in ("method", "constructor"):
        return None
    stub = _halting_block(name, fault, frame)
    return [_replaced(text, m.body.span, stub) if m.body is not None else (m.span.end, m.span.end, " " + stub)]


def _function_edits(text: str, name: str, f: ast.Function, fault: Fault,
                    frame: str) -> list[tuple[int, int, str]] | None:
    ghost = f.ghost or f.kind in _GHOST_KINDS
    itself = "{ " + _call_of_itself(f) + " }"
    if ghost:
        return [_replaced(text, f.body_span, itself)] if f.body is not None else None
    if f.method_form:
        return None  # `function method` (Dafny 3's syntax) takes no `by method`
    if fault.repair is Repair.GHOST:
        made = _made_ghost(text, f, _FUNCTION_WORDS)
        if made is None:
            return None
        return made + ([_replaced(text, f.body_span, itself)] if f.body is not None else [])
    body = f"{itself} by method {_halting_block(name, fault, frame)}"
    return [_replaced(text, f.body_span, body) if f.body is not None else (f.span.end, f.span.end, " " + body)]


def _halting_block(name: str, fault: Fault, frame: str) -> str:
    """A block that prints the marker of a stub reached, then halts with what is at fault."""
    name = fault.cause or name
    if fault.error is None:
        said, message = f"{Marker.NO_BODY.value} {name}", f"dspec2test: {name} has no body yet"
    else:
        message = " ".join(fault.error.render().split())  # one line: the marker's
        said = f"{Marker.NOT_BUILT.value} {name} {message}"
    line = f"\n{frame} {said}\n"
    return f"{{ print {string_literal(line)}; expect false, {string_literal(message)}; }}"


def _call_of_itself(f: ast.Function) -> str:
    """`F<T>(x, y)`: a function's body that names no other declaration (it never runs: its `by method`
    does, or it is ghost), whatever its original body could not compile."""
    types = f"<{', '.join(t.name for t in f.type_params)}>" if f.type_params else ""
    named = any(p.nameonly for p in f.params)
    args = ", ".join(f"{p.name} := {p.name}" if named else p.name for p in f.params)
    return f"{f.name}{types}({args})"


def _replaced(text: str, span: ast.Span, new: str) -> tuple[int, int, str]:
    """Replace the text at `span` by `new`, keeping its line breaks (every later line stays where it was)."""
    return span.start, span.end, new + "\n" * text.count("\n", span.start, span.end)


def _made_ghost(text: str, member: Member, words: tuple[str, ...]) -> list[tuple[int, int, str]] | None:
    keyword = min((i for w in words if (i := text.find(w, member.span.start, member.span.end)) >= 0), default=-1)
    return None if keyword < 0 else [(keyword, keyword, "ghost ")]

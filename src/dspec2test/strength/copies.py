"""One program holding a member's mutants side by side: each a copy of the member under its own name.

Dafny can then resolve, verify and run all mutants of a member in one process: the copies sit right
after the member in its class or module, named `<name>_dspec2test_m<k>` (k = 0 for an unchanged copy,
the control that tells a nondeterministic output from a real difference). Inside a copy every use of the
member's own name (recursive calls, a function's `ensures` about itself) is renamed too, so a copy is
exactly the program with that one mutant, and its contract is the member's. The text is spliced at the
parser's spans; the lines of a copy map Dafny's messages back to its mutant.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr, string_literal
from dspec2test.model.walk import rebuild
from dspec2test.strength.mutate import Edit, Mutant, replacement_text

TAG = "_dspec2test_m"
CONTROL = 0  # the copy without a mutation


def copy_name(short: str, key: int) -> str:
    return f"{short}{TAG}{key}"


@dataclass(frozen=True)
class Placed:
    """A copy in the program text: which mutant (CONTROL for none), its name, its lines."""

    key: int
    name: str  # short name of the copy
    line: int
    end_line: int


@dataclass(frozen=True)
class Copies:
    text: str  # the whole program file with the copies in it
    placed: tuple[Placed, ...]

    def owner(self, line: int) -> Placed | None:
        """The copy whose lines hold `line` (None: outside every copy)."""
        return next((p for p in self.placed if p.line <= line <= p.end_line), None)


def build(source: ast.Program, member: ast.Method | ast.Function, chosen: list[Mutant],
          control: bool = True) -> Copies:
    """The file `source` (one parsed file, with its text) with a copy of `member` per mutant in `chosen`,
    and the control first when `control`. `include`s are made absolute, so the file can be written
    elsewhere."""
    text = source.text
    keyed: list[tuple[int, Mutant | None]] = ([(CONTROL, None)] if control else []) + [(m.id, m) for m in chosen]
    pieces = [member_copy(text, member, copy_name(member.name, key), m) for key, m in keyed]
    head = _absolute_includes(source)
    at = member.span.end
    out = splice(text[:at], head) if head else text[:at]
    placed = []
    line = out.count("\n") + 1
    for (key, _), piece in zip(keyed, pieces):
        out += "\n\n"
        line += 2
        placed.append(Placed(key, copy_name(member.name, key), line, line + piece.count("\n")))
        out += piece
        line += piece.count("\n")
    return Copies(out + text[at:], tuple(placed))


def member_copy(text: str, member: ast.Method | ast.Function, name: str, mutant: Mutant | None) -> str:
    """The member's text renamed to `name` (its uses of itself too), with `mutant` applied."""
    short = member.name
    edits = [Edit(member.name_span.start, member.name_span.end, name)]
    inside = mutant.edit if mutant is not None else None
    for node in ast.preorder((member.spec, getattr(member, "body", None), getattr(member, "by_method", None))):
        if not _self_reference(node, short) or node.span.end <= node.span.start:
            continue
        if inside is not None and inside.start <= node.span.start and node.span.end <= inside.end:
            continue  # renamed in the mutant's replacement below
        edits.append(Edit(node.span.start, node.span.end, print_expr(_renamed(node, short, name))))  # type: ignore
    if mutant is not None:
        replaced = _renamed(mutant.node, short, name) if mutant.node is not None else None
        edits.append(Edit(mutant.edit.start, mutant.edit.end, replacement_text(replaced, mutant.needs, mutant.parenthesised)))
    edits = _outermost(edits)
    start = member.span.start
    local = [Edit(e.start - start, e.end - start, e.text) for e in edits]
    return splice(text[start:member.span.end], local)


def _self_reference(node: ast.Node, short: str) -> bool:
    if isinstance(node, ast.Name):
        return node.name == short
    return isinstance(node, ast.MemberSelect) and node.name == short and isinstance(node.obj, ast.ThisExpr)


def _renamed(node: ast.Node, short: str, name: str) -> ast.Node:
    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.Name) and n.name == short:
            return ast.Name(name, n.type_args, span=n.span)
        if isinstance(n, ast.MemberSelect) and n.name == short and isinstance(n.obj, ast.ThisExpr):
            return ast.MemberSelect(n.obj, name, n.type_args, span=n.span)
        return None

    return rebuild(node, fn)


def _outermost(edits: list[Edit]) -> list[Edit]:
    """The edits without those inside another (the mutant's replacement holds its renamings)."""
    ordered = sorted(edits, key=lambda e: (e.start, -e.end))
    out: list[Edit] = []
    for e in ordered:
        if out and e.start < out[-1].end:
            continue
        out.append(e)
    return out


def splice(text: str, edits: list[Edit]) -> str:
    parts, at = [], 0
    for e in sorted(edits, key=lambda e: e.start):
        parts += [text[at:e.start], e.text]
        at = e.end
    parts.append(text[at:])
    return "".join(parts)


def _absolute_includes(source: ast.Program) -> list[Edit]:
    """Edits that turn the file's `include "x.dfy"` into absolute paths (relative to the file's folder)."""
    folder = Path(source.path).resolve().parent
    return [Edit(inc.span.start, inc.span.end, f"include {string_literal(str((folder / inc.path).resolve()))}")
            for inc in source.includes if not Path(inc.path).is_absolute()]

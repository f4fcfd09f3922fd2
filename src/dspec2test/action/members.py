"""Members of a program as the diff logic needs them: line range, contract, names their specs use."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable, Iterator

from dspec2test.dafny import ast
from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.errors import Diagnostic, DspecError


@dataclass(frozen=True)
class MemberInfo:
    file: str
    name: str  # qualified
    kind: str  # "method", "function", "predicate", "lemma", ...
    line: int
    end_line: int
    has_contract: bool  # at least one requires or ensures
    testable: bool  # has a contract, and is compiled or a lemma with ensures
    contract_names: frozenset[str]  # identifiers the requires/ensures mention (short names)
    body_names: frozenset[str]  # identifiers the body mentions (for functions: what its value depends on)
    clause_lines: frozenset[int] = frozenset()
    ghost: bool = False  # a lemma, or declared ghost: Dafny proves it, nothing runs it

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def is_function(self) -> bool:
        return "function" in self.kind or "predicate" in self.kind


def member_info(file: str, name: str, member: ast.Method | ast.Function) -> MemberInfo:
    clauses = tuple(member.spec.requires) + tuple(member.spec.ensures)
    contract_names = frozenset(n for c in clauses for n in names_in(c))
    body = member.body if isinstance(member, ast.Function) else member.body
    body_names = frozenset(names_in(body)) if body is not None else frozenset()
    if isinstance(member, ast.Function) and member.by_method is not None:
        body_names |= frozenset(names_in(member.by_method))
    ghost = member.ghost or "lemma" in member.kind
    return MemberInfo(
        file=file,
        name=name,
        kind=member.kind,
        line=member.span.line,
        end_line=max(member.span.end_line, member.span.line),
        has_contract=bool(clauses),
        # a lemma's ensures are checked as a property of the functions it calls (generation leaves out the
        # ones it cannot check or Dafny does not prove)
        testable=bool(clauses) and (not ghost or member.kind == "lemma" and bool(member.spec.ensures))
        and member.kind != "constructor",
        contract_names=contract_names,
        body_names=body_names,
        clause_lines=frozenset(c.span.line for c in clauses),
        ghost=ghost,
    )


def names_in(node: object) -> Iterator[str]:
    """Every identifier a subtree mentions: names and the last part of member selections."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Name):
            yield item.name.rsplit(".", 1)[-1]
        elif isinstance(item, ast.MemberSelect):
            yield item.name
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item) if f.name != "span")
        elif isinstance(item, (tuple, list)):
            stack.extend(item)


def const_info(file: str, name: str, const: ast.Const) -> MemberInfo:
    """A constant as the diff logic sees it: never tested, but its value is a dependency of its users."""
    return MemberInfo(file=file, name=name, kind="const", line=const.span.line,
                      end_line=max(const.span.end_line, const.span.line), has_contract=False, testable=False,
                      contract_names=frozenset(), body_names=frozenset(names_in(const.value)))


def iter_consts(decls: tuple[object, ...], prefix: str = "") -> Iterator[tuple[str, ast.Const]]:
    """Constants anywhere in the program (modules, classes, datatypes, newtypes), qualified like members."""
    for decl in decls:
        if isinstance(decl, ast.Const):
            yield prefix + decl.name, decl
        elif isinstance(decl, ast.Module):
            yield from iter_consts(decl.decls, f"{prefix}{decl.name}.")
        elif isinstance(getattr(decl, "members", None), tuple):
            yield from iter_consts(decl.members, f"{prefix}{getattr(decl, 'name', '')}.")


def read_members(file: str, text: str) -> tuple[list[MemberInfo], list[Diagnostic]]:
    """The methods, functions and constants of one file; a parse error is a diagnostic, not an exception."""
    try:
        program = parse_program(text, file)
    except DspecError as exc:
        return [], [Diagnostic(file, exc.line, exc.col, exc.message)]
    found = []
    for name, member in iter_members(program):
        if isinstance(member, (ast.Method, ast.Function)):
            found.append(member_info(file, name, member))
    found += [const_info(file, name, const) for name, const in iter_consts(program.decls)]
    return found, []


def testable(members: Iterable[MemberInfo]) -> list[MemberInfo]:
    return [m for m in members if m.testable]

"""Members of a program as the diff logic needs them: line range, contract, names their specs use."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from dataclasses import dataclass
from typing import Iterable, Iterator

from dspec2test.dafny import ast
from dspec2test.dafny.parser import parse_program
from dspec2test.errors import Diagnostic, DspecError
from dspec2test.model.program import Sources, load_program
from dspec2test.model.refine import flatten, stamped
from dspec2test.model.scope import MemberFacts, ProgramScope


@dataclass(frozen=True)
class MemberInfo:
    file: str
    name: str  # qualified
    kind: str  # "method", "function", "predicate", "lemma", ...
    line: int
    end_line: int
    has_contract: bool  # at least one requires or ensures
    testable: bool  # has a contract, and is compiled or a lemma Dafny takes on trust with ensures
    contract_names: frozenset[str]  # keys of the declarations its requires/ensures use
    body_names: frozenset[str]  # keys of the declarations its compiled code uses
    clause_lines: frozenset[int] = frozenset()
    key: str = ""  # "<file>::<qualified name>" (model/scope.py); the name where a reader gives none
    ghost: bool = False  # lemmas, ghost functions and predicates: not runtime code
    proved: bool = False  # a lemma with a contract whose proof Dafny checks
    origin: str = ""  # the file its text is in, when not `file` (a member inherited by refinement)
    abstract: bool = False  # a member of an abstract module (used elsewhere through refinements)

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def id(self) -> str:
        return self.key or self.name

    @property
    def text_file(self) -> str:
        return self.origin or self.file

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
        testable=bool(clauses) and (not ghost or member.kind == "lemma" and bool(member.spec.ensures)),
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


def iter_consts(decls: tuple[ast.Decl, ...], prefix: str = "") -> Iterator[tuple[str, ast.Const]]:
    """Constants anywhere in the program (modules, classes, datatypes, newtypes), qualified like members."""
    for decl in decls:
        if isinstance(decl, ast.Const):
            yield prefix + decl.name, decl
        elif isinstance(decl, ast.Module):
            yield from iter_consts(decl.decls, f"{prefix}{decl.name}.")
        elif isinstance(decl, (ast.ClassDecl, ast.Datatype, ast.TypeSynonym, ast.Newtype)):  # those with members
            yield from iter_consts(decl.members, f"{prefix}{decl.name}.")


def read_members(file: str, text: str) -> tuple[list[MemberInfo], list[Diagnostic]]:
    """The methods, functions and constants of one file read as a program of its own (its includes are
    not read: `ProgramMembers` reads a file within its program); a parse error is a diagnostic."""
    try:
        parsed = parse_program(text, file, recover=True)
    except DspecError as exc:
        return [], [Diagnostic(file, exc.line, exc.col, exc.message)]
    program = ast.Program(file, parsed.includes, flatten(stamped(parsed.decls, file)), text=text)
    return [_info(f) for f in ProgramScope(program).facts(file)], []


def testable(members: Iterable[MemberInfo]) -> list[MemberInfo]:
    return [m for m in members if m.testable]


class ProgramMembers:
    """The members of a file of a repository, read within the file's program (its includes, or its
    project) with every name resolved: what `check` and the action select by. Files are parsed once."""

    def __init__(self, root: Path):
        self.root = root
        self.sources = Sources(base=root)
        self.scopes: dict[tuple[str, ...], ProgramScope] = {}

    def __call__(self, file: str, text: str) -> tuple[list[MemberInfo], list[Diagnostic]]:
        loaded = load_program(file, self.sources, top=self.root)
        if isinstance(loaded, Diagnostic):
            return [], [loaded]
        key = loaded.paths
        if key not in self.scopes:
            self.scopes[key] = ProgramScope(loaded.program)
        facts = self.scopes[key].facts(file)
        mine = [d for d in loaded.diagnostics if d.file == file]
        return [_info(f) for f in facts], mine


def _info(f: MemberFacts) -> MemberInfo:
    return MemberInfo(f.file, f.name, f.kind, f.line, f.end_line, f.has_contract, f.testable, f.contract_refs,
                      f.body_refs, f.clause_lines, f.key, f.ghost, f.proved,
                      f.origin if f.origin != f.file else "", f.abstract)

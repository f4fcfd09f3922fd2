"""What each member of a file is and what it uses, by resolved name: the facts behind "which members can
a change reach".

A member's key is the file its text is in and its qualified name (`src/a.dfy::M.C.F`), so that two
modules' members of one short name never stand for each other. What a member uses is resolved in its
own program, from its own scope: the declarations named in its compiled code (a method's body without
its proof statements, a function's body, a constant's value) and in its contract. Only compiled
declarations count: a lemma or ghost function changes no behaviour a test can see.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.model.contracts import CTOR_NAME, MemberScope, iter_members, qualified_name, unproved_lemmas
from dspec2test.model.refine import refinement_bases
from dspec2test.model.resolve import Resolver, Scope
from dspec2test.model.walk import bound_names, dotted, pattern_names

_COMPILED_FUNCTIONS = ("function", "predicate")
# what a declaration the parser skipped may be compiled code as: what a change of it can reach
_COMPILED_KINDS = ("method", "constructor", "function", "predicate", "function method", "predicate method", "const")


@dataclass(frozen=True)
class MemberFacts:
    key: str  # "<file of its text>::<qualified name>"
    name: str  # qualified
    file: str  # the file it belongs to (its module's, for a member inherited by refinement)
    origin: str  # the file its text is in
    kind: str  # method, function, predicate, lemma, constructor, const, ...
    ghost: bool  # not runtime code: lemmas, ghost functions and predicates, ghost constants
    line: int  # its text in `origin`
    end_line: int
    has_contract: bool
    testable: bool  # compiled with a contract, or a lemma whose statement Dafny takes on trust
    proved: bool  # a lemma with a contract whose proof Dafny checks: nothing for a test to do
    contract_refs: frozenset[str]  # keys of the compiled declarations its requires/ensures name
    body_refs: frozenset[str]  # keys of the compiled declarations its compiled code names
    clause_lines: frozenset[int] = frozenset()
    abstract: bool = False  # a member of an abstract module: other files use it by refining the module


def key_of(origin: str, qualified: str) -> str:
    return f"{origin}::{qualified}"


def is_compiled(decl: object) -> bool:
    if isinstance(decl, ast.Method):
        return decl.kind in ("method", "constructor") and not decl.ghost
    if isinstance(decl, ast.Function):
        return decl.kind in _COMPILED_FUNCTIONS and not decl.ghost
    if isinstance(decl, ast.Const):
        return not decl.ghost
    if isinstance(decl, ast.Unreadable):
        return decl.kind in _COMPILED_KINDS and not decl.ghost
    return False


class ProgramScope:
    """The resolved facts of one program's members."""

    def __init__(self, program: ast.Program):
        self.program = program
        self.resolver = Resolver(program)
        self.trusted = unproved_lemmas(program)
        self.bases = refinement_bases(program.decls)
        self._index: dict[str, MemberFacts] | None = None
        self._declared: dict[str, str] | None = None  # qualified name -> key, for _refined_member
        # a member called on a value (`o.F()`, `v.Valid()`): resolved by its name among the compiled members
        # of the program's classes, traits and datatypes (the value's type is not known here)
        self.by_member_name: dict[str, set[str]] = {}
        for scope, d in iter_members(program.decls):
            if scope.owner is not None and is_compiled(d):
                self.by_member_name.setdefault(getattr(d, "name", ""), set()).add(self._key(scope, d))

    def index(self) -> dict[str, MemberFacts]:
        """Every member and constant of the program by key (computed once)."""
        if self._index is None:
            self._index = {}
            for scope, d in iter_members(self.program.decls):
                if isinstance(d, _MEMBERS):
                    f = self._facts(scope, d, scope.origin or d.origin or self.program.path)
                    self._index.setdefault(f.key, f)
        return self._index

    def _key(self, scope: MemberScope, d: object) -> str:
        name = getattr(d, "name", "") or CTOR_NAME
        return key_of(getattr(d, "origin", "") or self.program.path, qualified_name(scope, name))

    def facts(self, file: str) -> list[MemberFacts]:
        """The members and constants that belong to `file`: declared in it, or inherited by a module of it."""
        out = []
        for scope, d in iter_members(self.program.decls):
            if not isinstance(d, _MEMBERS):
                continue
            origin = d.origin or self.program.path
            home = scope.origin or origin
            if origin != file and home != file:
                continue
            out.append(self._facts(scope, d, home if home == file else origin))
        return out

    def _facts(self, scope: MemberScope, d: ast.Method | ast.Function | ast.Const | ast.Unreadable,
               file: str) -> MemberFacts:
        where = self.resolver.scope_of(d)
        name = qualified_name(scope, d.member_name if isinstance(d, ast.Unreadable) else d.name or CTOR_NAME)
        key = key_of(d.origin or self.program.path, name)
        if isinstance(d, ast.Unreadable):
            # what it is cannot be known: a change of its lines selects it, to be refused with the reason
            ghost = d.ghost or "lemma" in d.kind
            return MemberFacts(key, name, file, d.origin or file, d.kind or "declaration", ghost, d.span.line,
                               max(d.span.end_line, d.span.line), True, True, False, frozenset(), frozenset())
        if isinstance(d, ast.Const):
            refs = self._refs(d.value, where, frozenset()) if d.value is not None and not d.ghost else frozenset()
            return MemberFacts(key, name, file, d.origin or file, "const", d.ghost, d.span.line,
                               max(d.span.end_line, d.span.line), False, False, False, frozenset(), refs)
        clauses = tuple(d.spec.requires) + tuple(d.spec.ensures)
        locals_ = _locals(d)
        contract = frozenset(r for c in clauses for r in self._refs(c.expr, where, locals_))
        compiled = is_compiled(d)
        body: ast.Node | None = d.body
        if isinstance(d, ast.Function) and d.by_method is not None:
            body = d.by_method
        refs = self._refs(body, where, locals_) if compiled and body is not None else frozenset()
        inherited = self._inherited_from(scope, d)
        if inherited is not None:
            refs |= {inherited}  # its text is the refined module's: a change there is a change of it
        elif (refined := self._refined_member(scope, d)) is not None:
            contract |= {refined}  # declared again with a body: the contract is still (partly) the refined one's
        lemma = isinstance(d, ast.Method) and "lemma" in d.kind
        ghost = not compiled
        trusted = lemma and name in self.trusted
        has_contract = bool(clauses)
        # a member of an abstract module is tested through the modules that refine it (they hold copies)
        testable = has_contract and not scope.abstract and (
            compiled or (lemma and d.kind == "lemma" and bool(d.spec.ensures) and trusted))
        return MemberFacts(key, name, file, d.origin or file, d.kind, ghost, d.span.line,
                           max(d.span.end_line, d.span.line), has_contract, testable,
                           lemma and has_contract and not trusted, contract, refs,
                           frozenset(c.span.line for c in clauses), scope.abstract)

    def _inherited_from(self, scope: MemberScope, d: ast.Declared) -> str | None:
        """The key of the member of the refined module that a refining module's copy came from."""
        name = self._refined_name(scope, d)
        if name is None or not d.origin or d.origin == scope.origin:
            return None
        return key_of(d.origin, name)

    def _refined_member(self, scope: MemberScope, d: ast.Declared) -> str | None:
        """The key of the member of the refined module that a refining module's own declaration of the same
        name refines (its contract is merged into this one's)."""
        wanted = self._refined_name(scope, d)
        if wanted is None:
            return None
        if self._declared is None:
            self._declared = {qualified_name(sc, getattr(m, "name", "") or CTOR_NAME): self._key(sc, m)
                              for sc, m in iter_members(self.program.decls)}
        return self._declared.get(wanted)

    def _refined_name(self, scope: MemberScope, d: ast.Declared) -> str | None:
        """The qualified name a refining module's declaration has in the module it refines (None: its module
        refines none)."""
        base = self.bases.get(scope.module)
        if base is None:
            return None
        owner = [scope.owner.name] if scope.owner is not None else []  # type: ignore[attr-defined]
        return ".".join([*base, *owner, getattr(d, "name", "") or CTOR_NAME])

    def _refs(self, node: object, where: Scope, locals_: frozenset[str]) -> frozenset[str]:
        found: set[str] = set()
        for name, on_value in _named(node, locals_):
            if on_value:
                found |= self.by_member_name.get(name, set())
                continue
            hit = self.resolver.lookup(where, name)
            if hit is None and "." in name:
                # `x.F` where x is no module or type: a member of a value
                found |= self.by_member_name.get(name.rsplit(".", 1)[-1], set())
                continue
            if hit is None:
                continue
            decl, at = hit
            if not is_compiled(decl):
                continue
            owner = [at.cls.name] if at.cls is not None and decl in getattr(at.cls, "members", ()) else []
            found.add(key_of(getattr(decl, "origin", "") or self.program.path,
                             ".".join([*at.module, *owner, getattr(decl, "name", "") or CTOR_NAME])))
        return frozenset(found)


_MEMBERS = (ast.Method, ast.Function, ast.Const, ast.Unreadable)


def _locals(d: ast.Method | ast.Function) -> frozenset[str]:
    names = {p.name for p in d.params}
    if isinstance(d, ast.Method):
        names |= {r.name for r in d.returns}
    elif d.result is not None and d.result.name:
        names.add(d.result.name)
    return frozenset(names)


# statements that are proof only: what they name is not run
_PROOF = (ast.AssertStmt, ast.Calc, ast.Reveal)


def _named(node: object, locals_: frozenset[str]) -> Iterator[tuple[str, bool]]:
    """(name, called on a value) for every name a subtree uses outside proof statements: bare and dotted
    names, and the member names of selections on values. Locals and bound variables are left out."""

    def go(n: object, bound: frozenset[str]) -> Iterator[tuple[str, bool]]:
        if isinstance(n, tuple):
            for item in n:
                yield from go(item, bound)
            return
        if not isinstance(n, ast.Node):
            return
        if isinstance(n, _PROOF) and not (isinstance(n, ast.AssertStmt) and n.kind == "expect"):
            return
        if isinstance(n, ast.VarDecl):
            if n.ghost:
                return
            yield from go(n.rhs, bound)
            yield from go(n.such_that, bound)
            return
        if isinstance(n, ast.StmtExpr):
            yield from go(n.expr, bound)  # the statement in it is a proof
            return
        if isinstance(n, ast.ForallStmt) and n.ensures:
            return  # an aggregate proof
        if isinstance(n, ast.Name):
            if n.name.split(".")[0] not in bound:
                yield n.name, False
            return
        if isinstance(n, ast.MemberSelect):
            path = dotted(n)
            if path is not None and path.split(".")[0] not in bound:
                yield path, False
                return
            yield n.name, True
            yield from go(n.obj, bound)
            return
        inner = bound | bound_names(n)
        for f in n.__dataclass_fields__:
            if f in ast.NOT_CHILDREN:
                continue
            yield from go(getattr(n, f), inner)

    # every local of the body, wherever declared, hides a global of its name (over the whole member)
    declared = set(locals_)
    if isinstance(node, ast.Node):
        for n in ast.preorder(node):
            if isinstance(n, ast.VarDecl):
                for p in n.pats:
                    declared.update(pattern_names(p))
            elif isinstance(n, ast.For):
                declared.add(n.var.name)
    yield from go(node, frozenset(declared))



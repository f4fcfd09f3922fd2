"""Where a program's ghost state is declared in a way the test build may compile: one `Site` per `ghost`
word the copy can take out (or, under Dafny 3's function syntax, per `function` it can make a
`function method`).

Read off each file's own parse, by the parser's spans: ghost fields and constants, ghost functions and
predicates with a body (and the bodiless ones of traits, which their classes implement), ghost
parameters of datatype constructors, and ghost local variables of compiled methods (a lifted field is
often assigned from one). Lemmas, ghost methods, twostate and least/greatest members never are: Dafny
has no compiled form for them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import Enum

from dspec2test.dafny import ast
from dspec2test.model.refine import module_function_syntax


class SiteKind(str, Enum):
    FIELD = "field"
    CONST = "const"
    FUNCTION = "function"
    CTOR_PARAM = "constructor parameter"
    LOCAL = "local variable"


@dataclass(frozen=True)
class Site:
    """One place the test build may lift: what it makes compiled and how the text changes."""

    names: tuple[str, ...]  # qualified names it makes compiled (`ghost var a, b: int` declares two)
    kind: SiteKind
    file: str  # the file as the program names it
    line: int
    word: ast.Span  # the `ghost` word taken out (NO_SPAN: none is written)
    decl: ast.Span  # the declaration: an error inside it is this site's
    method_at: int = -1  # function-syntax 3: where ` method` goes in (after `function`), else -1

    @property
    def key(self) -> tuple[str, int]:
        """Where it is written: the same in every copy of the declaration (refinement copies keep spans)."""
        return self.file, self.word.start if self.method_at < 0 else self.method_at

    @property
    def name(self) -> str:
        return ", ".join(self.names)

    @property
    def short_names(self) -> frozenset[str]:
        return frozenset(n.rsplit(".", 1)[-1] for n in self.names)


_CONTAINERS = (ast.ClassDecl, ast.Datatype, ast.Newtype, ast.TypeSynonym)


def sites_of(program: ast.Program, function_syntax: int = 4, skip: frozenset[str] = frozenset()) -> list[Site]:
    """Every site of the program's files (those named in `skip` aside: the standard library's), in file
    and text order, each once: fields declared by one `ghost var a, b: T` are one site, and a module's
    declarations copied into the modules refining it are the same sites."""
    out: dict[tuple[str, int], Site] = {}
    fields = frozenset(n.name for n in ast.preorder(program.decls) if isinstance(n, (ast.Field, ast.Const)) and n.ghost)
    for source in program.sources:
        if source.path in skip:
            continue
        for site in _walk(source.decls, (), None, source.path, function_syntax, fields):
            had = out.get(site.key)
            if had is None:
                out[site.key] = site
            elif had.kind is site.kind and had.kind in (SiteKind.FIELD, SiteKind.CONST) and site.names[0] not in had.names \
                    and not any(n.rsplit(".", 1)[0] != had.names[0].rsplit(".", 1)[0] for n in site.names):
                out[site.key] = replace(had, names=had.names + site.names,
                                        decl=ast.Span(had.decl.line, had.decl.col, site.decl.end_line, site.decl.end_col,
                                                      had.decl.start, max(had.decl.end, site.decl.end)))
    return sorted(out.values(), key=lambda s: (s.file, s.decl.start))


def _walk(decls: tuple[ast.Decl, ...], path: tuple[str, ...], owner: ast.Node | None, file: str,
          syntax: int, fields: frozenset[str]) -> Iterator[Site]:
    for d in decls:
        if isinstance(d, ast.Module):
            yield from _walk(d.decls, path + tuple(d.name.split(".")), None, file, module_function_syntax(d, syntax),
                             fields)
        elif isinstance(d, _CONTAINERS):
            yield from _walk(d.members, path + (d.name,), d, file, syntax, fields)
            if isinstance(d, ast.Datatype):
                yield from _ctor_params(d, path + (d.name,), file)
        elif getattr(d, "origin", file) in ("", file):  # inherited copies are the other file's sites
            yield from _member(d, path, owner, file, syntax, fields)


def _member(d: ast.Decl, path: tuple[str, ...], owner: ast.Node | None, file: str, syntax: int,
            fields: frozenset[str]) -> Iterator[Site]:
    name = ".".join((*path, getattr(d, "name", "") or ""))
    if isinstance(d, (ast.Field, ast.Const)) and d.ghost and _written(d.ghost_span):
        yield Site((name,), SiteKind.FIELD if isinstance(d, ast.Field) else SiteKind.CONST, file, d.span.line, d.ghost_span,
                   d.span)
    elif isinstance(d, ast.Function) and d.ghost and d.kind in ("function", "predicate") and d.by_method is None \
            and (d.body is not None or (isinstance(owner, ast.ClassDecl) and owner.kind == "trait")) \
            and not any(a.name in ("extern", "axiom") for a in d.attributes):
        if syntax == 3 and not d.method_form and _written(d.keyword_span):
            # Dafny 3: `function` is ghost, `function method` compiled (a `ghost` written too goes)
            yield Site((name,), SiteKind.FUNCTION, file, d.span.line, d.ghost_span, d.span, d.keyword_span.end)
        elif syntax == 4 and _written(d.ghost_span):
            yield Site((name,), SiteKind.FUNCTION, file, d.span.line, d.ghost_span, d.span)
    elif isinstance(d, ast.Method) and d.kind in ("method", "constructor") and not d.ghost and d.body is not None:
        feeding = _feeding_fields(d.body, fields)
        for n in ast.preorder(d.body):
            if isinstance(n, ast.VarDecl) and n.ghost and _written(n.ghost_span):
                names = [p.name for p in n.pats if isinstance(p, ast.PatVar)]
                if names and len(names) == len(n.pats) and set(names) & feeding:
                    yield Site(tuple(f"{name or '_ctor'}.{v}" for v in names), SiteKind.LOCAL, file, n.span.line,
                               n.ghost_span, n.span)


def _feeding_fields(body: ast.Block, fields: frozenset[str]) -> set[str]:
    """The names a method assigns ghost fields from (`Contents := before + [x]`), and those they are
    assigned from in turn: the ghost locals a lifted field needs lifted too. Others stay ghost, since
    compiled they would only cost run time (a ghost sequence grown in a loop)."""
    flows: list[tuple[set[str], set[str]]] = []  # (assigned, read)
    for n in ast.preorder(body):
        if isinstance(n, ast.Assign):
            assigned = {x.name for x in n.lhs if isinstance(x, (ast.Name, ast.MemberSelect))}
            flows.append((assigned, {x.name for x in ast.preorder(n.rhs) if isinstance(x, (ast.Name, ast.MemberSelect))}))
        elif isinstance(n, ast.VarDecl):
            assigned = {p.name for p in n.pats if isinstance(p, ast.PatVar)}
            flows.append((assigned, {x.name for x in ast.preorder(n.rhs) if isinstance(x, (ast.Name, ast.MemberSelect))}))
    needed = set(fields)
    grew = True
    while grew:
        grew = False
        for assigned, read in flows:
            if assigned & needed and not read <= needed:
                needed |= read
                grew = True
    return needed - fields


def _ctor_params(d: ast.Datatype, path: tuple[str, ...], file: str) -> Iterator[Site]:
    if d.origin not in ("", file):
        return
    for ctor in d.ctors:
        for p in ctor.params:
            if p.ghost and p.name and _written(p.ghost_span):
                yield Site((".".join((*path, ctor.name, p.name)),), SiteKind.CTOR_PARAM, file, p.span.line,
                           p.ghost_span, p.span)


def _written(span: ast.Span) -> bool:
    return span.end > span.start

"""The program as the generation reads it under a test build: the AST with each lifted declaration
marked `lifted` (still `ghost`, as written), so that what a test may evaluate counts it compiled, while
what a test may assign never includes it (its value comes from the constructor and the methods)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dspec2test.dafny import ast
from dspec2test.testbuild.record import TestBuild

_CONTAINERS = (ast.ClassDecl, ast.Datatype, ast.Newtype, ast.TypeSynonym)


def lifted_view(program: ast.Program, build: TestBuild) -> ast.Program:
    """`program` with the declarations `build` lifts marked (the same object when it lifts nothing)."""
    if not build.sites:
        return program
    sites = build.sites

    def lifted(origin: str, *spans: ast.Span) -> bool:
        return any(sp.end > sp.start and (origin, sp.start) in sites for sp in spans)

    def mark(d: Any, origin: str) -> Any:
        origin = getattr(d, "origin", "") or origin
        if isinstance(d, ast.Module):
            return replace(d, decls=tuple(mark(x, origin) for x in d.decls))
        if isinstance(d, _CONTAINERS):
            d = replace(d, members=tuple(mark(x, origin) for x in d.members))
            if isinstance(d, ast.Datatype):
                d = replace(d, ctors=tuple(replace(c, params=tuple(
                    replace(p, lifted=True) if lifted(c.origin or origin, p.ghost_span) else p for p in c.params))
                    for c in d.ctors))
            return d
        if isinstance(d, (ast.Field, ast.Const)) and lifted(origin, d.ghost_span):
            return replace(d, lifted=True)
        if isinstance(d, ast.Function) and d.ghost and (
                lifted(origin, d.ghost_span) or (origin, d.keyword_span.end) in sites):
            return replace(d, lifted=True)
        return d

    files = tuple(replace(f, decls=tuple(mark(d, f.path) for d in f.decls)) for f in program.files)
    return replace(program, decls=tuple(mark(d, program.path) for d in program.decls), files=files)

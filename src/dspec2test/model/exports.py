"""What a module's export sets let a test see. The tests are a module of their own that imports the
module under test, so they see its default export set only: a member that set does not name cannot be
called by them, and is not tested, with that reason, before anything is built."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from dspec2test.dafny import ast
from dspec2test.model.contracts import Contract
from dspec2test.model.refine import module_paths


def default_names(module: ast.Module) -> set[str] | None:
    """The names the module's default export set (`export` or `export <its name>`) provides or reveals,
    with the sets it extends; None when the module declares no export set (everything is exported)."""
    sets = {d.name: d for d in module.decls if isinstance(d, ast.Export)}
    if not sets:
        return None
    short = module.name.split(".")[-1]
    start = sets.get(None) or sets.get(short)
    if start is None:  # export sets but no default one: Dafny exports nothing by default
        return set()
    names: set[str] = set()
    seen: set[str | None] = set()
    todo: list[ast.Export] = [start]
    while todo:
        e = todo.pop()
        if e.name in seen:
            continue
        seen.add(e.name)
        names.update(e.provides, e.reveals)
        todo += [sets[x] for x in e.extends if x in sets]
    return names


def not_exported(program: ast.Program, c: Contract) -> str | None:
    """Why a test outside the member's module cannot call it, or None when it can."""
    if not c.module:
        return None
    module = module_paths(program.decls).get(c.module)
    names = default_names(module) if module is not None else None
    if names is None or "*" in names:
        return None
    owner = c.cls.name if c.cls is not None else (c.datatype.name if c.datatype is not None else None)
    candidates = {c.short} if owner is None else {owner, f"{owner}.{c.short}"}
    if candidates & names:
        return None
    return (f"not exported (the default export set of module {'.'.join(c.module)} does not provide "
            f"{c.short if owner is None else owner + '.' + c.short}): a test outside the module cannot call it")


def exported_only(program: ast.Program, contracts: Sequence[Contract]) -> list[Contract]:
    """The contracts, those the module's default export set hides blocked with that reason."""
    out = []
    for c in contracts:
        why = None if c.blocked else not_exported(program, c)
        out.append(replace(c, blocked=why) if why else c)
    return out

"""Module refinement made explicit: `module R refines A` holds A's declarations as well as its own.

Dafny reads R as A's declarations refined by R's: a declaration R does not repeat is R's as written in
A (an abstract type A leaves open, a method with its contract and body, a class), and one R repeats is
A's with R's additions (a body for a method A left without one, more `ensures`, more class members, a
definition for an opaque type). The loader applies this once, so that every later reader (name lookup,
the members to test, the contracts) sees R as Dafny does. Inherited declarations are copies (distinct
objects, so per-declaration indexes cannot confuse A's with R's) that keep the file they were written
in (`origin`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from dspec2test.dafny import ast

_CONTAINERS = (ast.ClassDecl, ast.Datatype, ast.TypeSynonym, ast.Newtype)


def stamped(decls: Sequence[ast.Decl], path: str, function_syntax: int = 4) -> tuple[ast.Decl, ...]:
    """The declarations with `origin` set to `path`, down through modules, classes and datatypes; under
    Dafny 3's function syntax (a project's `function-syntax = 3`, or a module's `{:options
    "-functionSyntax:3"}`), a function not written `function method` is ghost."""
    return tuple(_stamp(d, path, function_syntax) for d in decls)


def _stamp(d: ast.Decl, path: str, syntax: int) -> ast.Decl:
    if not isinstance(d, ast.Declared):
        return d
    changes: dict[str, object] = {"origin": path}
    if isinstance(d, ast.Module):
        syntax = module_function_syntax(d, syntax)
        changes["decls"] = stamped(d.decls, path, syntax)
    elif isinstance(d, _CONTAINERS):
        changes["members"] = stamped(d.members, path, syntax)
        if isinstance(d, ast.Datatype):
            changes["ctors"] = tuple(replace(c, origin=path) for c in d.ctors)
    if isinstance(d, (ast.Method, ast.Function)):
        spec = d.spec
        changes["spec"] = replace(spec, requires=tuple(replace(c, origin=path) for c in spec.requires),
                                  ensures=tuple(replace(c, origin=path) for c in spec.ensures))
    if isinstance(d, ast.Function) and syntax == 3 and not d.method_form and not d.ghost:
        changes["ghost"] = True
    return replace(d, **changes)


def module_function_syntax(m: ast.Module, outer: int) -> int:
    """The function syntax a module's `{:options ...}` attribute sets (else the one around it)."""
    for a in m.attributes:
        if a.name != "options":
            continue
        for arg in a.args:
            text = arg.value if isinstance(arg, ast.StringLit) else ""
            for option in text.replace("=", ":").split():
                key, _, value = option.lstrip("-/").partition(":")
                if key.lower().replace("-", "") == "functionsyntax" and value[:1] in ("3", "4"):
                    outer = int(value[:1])
    return outer


Copies = dict[tuple[int, tuple[str, ...]], tuple[ast.Decl, ast.Decl]]


def flatten(decls: tuple[ast.Decl, ...], copies: Copies | None = None) -> tuple[ast.Decl, ...]:
    """The program's declarations with every refining module holding what it inherits.

    `copies` keeps the copies made of inherited declarations for the next program of the same run: the
    programs of a project's files share their modules, and copying them again for each was most of the
    cost of reading a project (its keys hold the original, so an id is never reused while it is there)."""
    made: Copies = {} if copies is None else copies
    modules: dict[tuple[str, ...], ast.Module] = {}
    _collect(decls, (), modules)
    done: dict[tuple[str, ...], ast.Module] = {}

    def resolved(path: tuple[str, ...], visiting: frozenset[tuple[str, ...]]) -> ast.Module:
        if path in done:
            return done[path]
        module = modules[path]
        inner = tuple(resolved(path + _sub_path(d), visiting) if isinstance(d, ast.Module) else d
                      for d in module.decls)
        out = replace(module, decls=inner)
        if module.refines:
            base = _refined(path, module.refines, modules)
            if base is not None and base not in visiting and base != path:
                parent = resolved(base, visiting | {path})
                out = replace(out, decls=_merge(parent.decls, out.decls, path, made))
        done[path] = out
        return out

    def rebuild(ds: tuple[ast.Decl, ...], prefix: tuple[str, ...]) -> tuple[ast.Decl, ...]:
        return tuple(resolved(prefix + _sub_path(d), frozenset()) if isinstance(d, ast.Module) else d for d in ds)

    return rebuild(decls, ())


def _sub_path(m: ast.Module) -> tuple[str, ...]:
    return tuple(m.name.split("."))


def module_paths(decls: Sequence[ast.Decl]) -> dict[tuple[str, ...], ast.Module]:
    """Every module of the declarations by its path (`module A.B` is at ("A", "B"))."""
    out: dict[tuple[str, ...], ast.Module] = {}
    _collect(decls, (), out)
    return out


def _collect(decls: Sequence[ast.Decl], path: tuple[str, ...], out: dict[tuple[str, ...], ast.Module]) -> None:
    for d in decls:
        if isinstance(d, ast.Module):
            sub = path + _sub_path(d)
            out.setdefault(sub, d)
            _collect(d.decls, sub, out)


def _refined(path: tuple[str, ...], name: str, modules: dict[tuple[str, ...], ast.Module]) -> tuple[str, ...] | None:
    """The module `refines name` denotes from the module at `path`: a sibling, or one further out."""
    parts = tuple(name.split("."))
    outer = path[:-1]
    while True:
        if outer + parts in modules:
            return outer + parts
        if not outer:
            return None
        outer = outer[:-1]


def _merge(inherited: Sequence[ast.Decl], own: Sequence[ast.Decl], where: tuple[str, ...],
           copies: Copies) -> tuple[ast.Decl, ...]:
    """A's declarations refined by R's (R at `where`): A's order first, then what only R declares."""
    mine = {_key(d): d for d in own if _key(d) is not None}
    out: list[ast.Decl] = []
    used: set[object] = set()
    for d in inherited:
        k = _key(d)
        if k is not None and k in mine:
            out.append(_refine(d, mine[k], where, copies))
            used.add(k)
        elif not isinstance(d, ast.Export):  # R's export sets are its own
            key = (id(d), where)
            if key not in copies or copies[key][0] is not d:
                copies[key] = (d, _fresh(d))
            out.append(copies[key][1])
    out += [d for d in own if _key(d) not in used or _key(d) is None]
    return tuple(out)


D = TypeVar("D", bound=ast.Declared)


def _fresh(d: D) -> D:
    """A copy of a declaration whose declarations are new objects (the resolver knows each by identity)
    and whose expressions, types and statements are shared: they are immutable, and copying them all
    was most of the cost of reading a project."""
    changes = {}
    for name in ("decls", "members"):
        inner = getattr(d, name, None)
        if isinstance(inner, tuple):
            changes[name] = tuple(_fresh(x) if isinstance(x, ast.Declared) else x for x in inner)
    return replace(d, **changes)


def _key(d: ast.Decl) -> object:
    if isinstance(d, ast.Import):
        return ("import", d.alias or d.target.split(".")[-1])
    name = getattr(d, "name", None)
    return ("decl", name) if name else None


def _refine(base: ast.Decl, own: ast.Decl, where: tuple[str, ...], copies: Copies) -> ast.Decl:
    """One declaration of A as R repeats it."""
    if isinstance(base, ast.Method) and isinstance(own, ast.Method):
        return replace(own, params=own.params or base.params, returns=own.returns or base.returns,
                       spec=_spec(base.spec, own.spec), body=own.body if own.body is not None else base.body,
                       type_params=own.type_params or base.type_params)
    if isinstance(base, ast.Function) and isinstance(own, ast.Function):
        return replace(own, params=own.params or base.params, result=own.result or base.result,
                       spec=_spec(base.spec, own.spec), body=own.body if own.body is not None else base.body,
                       by_method=own.by_method if own.by_method is not None else base.by_method,
                       type_params=own.type_params or base.type_params)
    if isinstance(base, ast.ClassDecl) and isinstance(own, ast.ClassDecl):
        return replace(own, members=_merge(base.members, own.members, where + (own.name,), copies), extends=own.extends or base.extends,
                       type_params=own.type_params or base.type_params)
    if isinstance(base, ast.Datatype) and isinstance(own, ast.Datatype):
        if own.refining:  # `datatype D ... { }`: A's D with R's members
            return replace(base, members=_merge(base.members, own.members, where + (own.name,), copies),
                           origin=own.origin, span=own.span)
        return replace(own, members=_merge(base.members, own.members, where + (own.name,), copies))
    if isinstance(own, ast.TypeSynonym) and own.refining and isinstance(base, ast.TypeSynonym) or \
            isinstance(own, ast.Newtype) and own.refining and isinstance(base, ast.Newtype):
        return replace(base, members=_merge(base.members, own.members, where + (own.name,), copies),
                       origin=own.origin, span=own.span)
    if isinstance(base, ast.Module) and isinstance(own, ast.Module):
        return replace(own, decls=_merge(base.decls, own.decls, where + (own.name,), copies))
    return own  # a type defined, a constant given its value, an import made concrete: R's


def _spec(base: ast.Spec, own: ast.Spec) -> ast.Spec:
    """A refining member keeps A's contract and may add to it."""
    return ast.Spec(requires=base.requires + own.requires, ensures=base.ensures + own.ensures,
                    modifies=own.modifies or base.modifies, reads=own.reads or base.reads,
                    decreases=own.decreases or base.decreases, other=base.other + own.other)


def refinement_bases(decls: tuple[ast.Decl, ...]) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Module path -> the path of the module it refines, for every refining module."""
    modules: dict[tuple[str, ...], ast.Module] = {}
    _collect(decls, (), modules)
    out = {}
    for path, m in modules.items():
        if m.refines:
            base = _refined(path, m.refines, modules)
            if base is not None:
                out[path] = base
    return out

"""The classes and traits of a program, indexed: by short and qualified name, with their supertypes,
inherited members and implementations (what objects.py derives a member's objects from)."""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.model.resolve import Resolver, Scope


@dataclass(frozen=True)
class ClassIndex:
    """The classes and traits of a program: by name, with supertypes, inherited members and implementations."""

    decls: dict[str, ast.ClassDecl]  # by short and qualified name
    modules: dict[int, tuple[str, ...]]  # id(decl) -> enclosing module path
    order: tuple[ast.ClassDecl, ...]  # in source order
    functions: dict[str, tuple[ast.Function, ...]]  # every function and predicate, by short name
    # id(decl) -> the traits it extends, resolved from its module (`Interface.Trait` where several
    # modules have a `Trait`); a name that does not resolve is looked up by name, as lookup does
    extends: dict[int, tuple[ast.ClassDecl, ...]]

    @staticmethod
    def of(program: ast.Program) -> "ClassIndex":
        decls: dict[str, ast.ClassDecl] = {}
        modules: dict[int, tuple[str, ...]] = {}
        order: list[ast.ClassDecl] = []
        functions: dict[str, list[ast.Function]] = {}

        def visit(ds: tuple[ast.Decl, ...], module: tuple[str, ...]) -> None:
            for d in ds:
                if isinstance(d, ast.Module):
                    visit(d.decls, module + tuple(d.name.split(".")))
                    continue
                if isinstance(d, ast.ClassDecl):
                    decls.setdefault(d.name, d)
                    decls[".".join([*module, d.name])] = d
                    modules[id(d)] = module
                    order.append(d)
                if isinstance(d, ast.Function):
                    functions.setdefault(d.name, []).append(d)
                for m in getattr(d, "members", ()):
                    if isinstance(m, ast.Function):
                        functions.setdefault(m.name, []).append(m)

        visit(program.decls, ())
        resolver = Resolver(program)

        def resolved(t: ast.Type, module: tuple[str, ...]) -> ast.ClassDecl | None:
            if not isinstance(t, ast.NamedType):
                return None
            found = resolver.lookup(Scope(resolver, module), t.name.rstrip("?"))
            if found is not None and isinstance(found[0], ast.ClassDecl):
                return found[0]
            return decls.get(t.name.rstrip("?")) or decls.get(t.name.rstrip("?").split(".")[-1])

        extends = {id(d): tuple(s for t in d.extends if (s := resolved(t, modules[id(d)])) is not None)
                   for d in order}
        return ClassIndex(decls, modules, tuple(order), {k: tuple(v) for k, v in functions.items()}, extends)

    def lookup(self, t: ast.Type) -> ast.ClassDecl | None:
        if not isinstance(t, ast.NamedType):
            return None
        name = t.name.rstrip("?")
        return self.decls.get(name) or self.decls.get(name.split(".")[-1])

    def supers(self, cls: ast.ClassDecl) -> tuple[ast.ClassDecl, ...]:
        """The traits `cls` extends, transitively, nearest first."""
        out: list[ast.ClassDecl] = []
        todo = self._parents(cls)
        while todo:
            t = todo.pop(0)
            if t is not cls and all(t is not o for o in out):
                out.append(t)
                todo.extend(self._parents(t))
        return tuple(out)

    def _parents(self, cls: ast.ClassDecl) -> list[ast.ClassDecl]:
        if id(cls) in self.extends:
            return list(self.extends[id(cls)])
        return [p for t in cls.extends if (p := self.lookup(t)) is not None]

    def kinds(self, cls: ast.ClassDecl) -> tuple[ast.ClassDecl, ...]:
        """`cls` and every trait it extends: what `o is T` holds of for an instance of it."""
        return (cls,) + self.supers(cls)

    def implementations(self, decl: ast.ClassDecl) -> tuple[ast.ClassDecl, ...]:
        """The classes an object of static type `decl` can be built as: itself if a class, else every
        non-generic class of the program extending the trait."""
        if decl.kind == "class":
            return (decl,)
        return tuple(c for c in self.order if c.kind == "class" and any(s is decl for s in self.supers(c)))

    def members(self, cls: ast.ClassDecl) -> list[ast.Decl]:
        """Own members first, then inherited ones not overridden."""
        out = list(cls.members)
        names = {getattr(m, "name", None) for m in out}
        for s in self.supers(cls):
            for m in s.members:
                if getattr(m, "name", None) not in names:
                    out.append(m)
                    names.add(getattr(m, "name", None))
        return out

    def member(self, cls: ast.ClassDecl, name: str) -> ast.Decl | None:
        return next((m for m in self.members(cls) if getattr(m, "name", None) == name), None)

    def fields(self, cls: ast.ClassDecl) -> list[ast.Field | ast.Const]:
        return [m for m in self.members(cls) if isinstance(m, (ast.Field, ast.Const)) and not getattr(m, "static", False)]

    def qualified(self, cls: ast.ClassDecl) -> str:
        return ".".join([*self.modules.get(id(cls), ()), cls.name])

"""Just enough type resolution for boundaries and emission: what a declared type is underneath.

Follows type synonyms, subset types and newtypes to a base kind, and collects the constraints that
subset types and `nat` put on a variable (as Dafny expressions over that variable).
"""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.model.walk import substitute

INT_LIKE = {"int", "nat"}
COLLECTIONS = {"seq": "seq", "string": "seq", "set": "set", "iset": "set", "multiset": "multiset",
               "map": "map", "imap": "map"}


@dataclass(frozen=True)
class TypeIndex:
    decls: dict[str, ast.Decl]  # type declarations by short and qualified name

    @staticmethod
    def of(program: ast.Program) -> "TypeIndex":
        decls: dict[str, ast.Decl] = {}
        _collect_owners(program.decls, (), decls)
        return TypeIndex(decls)

    def base(self, t: ast.Type, depth: int = 0) -> ast.Type:
        """Unfold synonyms, subset types and newtypes (bounded, in case of cycles)."""
        if not isinstance(t, ast.NamedType) or depth > 20:
            return t
        d = self.decls.get(t.name)
        if isinstance(d, ast.SubsetType):
            return self.base(d.base, depth + 1)
        if isinstance(d, ast.Newtype):
            return self.base(d.base, depth + 1)
        if isinstance(d, ast.TypeSynonym) and d.rhs is not None and not d.type_params:
            return self.base(d.rhs, depth + 1)
        return t

    def kind(self, t: ast.Type) -> str:
        """"int", "bool", "char", "real", "seq", "set", "multiset", "map", "array", "array2", "array3",
        "datatype", "class" (a class, trait or `object`), "other"."""
        b = self.base(t)
        if not isinstance(b, ast.NamedType):
            return "other"
        name = b.name.rstrip("?")
        if name == "object":
            return "class"
        if name in INT_LIKE:
            return "int"
        if name in ("bool", "char", "real"):
            return name
        if name in COLLECTIONS:
            return COLLECTIONS[name]
        if name == "array":
            return "array"
        if name in ("array2", "array3"):
            return name
        d = self.decls.get(name)
        if isinstance(d, ast.Datatype):
            return "datatype"
        if isinstance(d, ast.ClassDecl):
            return "class"
        return "other"

    def constraints(self, name: str, t: ast.Type) -> list[ast.Expr]:
        """Constraints a value of declared type `t` must meet, about the variable `name`."""
        return [e for e, _ in self.sourced_constraints(name, t)]

    def sourced_constraints(self, name: str, t: ast.Type, depth: int = 0) -> list[tuple[ast.Expr, ast.Decl | None]]:
        """`constraints`, each with the subset type that states it (its names are written in that type's
        module; None for `nat`)."""
        if not isinstance(t, ast.NamedType) or depth > 20:
            return []
        if t.name == "nat":
            return [(ast.BinOp(">=", ast.Name(name), ast.IntLit(0)), None)]
        d = self.decls.get(t.name)
        if isinstance(d, ast.SubsetType):
            own = substitute(d.constraint, {d.var: ast.Name(name)})
            return self.sourced_constraints(name, d.base, depth + 1) + [(own, d)]
        if isinstance(d, ast.TypeSynonym) and d.rhs is not None and not d.type_params:
            return self.sourced_constraints(name, d.rhs, depth + 1)
        return []


def _collect_owners(decls: tuple[ast.Decl, ...], module: tuple[str, ...], out: dict[str, ast.Decl]) -> None:
    for d in decls:
        if isinstance(d, ast.Module):
            _collect_owners(d.decls, module + tuple(d.name.split(".")), out)
        elif isinstance(d, (ast.ClassDecl, ast.Datatype, ast.Newtype, ast.TypeSynonym, ast.SubsetType)):
            out.setdefault(d.name, d)
            out[".".join([*module, d.name])] = d

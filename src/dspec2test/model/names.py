"""Names as the tests file can write them.

The tests live in the default module and open the modules of the members they test; a name the contract
reaches through its own module's imports (a datatype of a nested module, a function of an opened one)
does not resolve there. So every name a test writes that denotes a declaration inside a module is
written with that module's full path (`Lang.Syntax.Stmt`, `Lang.Syntax.Size(s)`); top-level names stay
as they are. (Here in model/, not emit/: the solver writes a type's witness into a test's literal too.)
"""

from __future__ import annotations

from dspec2test.dafny import ast
from dspec2test.model.resolve import Resolver, Scope
from dspec2test.model.walk import bound_names, dotted, map_children, rebuild

_BUILTIN_TYPES = {"int", "nat", "bool", "char", "real", "string", "seq", "set", "iset", "multiset", "map", "imap",
                  "array", "array?", "array2", "array2?", "array3", "array3?", "object", "object?", "ORDINAL"}


class TestNames:
    def __init__(self, program: ast.Program, resolver: Resolver | None = None):
        self.resolver = resolver or Resolver(program)

    def scope(self, member: object) -> Scope:
        return self.resolver.scope_of(member)

    def qualified(self, name: str, scope: Scope, types: bool = False) -> str | None:
        """The full path of the declaration `name` denotes from `scope`, when it lies in a module; `types`:
        a type's (the resolver's lookup of type names)."""
        found = (self.resolver.lookup(scope, name, types=True) if types else None) or self.resolver.lookup(scope, name)
        if found is None:
            return None
        decl, where = found
        if isinstance(decl, ast.Module) or not where.module:
            return None
        if not isinstance(decl, (ast.Function, ast.Method, ast.Const, ast.Ctor, ast.Datatype, ast.ClassDecl,
                                 ast.SubsetType, ast.Newtype, ast.TypeSynonym)):
            return None
        if isinstance(decl, (ast.Function, ast.Method, ast.Const)) and where.cls is not None:
            return None  # a class member: the test reaches it through an object or its class
        return ".".join([*where.module, decl.name])

    def type(self, t: ast.Type, scope: Scope) -> ast.Type:
        def fn(n: ast.Node) -> ast.Node | None:
            if isinstance(n, ast.NamedType) and n.name.rstrip("?") not in _BUILTIN_TYPES:
                q = self.qualified(n.name.rstrip("?"), scope, types=True)
                if q is not None:
                    return ast.NamedType(q + "?" * n.name.endswith("?"), n.args, span=n.span)
            return None

        return rebuild(t, fn)

    def expr(self, e: ast.Expr, scope: Scope, locals_: set[str]) -> ast.Expr:
        """e with every free name (or dotted name) of a module-level declaration written in full."""

        def go(n: ast.Node, bound: frozenset[str]) -> ast.Node:
            if isinstance(n, (ast.NamedType, ast.TupleType, ast.ArrowType)):  # `c as opt_byte`, `x: T`
                return self.type(n, scope)
            if isinstance(n, ast.Name) and n.name not in bound and n.name.split(".")[0] not in bound:
                q = self.qualified(n.name, scope)
                return ast.Name(q, n.type_args, span=n.span) if q is not None else n
            if isinstance(n, ast.MemberSelect):
                path = dotted(n)
                if path is not None and path.split(".")[0] not in bound:
                    q = self.qualified(path, scope)
                    if q is not None:
                        return ast.Name(q, n.type_args, span=n.span)
            inner = bound | bound_names(n)
            return map_children(n, lambda c: go(c, inner))

        return go(e, frozenset(locals_))  # type: ignore[return-value]



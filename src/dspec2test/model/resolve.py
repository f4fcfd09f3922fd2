"""Name and type resolution for contract expressions: just what encoding and literal printing need.

`Scope` finds the declaration a name denotes from a member's enclosing module/class; `Resolver.rtype`
turns a syntactic `ast.Type` into an `RType`, expanding type synonyms and keeping subset types and
newtypes (with their constraint) so the solver can assert them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported

SCALARS = ("int", "bool", "real", "char")

# what an RType's `decl` is: the declaration of a datatype, class or trait, subset type or newtype
TypeDecl = ast.Datatype | ast.ClassDecl | ast.SubsetType | ast.Newtype
# what a name denotes: a declaration, or a datatype's constructor
Named = ast.Decl | ast.Ctor
TYPE_DECLS = (ast.ClassDecl, ast.Datatype, ast.Newtype, ast.SubsetType, ast.TypeSynonym)


@dataclass(frozen=True)
class RType:
    """A resolved type. kind: int bool real char bv seq set multiset map tuple data arrow array array2 array3
    subset newtype class (a class, trait or `object`: a reference; `name` ends in "?" where it may be null).

    `args`: element/argument types (subset/newtype: (base,)); `name`: the Dafny name to print (datatypes,
    subset types, newtypes; qualified where the declaration sits in a module); `decl`: the declaration;
    `scope`: where names inside the declaration resolve.
    """

    kind: str
    args: tuple[RType, ...] = ()
    width: int = 0
    name: str = ""
    decl: TypeDecl | None = field(default=None, compare=False, hash=False, repr=False)
    scope: Scope | None = field(default=None, compare=False, hash=False, repr=False)
    is_string: bool = False  # written `string`: printed as a string literal

    @property
    def base(self) -> RType:
        """The type with subset/newtype layers stripped (what operations act on)."""
        t = self
        while t.kind in ("subset", "newtype"):
            t = t.args[0]
        return t

    @property
    def elem(self) -> RType:
        return self.base.args[0]

    @property
    def refinement(self) -> tuple[ast.SubsetType | ast.Newtype, Scope]:
        """A subset type's or newtype's declaration and the scope its constraint resolves in."""
        assert isinstance(self.decl, (ast.SubsetType, ast.Newtype)) and self.scope is not None, self.kind
        return self.decl, self.scope

    @property
    def constraint(self) -> ast.Expr | None:
        """A subset type's or newtype's constraint (None: it has none, or the type is of another kind)."""
        return self.decl.constraint if isinstance(self.decl, (ast.SubsetType, ast.Newtype)) else None

    @property
    def datatype(self) -> tuple[ast.Datatype, Scope]:
        """A datatype's declaration and the scope names inside it resolve in (kind "data" only)."""
        assert isinstance(self.decl, ast.Datatype) and self.scope is not None, self.kind
        return self.decl, self.scope


INT = RType("int")
BOOL = RType("bool")
REAL = RType("real")
CHAR = RType("char")
NAT_NAME = "nat"
_ALIAS_DEPTH = 8  # imports of imports followed this deep (a cycle is an error Dafny reports)


UNREADABLE = "unreadable declaration"


def unreadable_use(decl: ast.Unreadable, line: int, col: int) -> Unsupported:
    """A use of a declaration the parser skipped, located at the use: what it is cannot be known, so what
    uses it is refused with the reason rather than an "unknown name"."""
    where = f"{decl.origin}:{decl.span.line}" if decl.origin else f"line {decl.span.line}"
    return Unsupported(UNREADABLE, line, col, f"cannot read the declaration of {decl.described} at {where}")


def _import_name(imp: ast.Import) -> str:
    """The name an import is known by in its module: its alias, or the last part of its target."""
    return imp.alias or imp.target.split(".")[-1]


def seq_of(t: RType) -> RType:
    return RType("seq", (t,))


STRING = RType("seq", (CHAR,), is_string=True)


@dataclass(frozen=True)
class Scope:
    """A lookup position: the module path (names of nested modules from the top) and the enclosing class."""

    resolver: Resolver = field(compare=False, hash=False, repr=False)
    module: tuple[str, ...] = ()
    cls: ast.ClassDecl | ast.Datatype | None = field(default=None, compare=False, hash=False)

    def lookup(self, name: str) -> tuple[Named, Scope] | None:
        return self.resolver.lookup(self, name)

    def prefix(self) -> str:
        return "".join(m + "." for m in self.module)


class Resolver:
    """Indexes a program's declarations by module so names and types can be resolved from any member."""

    def __init__(self, program: ast.Program):
        self.program = program
        self.modules: dict[tuple[str, ...], dict[str, Named]] = {}
        # a module's type declarations by name: a constructor or function may have a type's name
        # (`datatype SubParser_ = SubParser(...)` and `type SubParser = ...`), the table above keeps the first
        self.type_decls: dict[tuple[str, ...], dict[str, Named]] = {}
        self.imports: dict[tuple[str, ...], list[ast.Import]] = {}
        self.member_scope: dict[int, Scope] = {}  # id(member) -> scope
        self._index((), program.decls, None)

    # ---------------------------------------------------------------- indexing

    def _index(self, path: tuple[str, ...], decls: tuple[ast.Decl, ...],
               cls: ast.ClassDecl | ast.Datatype | None) -> None:
        table = self.modules.setdefault(path, {})
        for d in decls:
            if isinstance(d, ast.Module):
                sub = path + tuple(d.name.split("."))
                table.setdefault(d.name.split(".")[0], d)
                self._index(sub, d.decls, None)
            elif isinstance(d, ast.Import):
                self.imports.setdefault(path, []).append(d)
            elif isinstance(d, (ast.ClassDecl, ast.Datatype, ast.Newtype, ast.TypeSynonym)):
                table.setdefault(d.name, d)
                self.type_decls.setdefault(path, {}).setdefault(d.name, d)
                self.member_scope[id(d)] = Scope(self, path, cls)  # where its own clauses' names resolve
                if isinstance(d, ast.Datatype):
                    for c in d.ctors:
                        table.setdefault(c.name, c)
                scope = Scope(self, path, d if isinstance(d, (ast.ClassDecl, ast.Datatype)) else None)
                for m in getattr(d, "members", ()):
                    self.member_scope[id(m)] = scope
            elif isinstance(name := getattr(d, "name", None), str):  # a member (a nameless export set aside)
                table.setdefault(name, d)
                if isinstance(d, TYPE_DECLS):  # a subset type
                    self.type_decls.setdefault(path, {}).setdefault(name, d)
                self.member_scope[id(d)] = Scope(self, path, cls)

    def scope_of(self, member: object | None) -> Scope:
        if member is None:
            return Scope(self, ())
        return self.member_scope.get(id(member), Scope(self, ()))

    # ---------------------------------------------------------------- names

    def lookup(self, scope: Scope, name: str, types: bool = False) -> tuple[Named, Scope] | None:
        """The declaration `name` (possibly dotted) denotes from `scope`, with the scope it lives in;
        `types`: only a type declaration (a type and a function may share a name: `function JSON(js: JSON)`
        of a module that opens the one declaring the type)."""
        parts = name.split(".")
        if len(parts) > 1:
            mod = self._module_path(scope, parts[:-1])
            if mod is not None:
                return self._in_module(mod, parts[-1], types)
            # Type.member (static member or constructor qualified by its datatype)
            head = self.lookup(scope, ".".join(parts[:-1]))
            if head and isinstance(head[0], ast.Unreadable):
                return head  # `C.F` of a class the parser could not read: it stands for what it holds
            if head and isinstance(head[0], (ast.Datatype, ast.ClassDecl)):
                d, s = head[0], head[1]
                if isinstance(d, ast.Datatype):
                    for c in d.ctors:
                        if c.name == parts[-1]:
                            return c, s
                for m in d.members:
                    if getattr(m, "name", None) == parts[-1]:
                        return m, Scope(self, s.module, d)
            return None
        if scope.cls is not None and not types:
            for m in getattr(scope.cls, "members", ()):
                if getattr(m, "name", None) == name:
                    return m, scope
        path = scope.module
        while True:  # the enclosing modules, innermost first (lenient: Dafny needs imports for outer ones)
            found = self._in_module(path, name, types)
            if found:
                return found
            for imp in self.imports.get(path, []):
                if imp.opened:
                    target = self._module_path(Scope(self, path), imp.target.split("."))
                    if target is not None:
                        found = self._in_module(target, name, types)
                        if found:
                            return found
            if not path:
                return None
            path = path[:-1]

    def ctor_named(self, module: tuple[str, ...], name: str) -> ast.Ctor | None:
        """The constructor `name` of a datatype of `module` (where a type of that name hides it)."""
        for d in self.modules.get(module, {}).values():
            if isinstance(d, ast.Datatype):
                found = next((c for c in d.ctors if c.name == name), None)
                if found is not None:
                    return found
        return None

    def _in_module(self, path: tuple[str, ...], name: str, types: bool = False) -> tuple[Named, Scope] | None:
        d = (self.type_decls if types else self.modules).get(path, {}).get(name)
        if d is None:
            return None
        if isinstance(d, ast.Module):
            return d, Scope(self, path + (name,))
        if isinstance(d, ast.Ctor):
            return d, Scope(self, path)
        return d, self.member_scope.get(id(d), Scope(self, path))

    def _module_path(self, scope: Scope, parts: list[str] | tuple[str, ...], depth: int = 0) -> tuple[str, ...] | None:
        """The module a (possibly aliased) dotted module name denotes, or None. Each part may be a nested
        module or an import of the module before it (`import Small = Large.Small`, where Large is itself
        an import): refinements of abstract modules name their parameters that way."""
        if depth > _ALIAS_DEPTH or not parts:
            return None
        path = scope.module
        while True:
            for imp in self.imports.get(path, []):
                if _import_name(imp) == parts[0]:
                    target = self._import_target(path, imp, depth)
                    found = self._descend(target, parts[1:], depth) if target is not None else None
                    if found is not None:
                        return found
            found = self._descend(path, parts, depth) if any(path + tuple(parts[:k]) in self.modules
                                                             for k in range(1, len(parts) + 1)) else None
            if found is not None:
                return found
            found = self._through_opened(path, parts, depth)
            if found is not None:
                return found
            if not path:
                return None
            path = path[:-1]

    def _through_opened(self, path: tuple[str, ...], parts: list[str] | tuple[str, ...],
                        depth: int) -> tuple[str, ...] | None:
        """A module name an opened import brings: `import opened Core` where Core has `import Spec`
        makes `Spec.Maybe` a name of the importing module, as Dafny reads it."""
        if depth >= _ALIAS_DEPTH:
            return None
        for imp in self.imports.get(path, []):
            if not imp.opened:
                continue
            opened = self._import_target(path, imp, depth + 1)
            for inner in self.imports.get(opened, []) if opened is not None else []:
                if _import_name(inner) == parts[0]:
                    target = self._import_target(opened, inner, depth + 1)  # type: ignore[arg-type]
                    found = self._descend(target, parts[1:], depth + 1) if target is not None else None
                    if found is not None:
                        return found
        return None

    def _import_target(self, path: tuple[str, ...], imp: ast.Import, depth: int) -> tuple[str, ...] | None:
        """The module an import of the module at `path` denotes: its target, read from the module's
        container outwards (an alias of the same module may start it)."""
        target = tuple(imp.target.split("."))
        absolute = self._absolute(path, target)
        if absolute is not None:
            return absolute
        own = [i for i in self.imports.get(path, []) if i is not imp]
        for other in own:
            if _import_name(other) == target[0]:
                head = self._import_target(path, other, depth + 1) if depth < _ALIAS_DEPTH else None
                if head is not None:
                    return self._descend(head, target[1:], depth + 1)
        return self._module_path(Scope(self, path[:-1]), target, depth + 1) if path else None

    def _descend(self, module: tuple[str, ...], rest: list[str] | tuple[str, ...], depth: int) -> tuple[str, ...] | None:
        """`rest` read inside `module`: nested modules, or imports of the module reached so far. A module
        declared with a dotted name (`module JSON.Utils.Views.Core`) has no entry for its prefixes: the
        longest run of parts that names a module is taken first."""
        rest = tuple(rest)
        i = 0
        while i < len(rest):
            j = next((j for j in range(len(rest), i, -1) if module + rest[i:j] in self.modules), None)
            if j is not None:
                module, i = module + rest[i:j], j
                continue
            part = rest[i]
            imp = next((m for m in self.imports.get(module, []) if _import_name(m) == part), None)
            nxt = self._import_target(module, imp, depth + 1) if imp is not None and depth < _ALIAS_DEPTH else None
            if nxt is None:
                return None
            module, i = nxt, i + 1
        return module

    def _absolute(self, path: tuple[str, ...], target: tuple[str, ...]) -> tuple[str, ...] | None:
        while True:
            if path + target in self.modules:
                return path + target
            if not path:
                return None
            path = path[:-1]

    # ---------------------------------------------------------------- types

    def rtype(self, t: ast.Type, scope: Scope, tsubst: dict[str, RType] | None = None) -> RType:
        """Resolve a syntactic type; type parameters come from `tsubst` (default `int`)."""
        tsubst = tsubst or {}
        line, col = t.span.line, t.span.col
        if isinstance(t, ast.TupleType):
            if not t.elems:
                return RType("tuple")
            if len(t.elems) == 1:
                return self.rtype(t.elems[0], scope, tsubst)
            return RType("tuple", tuple(self.rtype(e, scope, tsubst) for e in t.elems))
        if isinstance(t, ast.ArrowType):
            # `~>` and `-->` alike: the function values a test builds are total lambdas that read
            # nothing, which every arrow type admits (their requires and reads are true and {})
            return RType("arrow", tuple(self.rtype(p, scope, tsubst) for p in t.params)
                         + (self.rtype(t.result, scope, tsubst),))
        nullable = t.name.endswith("?")
        name = t.name.rstrip("?")
        args = tuple(self.rtype(a, scope, tsubst) for a in t.args)
        if name in tsubst and not args:
            return tsubst[name]
        if name in SCALARS:
            return RType(name)
        if name == "nat":
            return RType("subset", (INT,), name="nat")
        if name == "string":
            return STRING
        if name.startswith("bv") and name[2:].isdigit():
            return RType("bv", width=int(name[2:]))
        if name in ("seq", "set", "multiset", "iset"):
            if len(args) != 1:
                args = (INT,)
            if name == "iset":
                raise Unsupported("iset", line, col)
            return RType(name, args)
        if name in ("map", "imap"):
            if name == "imap":
                raise Unsupported("imap", line, col)
            return RType("map", args if len(args) == 2 else (INT, INT))
        if name == "array":
            return RType("array", args or (INT,))
        if name in ("array2", "array3"):
            return RType(name, args or (INT,))
        if name == "object":
            return RType("class", name="object" + "?" * nullable)
        if name == "ORDINAL" or name.startswith("array"):
            raise Unsupported(f"type {name}", line, col)
        found = self.lookup(scope, name, types=True) or self.lookup(scope, name)
        if found is None:
            raise Unsupported(f"unknown type {name}", line, col)
        decl, dscope = found
        if isinstance(decl, ast.Unreadable):
            raise unreadable_use(decl, line, col)
        params = [p.name for p in getattr(decl, "type_params", ())]
        inner = dict(zip(params, args + (INT,) * (len(params) - len(args))))
        if isinstance(decl, ast.TypeSynonym):
            if decl.rhs is None:
                raise Unsupported(f"opaque type {name}", line, col)
            return self.rtype(decl.rhs, dscope, inner)
        if not isinstance(decl, (ast.SubsetType, ast.Newtype, ast.Datatype, ast.ClassDecl)):
            raise Unsupported(f"type {name}", line, col)
        qual = dscope.prefix() + decl.name
        if isinstance(decl, ast.SubsetType):
            base = self.rtype(decl.base, dscope, inner)
            return RType("subset", (base,), name=qual, decl=decl, scope=dscope)
        if isinstance(decl, ast.Newtype):
            base = self.rtype(decl.base, dscope, inner)
            return RType("newtype", (base,), name=qual, decl=decl, scope=dscope)
        if isinstance(decl, ast.Datatype):
            if decl.co:
                raise Unsupported("codatatype", line, col)
            targs = tuple(inner[p] for p in params)
            return RType("data", targs, name=qual, decl=decl, scope=dscope)
        if isinstance(decl, ast.ClassDecl):
            targs = tuple(inner[p] for p in params)
            return RType("class", targs, name=qual + "?" * nullable, decl=decl, scope=dscope)
        raise Unsupported(f"type {name}", line, col)

    def ctor_fields(self, dt: RType, ctor: ast.Ctor) -> list[tuple[str, RType]]:
        """The (name, type) of each constructor formal, with the datatype's type arguments substituted."""
        decl, scope = dt.datatype
        subst = dict(zip([p.name for p in decl.type_params], dt.args))
        return [(f.name, self.rtype(f.type, scope, subst)) for f in ctor.params]

    def ctor_name(self, dt: RType, ctor: ast.Ctor, from_scope: Scope) -> str:
        """How a constructor is written in a test that lives in the default module."""
        decl, scope = dt.datatype
        return scope.prefix() + decl.name + "." + ctor.name if scope.module else ctor.name

"""The fields of datatype and tuple inputs, as the diversity pins speak of them: `v.f` (`v.0` of a tuple),
guarded by the constructor test `v.C?` where v's type has several constructors (the field is only defined
on values built by C).

A record input (`Variables(value: int)`, `Constants(ids: seq<nat>)`) is as free as scalar and sequence
inputs are, and Z3's models of its fields are as regular (a field at -1, 0, or equal to another's), so the
pins treat its fields like inputs of their own. Only a datatype the type names without doubt is looked
into: a short name several modules declare alike (same constructors and fields) counts as one.
"""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_type
from dspec2test.model.contracts import Contract
from dspec2test.model.types import TypeIndex


@dataclass(frozen=True)
class InputField:
    term: ast.Expr  # `v.f`, `v.0`
    type: ast.Type  # as declared, the datatype's type arguments substituted
    guard: ast.Expr | None  # `v.C?`; None for a datatype of one constructor and for a tuple


def input_fields(contract: Contract, types: TypeIndex) -> list[InputField]:
    """The non-ghost fields of each non-ghost datatype or tuple parameter, and of the datatype value a
    member is called on (`this.f`), one level deep, in declaration order (a recursive datatype's own-typed
    fields come out too; the pins ignore types they cannot use)."""
    out: list[InputField] = []
    receiver = [v for v in contract.state if isinstance(v.expr, ast.ThisExpr)] if contract.datatype else []
    for v in (*contract.params, *receiver):
        if v.ghost:
            continue
        var = v.term
        base = types.base(v.type)
        if isinstance(base, ast.TupleType):
            out += [InputField(ast.MemberSelect(var, str(k)), t, None) for k, t in enumerate(base.elems)]
            continue
        d = datatype_of(base, types)
        if d is None or d.co or not isinstance(base, ast.NamedType):
            continue
        params = [p.name for p in d.type_params]
        args = dict(zip(params, base.args)) if len(base.args) == len(params) else {}
        unknown = set(params) - set(args)
        several = len(d.ctors) > 1
        for ctor in d.ctors:
            if ctor.ghost:  # no test builds one
                continue
            guard = ast.MemberSelect(var, ctor.name + "?") if several else None
            for f in ctor.params:
                if f.ghost or not f.name or f.name[0].isdigit() or _mentions(f.type, unknown):
                    continue
                out.append(InputField(ast.MemberSelect(var, f.name), _substitute(f.type, args), guard))
    return out


def datatype_of(t: ast.Type, types: TypeIndex) -> ast.Datatype | None:
    """The datatype a type names; None for other types, and for a short name that several modules declare
    with different constructors or fields (the index keeps the first, which may be the wrong one)."""
    if not isinstance(t, ast.NamedType):
        return None
    d = types.decls.get(t.name)
    if not isinstance(d, ast.Datatype):
        return None
    if "." not in t.name:
        alike = {_layout(x) for x in types.decls.values() if isinstance(x, ast.Datatype) and x.name == t.name}
        if len(alike) > 1:
            return None
    return d


def field_index(types: TypeIndex, ctor: str, name: str) -> int | None:
    """Where field `name` sits among the arguments of a value built by constructor `ctor` (a model's
    datatype value lists them in declaration order); None when no datatype, or several differently,
    have such a constructor and field."""
    places = {next((k for k, p in enumerate(c.params) if p.name == name), None)
              for d in types.decls.values() if isinstance(d, ast.Datatype) for c in d.ctors if c.name == ctor}
    return places.pop() if len(places) == 1 else None


def ctor_test(types: TypeIndex, ctor: str, name: str) -> bool | None:
    """`v.N?` on a value built by constructor `ctor`, when N is a constructor of its datatype; None when
    `N?` is a member of it instead (`predicate Valid?()`, `const Valid?`) or no datatype is known."""
    owners = [d for d in types.decls.values() if isinstance(d, ast.Datatype) and any(c.name == ctor for c in d.ctors)]
    if not name.endswith("?") or not owners \
            or not all(any(c.name == name[:-1] for c in d.ctors) for d in owners):
        return None
    return ctor == name[:-1]


def _layout(d: ast.Datatype) -> tuple:
    return tuple((c.name, tuple((p.name, print_type(p.type), p.ghost) for p in c.params)) for c in d.ctors)


def _substitute(t: ast.Type, args: dict[str, ast.Type]) -> ast.Type:
    if isinstance(t, ast.NamedType):
        if not t.args and t.name in args:
            return args[t.name]
        return ast.NamedType(t.name, tuple(_substitute(a, args) for a in t.args)) if t.args else t
    if isinstance(t, ast.TupleType):
        return ast.TupleType(tuple(_substitute(e, args) for e in t.elems))
    return t


def _mentions(t: ast.Type, names: set[str]) -> bool:
    if not names:
        return False
    if isinstance(t, ast.NamedType):
        return t.name in names or any(_mentions(a, names) for a in t.args)
    if isinstance(t, ast.TupleType):
        return any(_mentions(e, names) for e in t.elems)
    return True  # an arrow or other type: may mention them, and the pins have no use for it

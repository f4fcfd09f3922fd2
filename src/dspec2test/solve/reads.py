"""The field names a contract reads (witness.py keeps the others at a witness's values): its clauses' and
those of the functions it reaches, by name. Names, not resolved fields: a name shared with anything else
counts too, which only makes more of an input solved."""

from __future__ import annotations

from collections.abc import Iterable

from dspec2test.dafny import ast
from dspec2test.model.contracts import iter_members
from dspec2test.model.walk import bound_names, children


class Reads:
    """The field names a contract reads: its clauses' and those of the functions it reaches (a qualified
    call `Code.Create(...)` reaches the functions of that qualified name, not every `Create`)."""

    def __init__(self, program: ast.Program):
        self.bodies: dict[str, list[tuple[ast.Expr, frozenset[str]]]] = {}  # with their parameters' names
        self.qualified: dict[str, list[tuple[ast.Expr, frozenset[str]]]] = {}  # by module path and name
        self.fields: dict[str, set[str]] = {}  # constructor name -> its fields' names
        for scope, d in iter_members(program.decls):
            if isinstance(d, ast.Function) and d.body is not None:
                body = (d.body, frozenset(p.name for p in d.params))
                self.bodies.setdefault(d.name, []).append(body)
                owner = [scope.owner.name] if scope.owner is not None else []  # type: ignore[attr-defined]
                self.qualified.setdefault(".".join([*scope.module, *owner, d.name]), []).append(body)
        for d in ast.preorder(program):
            if isinstance(d, ast.Datatype):
                for c in d.ctors:
                    self.fields.setdefault(c.name, set()).update(p.name for p in c.params if p.name)

    def _reached(self, name: str) -> list[tuple[ast.Expr, frozenset[str]]]:
        if "." not in name:
            return self.bodies.get(name, [])
        found = [b for q, bs in self.qualified.items() if q == name or q.endswith("." + name) for b in bs]
        return found or self.bodies.get(name.split(".")[-1], [])  # an alias we do not follow: every one

    def of(self, exprs: Iterable[ast.Expr], bound: frozenset[str] = frozenset()) -> frozenset[str]:
        """`bound`: the variables of exprs (parameters, a constraint's variable), which are no fields."""
        names: set[str] = set()
        todo = [(e, bound) for e in exprs]
        seen: set[str] = set()
        while todo:
            e, local = todo.pop()
            found, calls = names_in(e, self.fields, local)
            names |= found
            for n in calls - seen:
                seen.add(n)
                todo += self._reached(n)
        return frozenset(names)


def names_in(e: ast.Node, ctor_fields: dict[str, set[str]], bound: frozenset[str] = frozenset()
           ) -> tuple[set[str], set[str]]:
    """Every name e may read a field by: selected, updated, bare and not bound (a member's own fields),
    or called (a function's name); and the names of the functions it may call, qualified where written so.
    A constructor applied or matched reads all of its fields, which are named with it (`ERROR.gas`:
    another constructor's `gas` is not read by that)."""
    out: set[str] = set()
    calls: set[str] = set()
    todo: list[tuple[ast.Node, frozenset[str]]] = [(e, bound)]
    while todo:
        n, local = todo.pop()
        if isinstance(n, ast.MemberSelect):
            out.add(n.name)
            path = _dotted(n)  # `Code.Create` on a module, not on a value
            calls.add(path if path is not None and path.split(".")[0] not in local else n.name)
        elif isinstance(n, ast.Name):
            parts = n.name.split(".")
            out.update(parts[1:] if parts[0] in local else parts)
            out.update(f"{parts[-1]}.{f}" for f in ctor_fields.get(parts[-1], ()))
            if parts[0] not in local:
                calls.add(n.name)
            elif len(parts) > 1:
                calls.add(parts[-1])
        elif isinstance(n, ast.DatatypeUpdate):
            out.update(f for f, _ in n.updates)
        elif isinstance(n, ast.PatCtor):
            ctor = n.name.split(".")[-1]
            out.update(f"{ctor}.{f}" for f in ctor_fields.get(ctor, ()))
        inner = local | bound_names(n)
        todo += [(c, inner) for c in children(n)]
    return out, calls


def _dotted(e: ast.Expr) -> str | None:
    if isinstance(e, ast.Name):
        return e.name
    if isinstance(e, ast.MemberSelect):
        inner = _dotted(e.obj)
        return f"{inner}.{e.name}" if inner is not None else None
    return None

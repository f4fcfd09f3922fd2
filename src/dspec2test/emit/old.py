"""Two-state clauses as runtime checks: `old(e)` in an `ensures` read from copies made before the call.

A test can only see the state after the call, so it snapshots what the clauses need first:
- each modified array as a sequence (`var dspec2test_old_a := a[..];`), for `old(a[i])`, `old(a[..])`,
  `old(a.Length)` and the like, also under quantifiers;
- otherwise a whole `old(E)` whose names are all parameters, as a value (`old(Sorted(a))`);
- the fields of objects it modifies the same way: `old(this.n)` as a value; under a binder, each field
  read as a value of its own, an array field as a sequence (`var dspec2test_old_this_a := o.a[..];`).
In a `requires`, `old(e)` is `e`: the test checks it before the call. Where the member modifies more
than array parameters and objects, old() stays unchecked, as the solver does not model it either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeGuard

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.model.contracts import Contract
from dspec2test.model.objects import reads_objects
from dspec2test.model.walk import bound_names, free_names, map_children, rebuild, substitute, walk

PREFIX = "dspec2test_old_"


def strip_old(e: ast.Expr) -> ast.Expr:
    """`old(x)` -> `x`: right where the state is still the one before the call."""
    return rebuild(e, lambda n: n.expr if isinstance(n, ast.Old) and n.label is None else None)


@dataclass
class Snapshots:
    """The copies one contract's ensures need, declared once each, in the order first needed."""

    contract: Contract
    scope: Callable[[ast.Expr], ast.Expr]  # the test's view of a contract expression (receiver, class)
    decls: list[str] = field(default_factory=list)
    _names: dict[str, str] = field(default_factory=dict)  # snapshot key -> variable name
    _pending: list[tuple[str, str]] = field(default_factory=list)  # (key, declaration) of the last clause

    def rewrite(self, e: ast.Expr) -> ast.Expr | None:
        """e with every old() read from a snapshot (None: some old() cannot be, the clause is unchecked)."""
        c = self.contract
        if not any(isinstance(n, ast.Old) for n in walk(e)):
            return e
        if not c.pre_state and getattr(c.member.spec, "modifies", None) and not self._objects():
            return None  # old() of something neither an array parameter nor an object's field
        failed = False
        # a value snapshot must not read the outputs or a variable the clause binds around the old()
        local = {v.name for v in c.outputs} | {x for n in walk(e) for x in bound_names(n)}

        def fn(n: ast.Node) -> ast.Node | None:
            nonlocal failed
            if not isinstance(n, ast.Old):
                return None
            if n.label is not None:
                failed = True
                return None
            out = self._old(n.expr, local)
            failed = failed or out is None
            return out

        out = rebuild(e, fn)
        return None if failed else out

    def _dims(self, array: str) -> int:
        t = next((v.type for v in self.contract.params if v.name == array), None)
        name = t.name.rstrip("?") if isinstance(t, ast.NamedType) else ""
        return int(name[-1]) if name in ("array2", "array3") else 1

    def _objects(self) -> set[str]:
        """The roots whose fields the member modifies (their names as the contract spells them)."""
        return {r.name.split(".")[0] for r in self.contract.objects.roots if any(f.modified for f in r.fields)}

    def _old(self, inner: ast.Expr, local: set[str]) -> ast.Expr | None:
        objects = self._objects()
        if objects and reads_objects(inner, objects):
            return self._old_heap(inner, local, objects)
        arrays = [a for a in self.contract.pre_state if a in free_names(inner)]
        if not arrays:
            return inner  # nothing it reads changes
        dims = {a: self._dims(a) for a in arrays}
        via_seq = _on_sequences(inner, {a: ast.Name(PREFIX + a) for a in arrays}, dims)
        if via_seq is not None:
            for a in arrays:
                self._declare(a, PREFIX + a, _copy(a, dims[a]))
            return via_seq
        if not free_names(inner) & local and not (isinstance(inner, ast.Name) and inner.name in arrays):
            text = print_expr(self.scope(inner))
            values = sum(1 for k in self._names if k not in self.contract.pre_state)  # array copies aside
            self._declare(text, f"{PREFIX}{values + 1}", text)
            return ast.Name(self._names[text])
        return None

    def _old_heap(self, inner: ast.Expr, local: set[str], objects: set[str]) -> ast.Expr | None:
        """old(E) where E reads objects the member modifies: E with each field it reads copied before the
        call (an array field as a sequence), so E is evaluated where the clause evaluates it, under its
        guards (a copy of `m[k]` made before the call would fail where `k in m` guards it). A function of
        an object is copied as a value, where it reads no bound variable."""
        fields = {print_expr(ast.MemberSelect(r.expr, f.name)): f for r in self.contract.objects.roots
                  for f in r.fields}
        whole = print_expr(inner)
        if isinstance(inner, ast.MemberSelect) and whole in fields and _is_array(fields[whole].type):
            return self._value(inner)  # old(o.a) is the array the field held before the call, not its contents

        def go(n: ast.Node) -> ast.Node:
            if isinstance(n, ast.MemberSelect) and print_expr(n) in fields:
                text = print_expr(n)
                if _is_array(fields[text].type):
                    self._declare(text, PREFIX + text.replace(".", "_"), f"{print_expr(self.scope(n))}[..]")
                    return ast.Name(self._names[text])
                if fields[text].ghost:
                    return n  # left as it is: the clause is ghost anyway
                return self._value(n)
            if isinstance(n, ast.MemberSelect) and n.name == "Length":
                inner_ = go(n.obj)
                if isinstance(inner_, ast.Name) and inner_.name.startswith(PREFIX):
                    return ast.Cardinality(inner_)
                return ast.MemberSelect(inner_, n.name)  # type: ignore[arg-type]
            if isinstance(n, ast.Call) and reads_objects(n, objects) and not free_names(n) & local:
                return self._value(n)
            return map_children(n, go)

        out = go(inner)
        if reads_objects(out, objects):  # a read that depends on a bound variable: no value to copy
            return None
        return out  # type: ignore[return-value]

    def _field_key(self, root, f) -> str:
        return print_expr(ast.MemberSelect(root.expr, f.name))

    def _value(self, inner: ast.Expr) -> ast.Expr:
        """A copy of inner's value before the call."""
        text = print_expr(self.scope(inner))
        values = sum(1 for n in self._names.values() if n[len(PREFIX):].isdigit())
        self._declare(text, f"{PREFIX}{values + 1}", text)
        return ast.Name(self._names[text])

    def _declare(self, key: str, name: str, value: str) -> None:
        if key not in self._names:
            self._names[key] = name
            self._pending.append((key, f"var {name} := {value};"))

    def keep(self) -> None:
        """The last rewritten clause is checked: its snapshots are declared."""
        self.decls += [d for _, d in self._pending]
        self._pending.clear()

    def discard(self) -> None:
        """The last rewritten clause is not checked: no snapshot for it (it may be ghost)."""
        for key, _ in self._pending:
            del self._names[key]
        self._pending.clear()


def _is_array(t: ast.Type) -> bool:
    return isinstance(t, ast.NamedType) and t.name in ("array", "array?")


def _copy(array: str, dims: int) -> str:
    """A copy of an array's elements as a sequence (of sequences, for a multi-dimensional one)."""
    if dims == 1:
        return f"{array}[..]"
    idx = [f"dspec2test_{c}" for c in "ijk"[:dims]]
    inner = f"{array}[{', '.join(idx)}]"
    for d in reversed(range(dims)):
        inner = f"seq({array}.Length{d}, {idx[d]} => {inner})"
    return inner


def _on_sequences(e: ast.Expr, copies: dict[str, ast.Name], dims: dict[str, int] | None = None) -> ast.Expr | None:
    """e with the arrays replaced by their sequence copies, where every use is one a sequence also has
    (indexing, slicing, `.Length` as `|s|`; `a[i, j]` as `s[i][j]`); None if an array is used as an object."""
    dims = dims or {}
    original = {c.name: ast.Name(a) for a, c in copies.items()}
    e = substitute(e, copies)
    names = {c.name for c in copies.values()}

    def is_copy(x: ast.Node) -> TypeGuard[ast.Name]:
        return isinstance(x, ast.Name) and x.name in names

    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.MemberSelect) and is_copy(n.obj) and n.name == "Length":
            return ast.Cardinality(n.obj)
        if isinstance(n, ast.MemberSelect) and is_copy(n.obj) and n.name == "Length0":
            return ast.Cardinality(n.obj)
        if isinstance(n, ast.MemberSelect) and is_copy(n.obj) and n.name in ("Length1", "Length2"):
            return ast.MemberSelect(original[n.obj.name], n.name)  # an array's lengths never change
        if isinstance(n, ast.Index) and is_copy(n.seq) and len(n.indices) > 1:
            out: ast.Expr = n.seq
            for i in n.indices:
                out = ast.Index(out, (i,))
            return out
        return None

    e = rebuild(e, fn)
    # the copies are shared nodes, so count positions rather than compare identities
    uses = len([n for n in walk(e) if is_copy(n)])
    as_sequence = len([n for n in walk(e) if isinstance(n, (ast.Index, ast.Slice)) and is_copy(n.seq)
                       and (dims.get(original[n.seq.name].name, 1) == 1 or isinstance(n, ast.Index))
                       or isinstance(n, ast.Cardinality) and is_copy(n.expr)])
    return e if uses == as_sequence else None

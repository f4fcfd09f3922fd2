"""A lemma's preconditions with calls of predicates unfolded into their bodies, for partitioning only.

A lemma's tests exercise the functions its clauses call. A predicate that holds in several ways (a
disjunction, an `exists` over the cases of a datatype, a `match`: `Next(v, v') == exists step ::
NextStep(v, v', step)`) would otherwise give inputs of one way only, and the other ways' functions would
never run. Unfolded a few levels, with the body's names written in full so that they mean in the lemma's
scope what they mean in the predicate's, the DNF splits the clause into one partition per way. Only
module-level predicates with a body, without type parameters, preconditions, reads clauses or a call of
themselves are unfolded; the checks keep the clauses as written.
"""

from __future__ import annotations

import dataclasses
import itertools

from dspec2test.dafny import ast
from dspec2test.model.resolve import Resolver, Scope
from dspec2test.partition.dnf import branches
from dspec2test.partition.lift import Definitions, binds_over
from dspec2test.model.walk import bound_names, called_names, free_names, map_children, rebuild, substitute, walk

MAX_DEPTH = 3  # levels of calls unfolded


class Unfolder:
    def __init__(self, program: ast.Program):
        self.resolver = Resolver(program)

    def splitting(self, e: ast.Expr, member: object, defs: Definitions | None = None) -> ast.Expr | None:
        """`e` with predicate calls unfolded, when that splits it into more branches than it had; else None.
        `member`: whose scope the names of `e` are in; `defs`: as the DNF gets them."""
        scope = self.resolver.scope_of(member)
        out = e
        for _ in range(MAX_DEPTH):
            step = rebuild(out, lambda n: self._unfolded(n, scope))
            if step == out:
                break
            out = step
        if out == e or _count(out, defs) <= _count(e, defs):
            return None
        return out

    def _unfolded(self, n: ast.Node, scope: Scope) -> ast.Node | None:
        if not (isinstance(n, ast.Call) and isinstance(n.callee, ast.Name) and n.label is None
                and not n.callee.type_args and not any(a is not None for a in n.arg_names)):
            return None
        found = self.resolver.lookup(scope, n.callee.name)
        if found is None:
            return None
        f, where = found
        if not _unfoldable(f, where) or len(n.args) != len(f.params):  # type: ignore[union-attr]
            return None
        assert isinstance(f, ast.Function) and f.body is not None
        body = self._in_full(f.body, self.resolver.scope_of(f), {p.name for p in f.params})
        if frozenset(x for a in n.args for x in free_names(a)) & binds_over(body):
            return None  # a binder of the body would capture a name of an argument
        return substitute(body, {p.name: a for p, a in zip(f.params, n.args)})

    def _in_full(self, e: ast.Expr, scope: Scope, locals_: set[str]) -> ast.Expr:
        """Free names of module-level declarations written with their module's path."""

        def go(n: ast.Node, bound: frozenset[str]) -> ast.Node:
            if isinstance(n, ast.Name) and n.name.split(".")[0] not in bound:
                found = self.resolver.lookup(scope, n.name)
                if found is not None and found[1].module and found[1].cls is None \
                        and isinstance(found[0], (ast.Function, ast.Const, ast.Ctor, ast.Datatype)):
                    return ast.Name(".".join([*found[1].module, n.name.split(".")[-1]]), n.type_args, span=n.span)
                return n
            if isinstance(n, ast.Quantifier) and any(v.type is None for v in n.vars):
                n = dataclasses.replace(n, vars=tuple(self._typed(v, n.body, scope) for v in n.vars))
            inner = bound | bound_names(n)
            return map_children(n, lambda c: go(c, inner))

        return go(e, frozenset(locals_))  # type: ignore[return-value]

    def _typed(self, v: ast.BoundVar, body: ast.Expr, scope: Scope) -> ast.BoundVar:
        """A bound variable Dafny types from its use, typed where it is an argument of a function whose
        parameter has a type (`exists step :: NextStep(v, v', step)`): its body is read in another scope."""
        if v.type is not None:
            return v
        for n in walk(body):
            if isinstance(n, ast.Call) and isinstance(n.callee, ast.Name):
                found = self.resolver.lookup(scope, n.callee.name)
                if found is None or not isinstance(found[0], ast.Function) or found[0].type_params:
                    continue
                for a, p in zip(n.args, found[0].params):
                    if isinstance(a, ast.Name) and a.name == v.name:
                        return dataclasses.replace(v, type=self._type_in_full(p.type, found[1]))
        return v

    def _type_in_full(self, t: ast.Type, scope: Scope) -> ast.Type:
        def fn(n: ast.Node) -> ast.Node | None:
            if isinstance(n, ast.NamedType):
                found = self.resolver.lookup(scope, n.name)
                if found is not None and found[1].module and isinstance(found[0], (ast.Datatype, ast.SubsetType,
                                                                                   ast.Newtype, ast.TypeSynonym)):
                    full = ".".join([*found[1].module, n.name.split(".")[-1]])
                    return ast.NamedType(full, tuple(self._type_in_full(a, scope) for a in n.args), span=n.span)
            return None

        return rebuild(t, fn)


def _unfoldable(f: object, where: Scope) -> bool:
    return (isinstance(f, ast.Function) and f.body is not None and where.cls is None and not f.type_params
            and not f.spec.requires and not f.spec.reads and f.name not in called_names(f.body)
            and (f.kind.startswith("predicate") or isinstance(f.result_type, ast.NamedType)
                 and f.result_type.name == "bool"))


def _count(e: ast.Expr, defs: Definitions | None) -> int:
    return sum(1 for _ in itertools.islice(branches(e, True, defs=defs), 65))

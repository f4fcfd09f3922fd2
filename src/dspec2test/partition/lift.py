"""Lifting value-level if-then-else and match out of the atoms they sit in.

`P(if c then a else b)` is `if c then P(a) else P(b)`, which the DNF splits into `c && P(a)` and
`!c && P(b)`; `P(match s case p1 => a case p2 => b)` is `match s case p1 => P(a) case p2 => P(b)`, one branch
per case. Only positions the atom evaluates whenever it is evaluated are lifted from: operands of strict
operators, call arguments, indices, let values and bodies; never a branch of a conditional, the right
operand of `&&`, `||`, `==>` or `<==`, a chain's later operands, or the inside of a quantifier,
comprehension, lambda or `old`. So a lifted condition is evaluated exactly where the atom would evaluate
it, and Safe DNF stays safe.

A short-circuit operator whose guarded operand holds something to lift is a conditional itself
(`A && B` is `if A then B else false`) and is lifted first, so `i < |s| && (if s[i] > 0 then ...)`
gives `i < |s|` as a guard before `s[i] > 0` is ever looked at. A let in a value position moves out to
the atom (its names renamed where they would capture one of the atom's), and the DNF's let rule then
splits its body. A call, written in the clause, of a function of the member's module defined by cases
(`function Abs(x: int): int { if x < 0 then -x else x }`) is unfolded once, so `r == Abs(x)` splits like
`r == if x < 0 then -x else x`; the calls its body makes stay calls.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import TypeGuard
from dataclasses import dataclass, field

from dspec2test.dafny import ast
from dspec2test.partition.patterns import Ctors
from dspec2test.model.walk import bound_names, free_names, pattern_names, rebuild, substitute

Plug = Callable[[ast.Expr], ast.Expr]

_SHORT = ("&&", "||", "==>", "<==")
# binders and state changes: their inside is evaluated under other names, or in another state
_OPAQUE = (ast.Quantifier, ast.SetComprehension, ast.MapComprehension, ast.Lambda, ast.SeqInit, ast.StmtExpr,
           ast.Old, ast.Fresh, ast.Unchanged, ast.Allocated, ast.MatchCase, ast.Attribute)
_HOLE = "\0hole"
MAX_UNFOLDINGS = 16  # calls unfolded in one clause at most


@dataclass(frozen=True)
class Definitions:
    """What lifting looks up in the program: its datatypes (to read case patterns) and the functions of the
    member's module that are defined by cases (to unfold a call of one)."""

    ctors: Ctors = field(default_factory=lambda: Ctors({}))
    functions: dict[str, ast.Function] = field(default_factory=dict)

    @staticmethod
    def of(program: ast.Program, module: tuple[str, ...] = (), types: Iterable[object] = ()) -> "Definitions":
        """`types`: the program's type declarations (datatypes among them); `module`: the member's module."""
        decls = _module_decls(program.decls, module)
        local = {d.name for d in decls if isinstance(d, (ast.Function, ast.Const, ast.Datatype))}
        local |= {c.name for d in decls if isinstance(d, ast.Datatype) for c in d.ctors}
        names = [d.name for d in decls if isinstance(d, ast.Function)]
        functions = {d.name: d for d in decls if isinstance(d, ast.Function) and names.count(d.name) == 1
                     and _by_cases(d) and _closed(d, local)}
        return Definitions(Ctors.of(types), functions)


class Unfolding:
    """The calls of one clause that may be unfolded (those written in it), and how many more may be."""

    def __init__(self, clause: ast.Expr, defs: Definitions):
        self.calls = {n for n in ast.preorder(clause) if isinstance(n, ast.Call) and _callee(n) in defs.functions}
        self.left = MAX_UNFOLDINGS


def lift(e: ast.Expr, defs: Definitions | None = None, unfolding: Unfolding | None = None) -> ast.Expr | None:
    """An equivalent expression with a conditional, match or let on top, for the DNF to split; None when
    nothing in `e`'s always-evaluated positions can be lifted. For a let, only its values are looked at
    (the DNF splits its body, and lifts the atoms it finds there)."""
    return _Lifter(defs or Definitions(), unfolding).lift(e)


class _Lifter:
    def __init__(self, defs: Definitions, unfolding: Unfolding | None):
        self.defs = defs
        self.unfolding = unfolding

    def lift(self, e: ast.Expr) -> ast.Expr | None:
        if isinstance(e, ast.Call) and self.is_site(e):  # a predicate defined by cases, called as an atom
            return self.lift_site(e, lambda x: x)
        if isinstance(e, ast.Let):
            if not _plain_let(e):
                return None
            for k, v in enumerate(e.values):
                found = (v, lambda x: x) if self.is_site(v) else self.first_site(v)
                if found is not None:
                    node, plug = found
                    return self.lift_site(node, _in_let_value(e, k, plug))
            return None
        found = self.first_site(e)
        return None if found is None else self.lift_site(*found)

    def lift_site(self, node: ast.Expr, plug: Plug) -> ast.Expr:
        if isinstance(node, ast.IfThenElse):
            return ast.IfThenElse(node.cond, plug(node.then), plug(node.els), span=node.span)
        if isinstance(node, ast.BinOp):  # a short-circuit operator: a conditional on its left operand
            a, b = node.left, node.right
            yes, no = {"&&": (b, ast.BoolLit(False)), "||": (ast.BoolLit(True), b), "==>": (b, ast.BoolLit(True)),
                       "<==": (ast.BoolLit(True), ast.UnOp("!", b))}[node.op]
            return ast.IfThenElse(a, plug(yes), plug(no), span=node.span)
        if isinstance(node, ast.Call):  # a function defined by cases: its body in place of the call
            assert self.unfolding is not None
            body = self.unfolded(node)  # before counting it: the last unfolding allowed is still made
            assert body is not None  # is_site said so
            self.unfolding.left -= 1
            return plug(body)
        outside = free_names(plug(ast.Name(_HOLE))) - {_HOLE}
        if isinstance(node, ast.MatchExpr):
            cases = []
            for case in node.cases:
                pattern, body = self.rename_apart(case.pattern, case.body, outside)  # type: ignore[arg-type]
                cases.append(ast.MatchCase(pattern, plug(body), case.attributes, span=case.span))
            return ast.MatchExpr(node.scrutinee, tuple(cases), span=node.span)
        assert isinstance(node, ast.Let)
        pats, body = node.pats, node.body
        clash = {n for p in pats for n in pattern_names(p)} & outside
        if clash:
            fresh = _fresh_names(clash, outside | free_names(node))
            pats = tuple(_rename_pattern(p, fresh) for p in pats)
            body = substitute(body, {k: ast.Name(v) for k, v in fresh.items()})
        return dataclasses.replace(node, pats=pats, body=plug(body))

    # ------------------------------------------------------------ sites

    def is_site(self, e: ast.Node) -> bool:
        """A node lifting rewrites: a conditional, a match of expressions, a let, a call to unfold, or a
        short-circuit operator with something to lift in its guarded operand."""
        if isinstance(e, ast.IfThenElse):
            return not e.binding
        if isinstance(e, ast.MatchExpr):
            return bool(e.cases) and all(isinstance(c.body, ast.Node) for c in e.cases)
        if isinstance(e, ast.Let):
            return _plain_let(e) and (any(self.has_site(v) for v in e.values) or self.has_site(e.body))
        if isinstance(e, ast.BinOp) and e.op in _SHORT:
            return self.has_site(e.right)
        if isinstance(e, ast.Call):
            return self.unfolded(e) is not None
        return False

    def has_site(self, e: ast.Expr) -> bool:
        return self.is_site(e) or self.first_site(e) is not None

    def first_site(self, e: ast.Expr) -> tuple[ast.Expr, Plug] | None:
        """The first site among e's always-evaluated proper subexpressions, in evaluation order."""
        for child, plug in _evaluated_children(e):
            if self.is_site(child):
                return child, plug
            inner = self.first_site(child)
            if inner is not None:
                node, inner_plug = inner
                return node, _composed(plug, inner_plug)
        return None

    def unfolded(self, call: ast.Call) -> ast.Expr | None:
        """The body of the called function with the arguments for its parameters (None: not to unfold)."""
        u = self.unfolding
        if u is None or u.left <= 0 or call not in u.calls or call.arg_names and any(call.arg_names):
            return None
        f = self.defs.functions[_callee(call)]  # type: ignore[index]
        if len(call.args) != len(f.params) or f.body is None:
            return None
        body = f.body
        if frozenset(n for a in call.args for n in free_names(a)) & binds_over(body):
            return None  # a binder of the body would capture a name of an argument
        body = substitute(body, {p.name: a for p, a in zip(f.params, call.args)})
        if f.result is not None and _generic_instance(f.result.type):
            # the result type instantiated the body's constructors (`Failure(0)` of a Result<Split>): kept
            # as a cast, which the encoder reads and no emitted check contains
            body = ast.Cast(body, f.result.type, span=call.span)
        return body

    def rename_apart(self, pattern: ast.Pattern, body: ast.Expr,
                     taken: frozenset[str]) -> tuple[ast.Pattern, ast.Expr]:
        """A case whose variables would capture names of the surrounding atom, with those variables renamed
        (a bare constructor name in a pattern binds nothing, and keeps its name)."""
        clash = {n for n in pattern_names(pattern) if not self.defs.ctors.nullary(n.split(".")[-1])} & taken
        if not clash:
            return pattern, body
        fresh = _fresh_names(clash, taken | free_names(body))
        return _rename_pattern(pattern, fresh), substitute(body, {k: ast.Name(v) for k, v in fresh.items()})


def _plain_let(e: ast.Let) -> bool:
    return e.such_that is None and not e.fail_op and len(e.pats) == len(e.values)


def _evaluated_children(e: ast.Expr) -> Iterator[tuple[ast.Expr, Plug]]:
    """The children evaluated whenever e is, each with a function that rebuilds e around a replacement."""
    if isinstance(e, _OPAQUE) or isinstance(e, (ast.IfThenElse, ast.MatchExpr, ast.Let)):
        return  # branches and bodies: guarded or under binders (the nodes themselves are sites)
    if isinstance(e, ast.Chain):  # `a < b < c` is `a < b && b < c`: c only when a < b
        for k in range(min(2, len(e.operands))):
            yield e.operands[k], _in_field_item(e, "operands", k, e.operands)
        return
    for f in dataclasses.fields(e):
        if f.name == "span":
            continue
        if isinstance(e, ast.BinOp) and e.op in _SHORT and f.name == "right":
            continue
        value = getattr(e, f.name)
        if isinstance(value, ast.Node) and _is_expr(value):
            yield value, _in_field(e, f.name)
        elif isinstance(value, tuple):
            for k, item in enumerate(value):
                if isinstance(item, ast.Node) and _is_expr(item):
                    yield item, _in_field_item(e, f.name, k, value)


def _is_expr(n: ast.Node) -> TypeGuard[ast.Expr]:
    return not isinstance(n, (ast.NamedType, ast.TupleType, ast.ArrowType, ast.Attribute, ast.BoundVar))


def _put(items: tuple, k: int, x: object) -> tuple:
    return items[:k] + (x,) + items[k + 1:]


# what puts an expression back where a site was taken out: `e` with its field, or item k of it, replaced

def _in_field(e: ast.Expr, name: str) -> Plug:
    return lambda x: dataclasses.replace(e, **{name: x})


def _in_field_item(e: ast.Expr, name: str, k: int, value: tuple) -> Plug:
    return lambda x: dataclasses.replace(e, **{name: _put(value, k, x)})


def _in_let_value(e: ast.Let, k: int, plug: Plug) -> Plug:
    return lambda x: dataclasses.replace(e, values=_put(e.values, k, plug(x)))


def _composed(outer: Plug, inner: Plug) -> Plug:
    return lambda x: outer(inner(x))


# ---------------------------------------------------------------- functions defined by cases


def _module_decls(decls: tuple[ast.Decl, ...], module: tuple[str, ...]) -> tuple[ast.Decl, ...]:
    if not module:
        return decls
    for d in decls:
        if isinstance(d, ast.Module):
            parts = tuple(d.name.split("."))
            if module[:len(parts)] == parts:
                return _module_decls(d.decls, module[len(parts):])
    return ()


def _by_cases(f: ast.Function) -> bool:
    """A body that is a conditional or a match (under lets), on a function that reads no heap."""
    if f.body is None or f.spec.reads or f.type_params:
        return False
    body = f.body
    while isinstance(body, ast.Let):
        body = body.body
    return isinstance(body, ast.IfThenElse) and not body.binding or isinstance(body, ast.MatchExpr)


def _generic_instance(t: ast.Type) -> bool:
    """A named type given type arguments, other than a built-in collection's."""
    return isinstance(t, ast.NamedType) and bool(t.args) and t.name.split(".")[-1] not in _COLLECTIONS


_COLLECTIONS = frozenset({"seq", "set", "iset", "multiset", "map", "imap", "array", "array2", "array3"})


def _closed(f: ast.Function, local: set[str]) -> bool:
    """The body names only its parameters and declarations of its own module: inlined where the member's
    clauses are (the same module), every name still means the same."""
    params = {p.name for p in f.params}
    return free_names(f.body) <= params | local  # type: ignore[arg-type]


def _callee(call: ast.Call) -> str | None:
    return call.callee.name if isinstance(call.callee, ast.Name) and not call.callee.type_args else None


# ---------------------------------------------------------------- renaming apart


def _fresh_names(names: set[str], taken: frozenset[str]) -> dict[str, str]:
    out = {}
    used = set(taken)
    for n in sorted(names):
        m = n + "'"
        while m in used:
            m += "'"
        used.add(m)
        out[n] = m
    return out


def _rename_pattern(p: ast.Pattern, fresh: dict[str, str]) -> ast.Pattern:
    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, (ast.PatVar, ast.PatBind)) and n.name in fresh:
            return dataclasses.replace(n, name=fresh[n.name])
        return None

    return rebuild(p, fn)


def binds_over(e: ast.Node) -> frozenset[str]:
    """Every name some binder inside e binds (a substitution of an expression mentioning one may capture)."""
    out: set[str] = set()
    stack = [e]
    while stack:
        n = stack.pop()
        out |= bound_names(n)
        stack.extend(c for c in _all_children(n))
    return frozenset(out)


def _all_children(n: ast.Node) -> Iterator[ast.Node]:
    for f in dataclasses.fields(n):
        if f.name == "span":
            continue
        v = getattr(n, f.name)
        if isinstance(v, ast.Node):
            yield v
        elif isinstance(v, tuple):
            for item in v:
                if isinstance(item, ast.Node):
                    yield item
                elif isinstance(item, tuple):
                    yield from (x for x in item if isinstance(x, ast.Node))

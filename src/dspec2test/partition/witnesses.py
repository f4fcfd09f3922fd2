"""Pins from the witnesses of a partition's literals: the `exists` (and `!forall`) and set comprehensions
over a bounded index (the property at the last and first index, near misses, a second witness, an index
not counted), and the guards of a `forall` (an index where the guard holds, one where it fails)."""

from __future__ import annotations

from collections.abc import Iterator

from dspec2test.dafny import ast
from dspec2test.model.walk import comparisons, conjuncts, free_names, is_name, substitute
from dspec2test.partition.pinexpr import (all_names, and_all, chain, exists_of, free_nodes, fresh, minus, not_,
                                          or_all, plus)

MAX_NEAR_MISSES = 3  # conjuncts of a witness property, each failing alone at some index


def witness_pins(literals: tuple[ast.Expr, ...], taken: set[str]) -> Iterator[tuple[str, ast.Expr]]:
    """Pins from the literals' `exists` (and `!forall`) and from set comprehensions outside any binder: the
    pins keep the literal's own words (functions, constants), which the partition already reads."""
    for lit in literals:
        q = _as_exists(lit)
        if q is not None:
            yield from _exists_pins(q, taken)
        elif isinstance(lit, ast.Quantifier) and lit.kind == "forall":
            yield from _guard_pins(lit)
        for n, bound in free_nodes(lit):
            if isinstance(n, ast.SetComprehension) and len(n.vars) == 1 and n.term is None and n.range is not None \
                    and not bound:
                yield from _comprehension_pins(n)


def _as_exists(lit: ast.Expr) -> ast.Quantifier | None:
    """A literal that says some index has a property: `exists` (range folded into the body), or `!forall`."""
    if isinstance(lit, ast.Quantifier) and lit.kind == "exists":
        body = lit.body if lit.range is None else ast.BinOp("&&", lit.range, lit.body)
        return ast.Quantifier("exists", lit.vars, None, body)
    if isinstance(lit, ast.UnOp) and lit.op == "!" and isinstance(lit.operand, ast.Quantifier) \
            and lit.operand.kind == "forall":
        q = lit.operand
        if q.range is not None:
            body = ast.BinOp("&&", q.range, not_(q.body))
        elif isinstance(q.body, ast.BinOp) and q.body.op == "==>":
            body = ast.BinOp("&&", q.body.left, not_(q.body.right))
        else:
            body = not_(q.body)
        return ast.Quantifier("exists", q.vars, None, body)
    return None


def _exists_pins(q: ast.Quantifier, taken: set[str]) -> Iterator[tuple[str, ast.Expr]]:
    parts = conjuncts(q.body)
    if len(q.vars) == 1:
        i = q.vars[0].name
        bounds = _bounds(i, parts)
        if bounds is not None:
            lo, hi, rest = bounds
            if rest:
                yield from _ends("witness", i, lo, hi, rest)
                yield from _near_misses(i, lo, hi, rest)
    # a second witness: some bound variable differs
    inner = taken | all_names(q)
    primed: dict[str, str] = {}
    for v in q.vars:
        primed[v.name] = fresh(v.name, inner | set(primed.values()))
    other = substitute(q.body, {k: ast.Name(p) for k, p in primed.items()})
    differ = or_all(*[ast.BinOp("!=", ast.Name(k), ast.Name(p)) for k, p in primed.items()])
    vars_ = q.vars + tuple(ast.BoundVar(p, v.type) for v, p in zip(q.vars, primed.values()))
    yield "two-witnesses", ast.Quantifier("exists", vars_, None, and_all(q.body, other, differ))


def _comprehension_pins(s: ast.SetComprehension) -> Iterator[tuple[str, ast.Expr]]:
    i = s.vars[0].name
    bounds = _bounds(i, conjuncts(s.range))  # type: ignore[arg-type]
    if bounds is None:
        return
    lo, hi, rest = bounds
    if not rest:
        return
    yield from _ends("counted", i, lo, hi, rest)
    yield from _near_misses(i, lo, hi, rest)
    yield "not-counted", ast.Quantifier("exists", s.vars, None,
                                        ast.BinOp("&&", chain(lo, "<=", ast.Name(i), "<", hi), not_(and_all(*rest))))


def _near_misses(i: str, lo: ast.Expr, hi: ast.Expr, rest: list[ast.Expr]) -> Iterator[tuple[str, ast.Expr]]:
    """For a property of several conjuncts, an index where all hold but one (the first few conjuncts):
    a body that drops or garbles one condition counts or finds that index, the contract does not."""
    if len(rest) < 2:
        return
    for k, c in enumerate(rest[:MAX_NEAR_MISSES]):
        others = rest[:k] + rest[k + 1:]
        yield "near-miss", exists_of([ast.Name(i)], and_all(chain(lo, "<=", ast.Name(i), "<", hi), *others, not_(c)))


def _guard_pins(q: ast.Quantifier) -> Iterator[tuple[str, ast.Expr]]:
    """A `forall i :: lo <= i < hi && G(i) ==> B(i)` literal (G also as `==> (G ==> B)`): an index where the
    guard holds and one where it fails, so that the literal is neither vacuous nor only ever exercised."""
    if len(q.vars) != 1:
        return
    if q.range is not None:
        conds, body = conjuncts(q.range), q.body
    elif isinstance(q.body, ast.BinOp) and q.body.op == "==>":
        conds, body = conjuncts(q.body.left), q.body.right
    else:
        return
    while isinstance(body, ast.BinOp) and body.op == "==>":
        conds, body = conds + conjuncts(body.left), body.right
    i = q.vars[0].name
    bounds = _bounds(i, conds)
    if bounds is None or not bounds[2]:
        return
    lo, hi, guards = bounds
    within = chain(lo, "<=", ast.Name(i), "<", hi)
    yield "guard-held", exists_of([ast.Name(i)], and_all(within, *guards))
    yield "guard-failed", exists_of([ast.Name(i)], and_all(within, not_(and_all(*guards))))
    yield from _guard_twice(q, i, lo, hi, guards)


def _guard_twice(q: ast.Quantifier, i: str, lo: ast.Expr, hi: ast.Expr,
                 guards: list[ast.Expr]) -> Iterator[tuple[str, ast.Expr]]:
    """Two indexes where the guard holds: a body that keeps only the last match (`r := [a[i]]` for
    `r := r + [a[i]]`), or stops at the first, meets the literal on one."""
    j = fresh(i, all_names(q) | {i})
    at_j = [substitute(g, {i: ast.Name(j)}) for g in guards]
    yield "guard-held-twice", exists_of([ast.Name(i), ast.Name(j)], and_all(
        chain(lo, "<=", ast.Name(i), "<", hi), chain(lo, "<=", ast.Name(j), "<", hi),
        ast.BinOp("<", ast.Name(i), ast.Name(j)), *guards, *at_j))


def _ends(what: str, i: str, lo: ast.Expr, hi: ast.Expr, rest: list[ast.Expr]) -> Iterator[tuple[str, ast.Expr]]:
    """The property at the last index and at the first (the range non-empty, so they are defined)."""
    for end, at in (("last", minus(hi, 1)), ("first", lo)):
        there = [substitute(r, {i: at}) for r in rest]
        if not any(_self_contradiction(r) for r in there):  # `!(s[0] == s[0])`: "differs from the first" at it
            yield f"{what}-{end}", ast.BinOp("&&", ast.BinOp("<", lo, hi), and_all(*there))


def _self_contradiction(e: ast.Expr) -> bool:
    """`!(t == t)`, `t != t`, `t < t` or `t > t`."""
    if isinstance(e, ast.UnOp) and e.op == "!" and isinstance(e.operand, ast.BinOp):
        return e.operand.op in ("==", "<=", ">=") and e.operand.left == e.operand.right
    return isinstance(e, ast.BinOp) and e.op in ("!=", "<", ">") and e.left == e.right


def _bounds(i: str, conjuncts: list[ast.Expr]) -> tuple[ast.Expr, ast.Expr, list[ast.Expr]] | None:
    """`lo <= i < hi` among the conjuncts (as `lo <= i < hi`, or `lo <= i` and `i < hi`, with `<` and `<=`
    either way): (inclusive lo, exclusive hi, the other conjuncts); None when a bound is missing."""
    lo = hi = None
    rest: list[ast.Expr] = []
    for c in conjuncts:
        pairs = comparisons(c)
        if len(pairs) > 2 or not pairs or not all(is_name(a, i) != is_name(b, i) for a, _, b in pairs) \
                or any(i in free_names(x) for a, _, b in pairs for x in (a, b) if not is_name(x, i)):
            rest.append(c)
            continue
        for a, op, b in pairs:
            if is_name(b, i) and lo is None:
                lo = a if op == "<=" else plus(a, 1)
            elif is_name(a, i) and hi is None:
                hi = b if op == "<" else plus(b, 1)
    if lo is None or hi is None:
        return None
    return lo, hi, rest

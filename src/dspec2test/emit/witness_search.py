"""Bounded witness search: a clause with an `exists` over integers that Dafny cannot enumerate
(`ensures IsSquare(r)` of `ghost predicate IsSquare(n: int) { exists k :: k * k == n }`) checked as the
same `exists` over a finite range, `exists k | -B <= k <= B :: k * k == r`, where B is a bound the solver
proved complete: every witness lies within it, so the search finds one whenever one exists, and the check
fails only when there is none at all. Never a false alarm; where no bound is proved, the clause stays
unchecked with that reason. A `forall` whose guard bounds its variable (`forall a :: 0 < a * a < n ==>
a * a != n`) is the same search, for a counterexample: every value the guard admits must lie within B.

The bound is made from the clause, B = the magnitudes of the integer variables the body reads, plus the
lengths of its sequences and arrays, plus its largest literal, plus one: `|r| + 1` for the square, which
also holds the witnesses of `k * k * k == r` and of `0 <= k && k * 2 == r`. This module writes the
bounded form and what must be proved of it (`forall k :: k * k == r ==> -B <= k <= B`, over every value
of the member's variables); the solver proves it (generation/member.py asks, through the solver's door).
"""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.compilable import GhostIndex, why_not_compilable
from dspec2test.model.tuples import inline_calls, unbounded_vars
from dspec2test.model.walk import conj, free_names, rebuild, substitute, walk

_INLINE_DEPTH = 3  # ghost predicates inlined into one another, as compilable.unghosted does


@dataclass(frozen=True)
class Search:
    """A clause with its unbounded `exists` bounded, and what makes that the same clause."""

    expr: ast.Expr  # the clause, compilable
    # closed over the bound variables, free in the member's variables: each must hold of every value of
    # them (the solver proves it), or the bounded form may miss a witness
    obligations: tuple[ast.Expr, ...]
    bounds: tuple[str, ...]  # per bounded variable, for the check's message: `|k| <= B, a bound proved to ...`

    @property
    def source(self) -> str:
        return f"a search for {'; '.join(self.bounds)}"


def bounded_search(e: ast.Expr, ghosts: GhostIndex, kinds: dict[str, str]) -> Search | None:
    """`e` with each `exists` (or guarded `forall`) whose integer variables Dafny cannot bound given the bound
    made from its body (with ghost functions inlined into it where that is what hides the quantifier); None
    where some quantifier cannot be bounded so, or the result still does not compile. `kinds`: the member's
    variables (those a test holds) by kind ("int", "seq", "array", ...): a bound is made only of them."""
    if not any(isinstance(n, ast.Quantifier) for n in walk(e)) and not any(isinstance(n, ast.Call) for n in walk(e)):
        return None
    bodies = dict(ghosts.inlinable)
    current = e
    for depth in range(_INLINE_DEPTH + 1):
        if depth:
            inlined = inline_calls(current, bodies)
            if inlined == current:
                break
            current = inlined
        plain = _without_lets(current)
        if not any(isinstance(n, ast.Quantifier) and unbounded_vars(n) for n in walk(plain)):
            continue
        found = _bounded(plain, kinds, dict(ghosts.formals))
        if found is not None and why_not_compilable(found.expr, ghosts) is None:
            return found
    return None


def _without_lets(e: ast.Expr) -> ast.Expr:
    """Lets of plain variables substituted (an inlined predicate's `var n := x * x; exists k :: k * k == n`),
    so that what a search's body reads is written in the member's own variables."""
    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.Let) and n.such_that is None and not n.fail_op and len(n.pats) == len(n.values) \
                and all(isinstance(p, ast.PatVar) for p in n.pats):
            return _without_lets(substitute(n.body, {p.name: v for p, v in zip(n.pats, n.values)}))  # type: ignore[union-attr]
        return None

    return rebuild(e, fn)


def _bounded(e: ast.Expr, kinds: dict[str, str], formals: dict[str, tuple[ast.Type, ...]]) -> Search | None:
    obligations: list[ast.Expr] = []
    bounds: list[str] = []
    failed = False

    def fn(n: ast.Node) -> ast.Node | None:
        nonlocal failed
        if not isinstance(n, ast.Quantifier):
            return None
        loose = unbounded_vars(n)
        if not loose:
            return None
        # the values that matter: an exists' witnesses; a forall's values its guard admits (`forall a :: 0 < a * a
        # < n ==> a * a != n` is decided by a search for a counterexample among them)
        matter = n.body if n.kind == "exists" else n.body.left \
            if isinstance(n.body, ast.BinOp) and n.body.op == "==>" else None
        bound = _bound_of(n, kinds)
        if matter is None or bound is None or any(not _integer(v, matter, kinds, formals) for v in n.vars if v.name in loose):
            failed = True
            return None
        within: list[ast.Expr] = [ast.Chain((ast.UnOp("-", bound), ast.Name(v), bound), ("<=", "<=")) for v in loose]
        if n.range is not None:
            matter = ast.BinOp("&&", n.range, matter)
        obligations.append(ast.Quantifier("forall", n.vars, None, ast.BinOp("==>", matter, conj(within))))
        held = "every witness" if n.kind == "exists" else "every value its guard admits"
        bounds.extend(f"|{v}| <= {print_expr(bound)}, a bound proved to hold {held}" for v in loose)
        range_ = conj(within) if n.range is None else ast.BinOp("&&", conj(within), n.range)
        return ast.Quantifier(n.kind, n.vars, range_, n.body, n.attributes)

    out = rebuild(e, fn)
    if failed or not obligations:
        return None
    return Search(out, tuple(obligations), tuple(bounds))


def _integer(v: ast.BoundVar, body: ast.Expr, kinds: dict[str, str],
             formals: dict[str, tuple[ast.Type, ...]]) -> bool:
    """Is the witness an integer: declared int or nat, or undeclared and compared, in integer arithmetic, with
    an integer of the member's (`k * k == n`, n an int; a literal), or passed where a function takes an int
    (`Above(k, r)`): a bound on a char or real witness would not typecheck, and a tests file that does not
    build has no test at all."""
    if v.type is not None:
        return _int_type(v.type)
    for n in walk(body):
        if isinstance(n, ast.Call) and isinstance(n.callee, ast.Name) and ast.Name(v.name) in n.args \
                and n.callee.name in formals and not any(n.arg_names):
            types = formals[n.callee.name]
            at = n.args.index(ast.Name(v.name))
            if at < len(types) and _int_type(types[at]):
                return True
        comparisons = [(n.left, n.right)] if isinstance(n, ast.BinOp) and n.op in ("==", "!=", "<", "<=", ">", ">=") \
            else list(zip(n.operands, n.operands[1:])) if isinstance(n, ast.Chain) else []
        for sides in comparisons:
            if all(_arithmetic(x, v.name, kinds) for x in sides) and any(v.name in free_names(x) for x in sides) \
                    and any(_anchored(x, v.name, kinds) for x in sides):
                return True
    return False


def _int_type(t: ast.Type) -> bool:
    return isinstance(t, ast.NamedType) and t.name in ("int", "nat")


def _arithmetic(e: ast.Expr, var: str, kinds: dict[str, str]) -> bool:
    """An integer expression of the witness, the member's integers, literals and lengths."""
    if isinstance(e, ast.IntLit) or isinstance(e, ast.Cardinality):
        return True
    if isinstance(e, ast.Name):
        return e.name == var or kinds.get(e.name) == "int"
    if isinstance(e, ast.UnOp) and e.op == "-":
        return _arithmetic(e.operand, var, kinds)
    return isinstance(e, ast.BinOp) and e.op in ("+", "-", "*", "/", "%") \
        and _arithmetic(e.left, var, kinds) and _arithmetic(e.right, var, kinds)


def _anchored(e: ast.Expr, var: str, kinds: dict[str, str]) -> bool:
    """Does `e` hold something integer besides the witness (which then is one too)?"""
    return any(isinstance(n, (ast.IntLit, ast.Cardinality)) or (isinstance(n, ast.Name) and n.name != var
                                                                 and kinds.get(n.name) == "int") for n in walk(e))


def _bound_of(q: ast.Quantifier, kinds: dict[str, str]) -> ast.Expr | None:
    """|v| for each integer variable the quantifier reads, the length of each of its sequences and arrays,
    its largest literal, plus one; None where it reads a name that is no variable of the member's (a
    variable bound outside it, a constant): the bound would not be the test's to compute."""
    called = {n.callee.name for n in walk(q) if isinstance(n, ast.Call) and isinstance(n.callee, ast.Name)}
    terms: list[ast.Expr] = []
    for name in sorted(free_names(q) - called):
        kind = kinds.get(name)
        if kind is None:
            return None
        if kind == "int":
            v = ast.Name(name)
            terms.append(ast.IfThenElse(ast.BinOp("<", v, ast.IntLit(0)), ast.UnOp("-", v), v))
        elif kind in ("seq", "string"):
            terms.append(ast.Cardinality(ast.Name(name)))
        elif kind == "array":
            terms.append(ast.MemberSelect(ast.Name(name), "Length"))
    largest = max((abs(n.value) for n in walk(q) if isinstance(n, ast.IntLit)), default=0)
    return _left_nested(terms + [ast.IntLit(largest + 1)])


def _left_nested(terms: list[ast.Expr]) -> ast.Expr:
    """`a + b + c` as Dafny reads it (left-nested), so it prints without parentheses."""
    out = terms[0]
    for t in terms[1:]:
        out = ast.BinOp("+", out, t)
    return out

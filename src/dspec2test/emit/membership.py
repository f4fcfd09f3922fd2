"""Quantifiers bounded by a membership Dafny's compiler does not see: rewritten into equivalent ones it does.

Dafny compiles `forall x :: x in S ==> P(x)` (x ranges over S) but not `forall x :: x !in a ==> x !in r`
(every r-element is in a, said the other way round) nor `forall k :: k in m <==> k in m'` (same keys):
nothing bounds x on the left. Both are common ways to write a frame or a filter's output, and listing
them as unchecked hid the one clause that tells a filter that drops too much from a correct one. So:

- `forall x :: A ==> x !in S` becomes its contrapositive `forall x | x in S :: !A`;
- `forall x :: x in S <==> x in T` becomes `(forall x | x in S :: x in T) && (forall x | x in T :: x in S)`.

Both are the same formula, so a check of the rewrite fails exactly when the clause does.
"""

from __future__ import annotations

from dataclasses import replace

from dspec2test.dafny import ast
from dspec2test.model.walk import free_names, negate, rebuild


def membership_bounded(e: ast.Expr) -> ast.Expr:
    """`e` with its single-variable foralls of the two shapes above rewritten (others unchanged)."""
    return rebuild(e, _rewrite)


def _rewrite(n: ast.Node) -> ast.Node | None:
    if not (isinstance(n, ast.Quantifier) and n.kind == "forall" and n.range is None and len(n.vars) == 1):
        return None
    x = n.vars[0].name
    body = n.body
    if not isinstance(body, ast.BinOp):
        return None
    if body.op == "==>":
        domain = _member(_negated(body.right), x)
        if domain is not None and _member(body.left, x) is None:
            return replace(n, range=domain, body=_negated(body.left))
    if body.op == "<==>":
        left, right = _member(body.left, x), _member(body.right, x)
        if left is not None and right is not None:
            return ast.BinOp("&&", replace(n, range=left, body=right), replace(n, range=right, body=left))
    return None


def _member(e: ast.Expr, x: str) -> ast.Expr | None:
    """`e` itself when it is `x in S` with S free of x, else None."""
    if isinstance(e, ast.BinOp) and e.op == "in" and isinstance(e.left, ast.Name) and e.left.name == x \
            and x not in free_names(e.right):
        return e
    return None


def _negated(e: ast.Expr) -> ast.Expr:
    """`!e`, with `x !in S` read as `x in S` and the other way round."""
    if isinstance(e, ast.BinOp) and e.op in ("in", "!in"):
        return replace(e, op="!in" if e.op == "in" else "in")
    return negate(e)

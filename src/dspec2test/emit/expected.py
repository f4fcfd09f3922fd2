"""The value a postcondition pins an output to, so that a failure can show it next to the actual one.

`ensures r == x + 1` pins r to `x + 1`; `ensures |s| > 0 ==> r == s[|s| - 1]` pins it to `s[|s| - 1]`
where `|s| > 0` holds; in `A && r == E` the value counts where A holds (Dafny's short circuit would not
evaluate E otherwise). A pin is an equality between an output and an expression of the inputs alone
(no output in it), reached through `==>`, `&&` and `if-then-else`; anything else pins nothing. When the
clause fails, the test prints `expected r = <E>` for every pin whose guards hold, after the `fail` line,
so the value can never change the verdict: a crash or hang while computing it leaves the test failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.model.walk import free_names


@dataclass(frozen=True)
class OutputPin:
    guards: tuple[ast.Expr, ...]  # what must hold for `value` to be the output's expected value
    output: str
    value: ast.Expr


def pins(e: ast.Expr, outputs: frozenset[str], guards: tuple[ast.Expr, ...] = ()) -> list[OutputPin]:
    """The pins of clause `e` on `outputs` (their names as the test declares them)."""
    if isinstance(e, ast.BinOp):
        if e.op == "==>":
            return pins(e.right, outputs, guards + (e.left,))
        if e.op == "&&":
            return pins(e.left, outputs, guards) + pins(e.right, outputs, guards + (e.left,))
        if e.op == "==":
            for out, value in ((e.left, e.right), (e.right, e.left)):
                if isinstance(out, ast.Name) and out.name in outputs and not free_names(value) & outputs:
                    return [OutputPin(guards, out.name, value)]
        return []
    if isinstance(e, ast.IfThenElse) and not e.binding:
        return (pins(e.then, outputs, guards + (e.cond,))
                + pins(e.els, outputs, guards + (ast.UnOp("!", e.cond),)))
    return []

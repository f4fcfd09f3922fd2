"""Whether a diversity pin is new to a partition: evaluated on the models its earlier scenarios were solved
with, without the solver. A pin some earlier input already has buys nothing and is not tried (diversity.py).
"""

from __future__ import annotations

from fractions import Fraction
from collections.abc import Iterator
from typing import Any

from dspec2test.dafny import ast
from dspec2test.model.contracts import pre_state_name
from dspec2test.partition.fields import ctor_test, field_index
from dspec2test.model.types import TypeIndex
from dspec2test.model.walk import ORDER_OPS, comparisons, conjuncts, free_names, is_name

MAX_POINTS = 2_000  # assignments of bound variables one evaluation of a pin on a model may try


def novel(pin: ast.Expr, models: list[Any], types: TypeIndex | None = None) -> bool:
    """Is the pin new to the partition, that is: does no earlier scenario's input already have it? A pin
    that cannot be evaluated here (a function call, a model without plain values) counts as new. `types`:
    where a datatype value's fields sit (without, a pin reading a field of one counts as new)."""
    for m in models:
        raw = getattr(m, "raw", None)
        if not isinstance(raw, dict):
            continue
        try:
            if _Eval(raw, types).value(pin, {}) is True:
                return False
        except _Undecided:
            continue
    return True


class _Undecided(Exception):
    pass


class _Eval:
    """Evaluates a pin on a model's plain values (ints, chars as ints, Fractions, tuples): the vocabulary
    of the pins above plus what partitions' literals commonly hold; anything else is undecided. A datatype
    value is read by duck typing (its constructor's name, `ctor`, and arguments, `args`, as the solver's
    models give it): the partition stage does not depend on the solver's classes."""

    def __init__(self, raw: dict[str, Any], types: TypeIndex | None = None):
        self.raw = raw
        self.types = types
        self.points = MAX_POINTS  # bound-variable assignments left: four nested over ten elements is too many

    def value(self, e: ast.Expr, env: dict[str, Any]) -> Any:
        method = getattr(self, "e_" + type(e).__name__, None)
        if method is None:
            raise _Undecided(type(e).__name__)
        return method(e, env)

    def e_IntLit(self, e: ast.IntLit, env: dict[str, Any]) -> Any:
        return e.value

    def e_BoolLit(self, e: ast.BoolLit, env: dict[str, Any]) -> Any:
        return e.value

    def e_CharLit(self, e: ast.CharLit, env: dict[str, Any]) -> Any:
        return ord(e.value)

    def e_RealLit(self, e: ast.RealLit, env: dict[str, Any]) -> Any:
        try:
            return Fraction(e.text)
        except ValueError:
            raise _Undecided(e.text) from None

    def e_Name(self, e: ast.Name, env: dict[str, Any]) -> Any:
        if e.name in env:
            return env[e.name]
        if e.name in self.raw:
            return self.raw[e.name]
        raise _Undecided(e.name)

    def e_ThisExpr(self, e: ast.ThisExpr, env: dict[str, Any]) -> Any:
        if "this" in self.raw:  # the datatype value a member is called on
            return self.raw["this"]
        raise _Undecided("this")

    def e_Old(self, e: ast.Old, env: dict[str, Any]) -> Any:
        if isinstance(e.expr, ast.Name) and pre_state_name(e.expr.name) in self.raw and e.expr.name not in env:
            return self.raw[pre_state_name(e.expr.name)]
        raise _Undecided("old")

    def e_Cardinality(self, e: ast.Cardinality, env: dict[str, Any]) -> Any:
        v = self.value(e.expr, env)
        if isinstance(v, (tuple, set, frozenset)):
            return len(v)
        raise _Undecided("|...|")

    def e_MemberSelect(self, e: ast.MemberSelect, env: dict[str, Any]) -> Any:
        v = self.value(e.obj, env)
        if e.name == "Length" and isinstance(v, tuple):
            return len(v)
        if e.name.isdigit() and isinstance(v, tuple) and int(e.name) < len(v):  # a tuple's component
            return v[int(e.name)]
        ctor, args = getattr(v, "ctor", None), getattr(v, "args", None)
        if isinstance(ctor, str) and ctor != "?" and isinstance(args, tuple) and self.types is not None:
            if e.name.endswith("?"):
                test = ctor_test(self.types, ctor, e.name)
                if test is None:  # a member named N?, not a constructor test
                    raise _Undecided(e.name)
                return test
            k = field_index(self.types, ctor, e.name)
            if k is not None and k < len(args):
                return args[k]
        raise _Undecided(e.name)

    def e_Index(self, e: ast.Index, env: dict[str, Any]) -> Any:
        s = self.value(e.seq, env)
        k = self.value(e.indices[0], env) if len(e.indices) == 1 else None
        if isinstance(s, tuple) and isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(s):
            return s[k]
        raise _Undecided("index")

    def e_UnOp(self, e: ast.UnOp, env: dict[str, Any]) -> Any:
        v = self.value(e.operand, env)
        if e.op == "!" and isinstance(v, bool):
            return not v
        if e.op == "-" and isinstance(v, (int, Fraction)) and not isinstance(v, bool):
            return -v
        raise _Undecided(e.op)

    def e_BinOp(self, e: ast.BinOp, env: dict[str, Any]) -> Any:
        op = e.op
        if op in ("&&", "||", "==>"):  # short-circuit, as Dafny evaluates them
            a = self._bool(e.left, env)
            if a == (op == "||"):  # false && _, true || _, false ==> _
                return op != "&&"
            return self._bool(e.right, env)
        a, b = self.value(e.left, env), self.value(e.right, env)
        if op in ("==", "!=", "<==>"):
            return (a == b) == (op != "!=")
        if not all(isinstance(x, (int, Fraction)) and not isinstance(x, bool) for x in (a, b)):
            raise _Undecided(op)
        if op in ORDER_OPS:
            return _compare(a, op, b)
        if op in ("+", "-", "*"):
            return a + b if op == "+" else a - b if op == "-" else a * b
        raise _Undecided(op)

    def e_Chain(self, e: ast.Chain, env: dict[str, Any]) -> Any:
        vals = [self.value(o, env) for o in e.operands]
        for a, op, b in zip(vals, e.ops, vals[1:]):
            if op in ("==", "!="):
                ok = (a == b) == (op == "==")
            elif op in ORDER_OPS and all(isinstance(x, (int, Fraction)) for x in (a, b)):
                ok = _compare(a, op, b)
            else:
                raise _Undecided(op)
            if not ok:
                return False
        return True

    def e_Quantifier(self, e: ast.Quantifier, env: dict[str, Any]) -> Any:
        exists = e.kind == "exists"
        body: ast.Expr
        domain: ast.Expr
        if e.range is not None:
            body, domain = ast.BinOp("&&" if exists else "==>", e.range, e.body), e.range
        elif exists:
            body, domain = e.body, e.body
        elif isinstance(e.body, ast.BinOp) and e.body.op == "==>":
            body, domain = e.body, e.body.left
        else:
            raise _Undecided("forall without range")
        for point in self._points([v.name for v in e.vars], conjuncts(domain), env):
            if self._bool(body, point) == exists:
                return exists
        return not exists

    def e_SetComprehension(self, e: ast.SetComprehension, env: dict[str, Any]) -> Any:
        if e.range is None or len(e.vars) != 1:
            raise _Undecided("set comprehension")
        name = e.vars[0].name
        term = e.term if e.term is not None else ast.Name(name)
        return frozenset(self.value(term, p) for p in self._points([name], conjuncts(e.range), env)
                         if self._bool(e.range, p))

    def _points(self, names: list[str], conjuncts: list[ast.Expr], env: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The assignments of the bound names, outer first, within bounds the conjuncts give them (a superset
        of the range: the caller evaluates the range itself on each)."""
        if not names:
            yield env
            return
        name, later = names[0], set(names[1:])
        lows, highs = [], []
        for c in conjuncts:
            pairs = comparisons(c)
            for k, (a, op, b) in enumerate(pairs):
                # in a chain `0 <= i < j < |s|`, every operand before i bounds it from below, every one
                # after it from above (transitively)
                if is_name(b, name):
                    strict = False
                    for x, o, _ in pairs[:k + 1][::-1]:
                        strict = strict or o == "<"
                        lows.append((x, strict))
                if is_name(a, name):
                    strict = False
                    for _, o, y in pairs[k:]:
                        strict = strict or o == "<"
                        highs.append((y, strict))
        lo = max((self._bound(x, env) + strict for x, strict in lows if not free_names(x) & later), default=None)
        hi = min((self._bound(y, env) + (not strict) for y, strict in highs if not free_names(y) & later),
                 default=None)
        if lo is None or hi is None:
            raise _Undecided("unbounded " + name)
        for k in range(lo, hi):
            self.points -= 1
            if self.points < 0:
                raise _Undecided("too many points")
            yield from self._points(names[1:], conjuncts, {**env, name: k})

    def _bound(self, e: ast.Expr, env: dict[str, Any]) -> int:
        v = self.value(e, env)
        if not isinstance(v, int) or isinstance(v, bool) or abs(v) > 10_000:
            raise _Undecided("bound")
        return v

    def _bool(self, e: ast.Expr, env: dict[str, Any]) -> bool:
        v = self.value(e, env)
        if not isinstance(v, bool):
            raise _Undecided("not a boolean")
        return v


def _compare(a: Any, op: str, b: Any) -> bool:
    return a < b if op == "<" else a <= b if op == "<=" else a > b if op == ">" else a >= b

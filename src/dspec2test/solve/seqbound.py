"""Upper bounds on a sequence term's length read off its structure, without the solver: a literal, a
datatype field held as a bounded list (recursive.py reads it as nested `If(nil, [], [h] + ...)`), a
field of a value built in the contract, slices and concatenations of them, and terms of a bound the
solver proved. A set's rep is read (types.py) as its candidates up to such a bound. A recursive function given a lambda is unfolded (encode/calls.py)
as long as such a bound says its sequence argument can still hold elements: each level's slice is
bounded one lower, so the unfolding ends where the bound reaches 0.
"""

from __future__ import annotations

import z3


def length_bound(term: z3.ExprRef, known: dict[int, int] | None = None) -> int | None:
    """An upper bound on the length of a sequence term (None: its structure gives none); `known`: bounds of
    subterms found otherwise (by id), such as an input's, which the solver proved."""
    return _Bounds(known or {}).seq(term)


class _Bounds:
    def __init__(self, known: dict[int, int]) -> None:
        self._memo: dict[tuple[str, int], int | None] = {("seq", k): b for k, b in known.items()}

    def seq(self, t: z3.ExprRef) -> int | None:
        return self._cached("seq", t, self._seq)

    def int_(self, t: z3.ExprRef) -> int | None:
        """An upper bound on an integer term."""
        return self._cached("int", t, self._int)

    def _cached(self, kind: str, t: z3.ExprRef, fn) -> int | None:
        k = (kind, t.get_id())
        if k not in self._memo:
            self._memo[k] = fn(t)
        return self._memo[k]

    def _seq(self, t: z3.ExprRef) -> int | None:
        if not z3.is_app(t):
            return None
        op, kids = t.decl().kind(), t.children()
        if op == z3.Z3_OP_SEQ_EMPTY:
            return 0
        if op == z3.Z3_OP_SEQ_UNIT:
            return 1
        if op == z3.Z3_OP_SEQ_CONCAT:
            return _total([self.seq(k) for k in kids])
        if op == z3.Z3_OP_ITE:
            return _most([self.seq(k) for k in kids[1:]])
        if op == z3.Z3_OP_SEQ_EXTRACT:  # Extract(s, off, n) holds at most n and at most |s| elements
            known = [b for b in (self.seq(kids[0]), self.int_(kids[2])) if b is not None]
            return max(0, min(known)) if known else None
        if op == z3.Z3_OP_DT_ACCESSOR:  # a field of a value built in a contract: the sequence it was built with
            return self._field(t.decl(), kids[0])
        return None

    def _field(self, acc: z3.FuncDeclRef, value: z3.ExprRef) -> int | None:
        if z3.is_app(value) and value.decl().kind() == z3.Z3_OP_ITE:
            return _most([self._field(acc, k) for k in value.children()[1:]])
        if not z3.is_app(value) or value.decl().kind() != z3.Z3_OP_DT_CONSTRUCTOR:
            return None
        srt = value.sort()
        for i in range(srt.num_constructors()):
            if srt.constructor(i).eq(value.decl()):
                for j in range(srt.constructor(i).arity()):
                    if srt.accessor(i, j).eq(acc):
                        return self.seq(value.arg(j))
        return None  # another constructor's field: unspecified

    def _int(self, t: z3.ExprRef) -> int | None:
        if z3.is_int_value(t):
            return t.as_long()
        if not z3.is_app(t):
            return None
        op, kids = t.decl().kind(), t.children()
        if op == z3.Z3_OP_SEQ_LENGTH:
            return self.seq(kids[0])
        if op == z3.Z3_OP_ADD:
            return _total([self.int_(k) for k in kids])
        if op == z3.Z3_OP_SUB and kids and all(z3.is_int_value(k) for k in kids[1:]):
            first = self.int_(kids[0])
            return None if first is None else first - sum(k.as_long() for k in kids[1:])
        if op == z3.Z3_OP_ITE:
            return _most([self.int_(k) for k in kids[1:]])
        return None


def _total(bounds: list[int | None]) -> int | None:
    return None if any(b is None for b in bounds) else sum(b for b in bounds if b is not None)


def _most(bounds: list[int | None]) -> int | None:
    return None if any(b is None for b in bounds) else max(b for b in bounds if b is not None)

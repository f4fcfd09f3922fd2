"""Preferences for readable, telling models: small numbers, alphanumeric characters, distinct elements
(Z3's minimal models repeat one value, on which index and off-by-one bugs go unseen), nontrivial values."""

from __future__ import annotations

import z3

from dspec2test.dafny import ast
from dspec2test.model.objects import is_drive_op
from dspec2test.solve.core import SolverCore
from dspec2test.solve.relevance import nontrivial
from dspec2test.solve.types import cells
from dspec2test.solve.values import TV, MapV, MultisetV, ObjV, SetV, and_

NICE_INT = 100  # first attempt keeps numbers within +-NICE_INT and chars alphanumeric, for readable tests
FIXED_LENGTH = 4  # input sequences' length in a relevance query retried after a timeout


class ReadableModels(SolverCore):
    def _nice(self, chars: frozenset[int] | None) -> list[z3.BoolRef]:
        """Preferences for readable models: small numbers, alphanumeric characters (or ones the constraints
        mention). `chars` None means printable ASCII instead of alphanumerics. Built once per character set:
        every scenario of every partition asks for them."""
        if chars not in self._nice_cache:
            out = []
            for v in self.vars:
                out += self._nice_value(v.tv, chars, depth=0)
            for tv in self._element_facts.element_values if self._element_facts is not None else ():
                out += self._nice_value(tv, chars, depth=1)  # objects held in collections
            self._nice_cache[chars] = out
        return self._nice_cache[chars]

    def _nice_value(self, tv: TV, chars: frozenset[int] | None, depth: int) -> list[z3.BoolRef]:
        b = tv.t.base
        if depth > 2:
            return []
        if isinstance(tv.v, ObjV):  # objects differ and are not null, unless the scenario asks
            return [tv.v.id == tv.v.slot] if tv.v.name else []  # (one held in a collection: solve/objects.py)
        if b.kind in ("array2", "array3"):
            dims = self.types.dims(tv)
            return [z3.Implies(and_([z3.IntVal(i) < d for i, d in zip(idx, dims)]), and_(
                self._nice_value(self.types.cell(tv, [z3.IntVal(i) for i in idx]), chars, depth + 1)))
                for idx in cells(len(dims), self.limit)]
        if b.kind in ("int", "real"):
            return [tv.v >= -NICE_INT, tv.v <= NICE_INT]
        if b.kind == "char":
            c = tv.v
            if chars is None:
                return [c >= 32, c < 127]
            ranges = [z3.And(c >= ord(lo), c <= ord(hi)) for lo, hi in (("a", "z"), ("0", "9"), ("A", "Z"))]
            return [z3.Or(*ranges, *[c == k for k in sorted(chars)])]
        v = tv.v
        if isinstance(v, (SetV, MultisetV, MapV)):
            if isinstance(v, MapV):
                srt = self.types.sort(b)
                parts = [(srt.accessor(0, 0)(v.rep), b.args[0]), (srt.accessor(0, 1)(v.rep), b.args[1])]
            else:
                parts = [(v.rep, b.args[0])]
        elif b.kind in ("seq", "array") and isinstance(v, z3.SeqRef):  # (a string atom has no elements)
            parts = [(v, b.args[0])]
        else:
            return []
        out = []
        for seq, et in parts:
            for i in range(self.limit):
                inner = and_(self._nice_value(self.types.from_rep(seq[i], et), chars, depth + 1))
                out.append(z3.Implies(z3.IntVal(i) < z3.Length(seq), inner))
        return out

    def _nontrivial(self, turn: int) -> list[tuple[str, int, z3.BoolRef]]:
        """`relevance.nontrivial` for these variables, built once per parity of the turn (all it depends on)."""
        if turn % 2 not in self._nontrivial_cache:
            # (an object's fields after the call are the implementation's to choose: no preference on them)
            self._nontrivial_cache[turn % 2] = nontrivial(
                # (nor on which calls make a driven object: the fewer the more readable)
                [(v.name, v.tv) for v in self.vars if not (v.output and "." in v.name) and not is_drive_op(v.name)],
                self.limit, turn,
                self.types.dims, self.types.list_fields)
        return self._nontrivial_cache[turn % 2]

    def _distinct(self) -> list[z3.BoolRef]:
        """Preference for telling models: the elements of each input sequence or array pairwise different.
        Z3's minimal models repeat one value ([0, 0]), on which index and off-by-one bugs go unseen."""
        return [f for _, _, f in self._distinct_pairs()]

    def _fixed_lengths(self) -> tuple[object, int, z3.BoolRef] | None:
        """A preference for input sequences of FIXED_LENGTH elements (None: no sequence input, or lengths
        unlimited, where the contract wants long ones)."""
        seqs = [v.tv.v for v in self._seq_vars() if not v.output]
        if not seqs or self._unlimited:
            return None
        return ("lengths", 0, and_([z3.Length(q) == min(FIXED_LENGTH, self.limit) for q in seqs]))

    def _neighbours(self) -> list[z3.BoolRef]:
        """The weaker form of `_distinct`, for partitions that need a repeated element: adjacent elements
        differ ("abcb", not "bbbb")."""
        return [f for i, j, f in self._distinct_pairs() if j == i + 1]

    def _distinct_pairs(self) -> list[tuple[int, int, z3.BoolRef]]:
        if self._distinct_cache is None:
            out = []
            for v in (v for v in self._seq_vars() if not v.output):
                seq = v.tv.v
                for j in range(1, self.limit):
                    for i in range(j):
                        out.append((i, j, z3.Implies(z3.IntVal(j) < z3.Length(seq), seq[i] != seq[j])))
            self._distinct_cache = out
        return self._distinct_cache


def chars_in(e) -> set[int]:
    """Characters the constraints mention, so readable models may use them."""
    out: set[int] = set()
    if isinstance(e, ast.CharLit):
        out.add(ord(e.value))
    elif isinstance(e, ast.StringLit):
        out.update(ord(c) for c in e.value)
    if isinstance(e, ast.Node):
        for v in vars(e).values():
            out |= chars_in(v)
    elif isinstance(e, (tuple, list)):
        for v in e:
            out |= chars_in(v)
    return out

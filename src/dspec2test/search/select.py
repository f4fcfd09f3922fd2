"""Which admitted candidates of a partition become tests: the smallest first, then each one that shows the
most the earlier ones did not (greedy cover of features), so a partition's tests differ in shape, not only
in value.

A feature is a property of an input, or of two inputs together, that bugs are often sensitive to: a sequence's
length (0, 1, 2, 3 or more), order (ascending, descending, neither), a repeated element, signs (negative,
zero, positive, mixed), where an integer falls against a sequence (an index at 0 or at the end, a key first,
last, inside or absent), integers against each other, which constructor a datatype value has, which of the
contract's characters a string holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from dspec2test.model.resolve import RType
from dspec2test.search.domains import size
from dspec2test.search.objects import Calls
from dspec2test.solve.literal import Data


def features(values: dict[str, object], types: dict[str, RType], chars: Sequence[int] = ()) -> frozenset[str]:
    out: set[str] = set()
    names = [n for n in values if n in types]
    for n in names:
        _one(n, values[n], types[n], out, chars)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            _two(a, values[a], types[a], b, values[b], types[b], out)
    return frozenset(out)


def _sign(x: int | Fraction) -> str:
    return "neg" if x < 0 else "zero" if x == 0 else "pos"


def _one(n: str, v: Any, t: RType, out: set[str], chars: Sequence[int], depth: int = 0) -> None:
    b = t.base
    k = b.kind
    if k in ("int", "real", "bv") and isinstance(v, (int, Fraction)) and not isinstance(v, bool):
        out.add(f"{n}:{_sign(v)}")
        mag = abs(v) if isinstance(v, int) else abs(v.numerator) / v.denominator
        out.add(f"{n}:{'small' if mag <= 2 else 'mid' if mag <= 100 else 'big'}")
    elif k == "bool":
        out.add(f"{n}:{v}")
    elif k == "char" and isinstance(v, int):
        out.add(f"{n}:char{v if v in chars else chr(v).isalnum()}")
    elif k in ("seq", "array", "multiset") and isinstance(v, tuple):
        out.add(f"{n}:len{min(len(v), 3)}")
        ek = b.args[0].base.kind
        if len(v) != len(set(v)):
            out.add(f"{n}:dup")
        if ek in ("int", "real", "bv", "char") and len(v) >= 2 and k != "multiset":
            asc = all(x <= y for x, y in zip(v, v[1:]))
            desc = all(x >= y for x, y in zip(v, v[1:]))
            out.add(f"{n}:{'flat' if asc and desc else 'asc' if asc else 'desc' if desc else 'mixed'}")
        if ek in ("int", "real") and v:
            signs = {_sign(x) for x in v}
            out.add(f"{n}:signs{''.join(sorted(signs))}")
            if len(v) >= 2:
                top = max(v)
                out.add(f"{n}:max{'first' if v[0] == top else 'last' if v[-1] == top else 'mid'}")
        if ek == "char":
            out |= {f"{n}:has{c}" for c in v if c in chars}
            out |= {f"{n}:kind{'alnum' if chr(c).isalnum() else 'other'}" for c in v}
        if depth == 0 and v and ek in ("seq", "data", "tuple"):
            lengths = [len(x) for x in v if isinstance(x, tuple)]
            if len(lengths) >= 2:
                out.add(f"{n}:inner{'asc' if lengths == sorted(lengths) else 'desc' if lengths == sorted(lengths, reverse=True) else 'mixed'}")
            for x in v[:3]:
                _one(f"{n}[]", x, b.args[0], out, chars, depth + 1)
    elif k in ("set", "map") and isinstance(v, (frozenset, tuple)):
        out.add(f"{n}:size{min(len(v), 3)}")
    elif k == "data" and isinstance(v, Data):
        out.add(f"{n}:{v.ctor}")
        if depth < 2:
            decl, _ = b.datatype
            ctor = next((c for c in decl.ctors if c.name == v.ctor), None)
            if ctor is not None:
                for p, a in zip(ctor.params, v.args):
                    out.add(f"{n}.{v.ctor}.{p.name}:{_shape(a)}")
    elif k == "tuple" and isinstance(v, tuple):
        for i, (x, et) in enumerate(zip(v, b.args)):
            _one(f"{n}.{i}", x, et, out, chars, depth + 1)
    elif k == "class" and isinstance(v, Calls):
        out.add(f"{n}:ctor{v.ctor}")
        out.add(f"{n}:calls{min(len(v.steps), 3)}")
        out |= {f"{n}:call{j}" for j, _ in v.steps}
        if len({j for j, _ in v.steps}) > 1:
            out.add(f"{n}:mixed calls")
        by_method: dict[int, list[tuple]] = {}
        for j, args in v.steps:
            by_method.setdefault(j, []).append(args)
        for j, calls in by_method.items():
            # how often a method filled the object, and with what: a queue of two different elements
            # tells its front from its back, one of two equal elements does not
            out.add(f"{n}:call{j}x{min(len(calls), 3)}")
            if len(calls) > 1 and calls[0]:
                out.add(f"{n}:call{j}:{'varied' if len(set(calls)) == len(calls) else 'repeated'}")
        for j, args in v.steps:
            for i, a in enumerate(args):
                if isinstance(a, int) and not isinstance(a, bool):
                    out.add(f"{n}:call{j}.{i}:{_sign(a)}")


def _shape(v: object) -> str:
    if isinstance(v, Data):
        return v.ctor
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (int, Fraction)):
        return _sign(v)
    if isinstance(v, (tuple, frozenset)):
        return f"len{min(len(v), 3)}"
    return "?"


def _two(a: str, va: Any, ta: RType, b: str, vb: Any, tb: RType, out: set[str]) -> None:
    ka, kb = ta.base.kind, tb.base.kind
    if ka in ("int", "char") and kb in ("int", "char") and isinstance(va, int) and isinstance(vb, int):
        out.add(f"{a}{'<' if va < vb else '=' if va == vb else '>'}{b}")
    elif ka in ("int", "char", "bool", "real") and kb in ("seq", "array") and isinstance(vb, tuple):
        _against(a, va, b, vb, out)
    elif kb in ("int", "char", "bool", "real") and ka in ("seq", "array") and isinstance(va, tuple):
        _against(b, vb, a, va, out)
    elif ka in ("seq", "array") and kb in ("seq", "array") and isinstance(va, tuple) and isinstance(vb, tuple):
        out.add(f"|{a}|{'<' if len(va) < len(vb) else '=' if len(va) == len(vb) else '>'}|{b}|")
        if va and vb:
            out.add(f"{a},{b}:{'same' if va == vb else 'prefix' if va == vb[:len(va)] or vb == va[:len(vb)] else 'other'}")


def _against(x: str, v: Any, s: str, seq: tuple, out: set[str]) -> None:
    """An integer or element against a sequence: as an index, and as a key."""
    if isinstance(v, int) and not isinstance(v, bool):
        n = len(seq)
        where = "neg" if v < 0 else "0" if v == 0 else "last" if v == n - 1 else "len" if v == n \
            else "in" if v < n else "beyond"
        out.add(f"{x}@{s}:{where}")
    if v in seq:
        i = seq.index(v)
        out.add(f"{x}in{s}:{'first' if i == 0 else 'last' if i == len(seq) - 1 else 'mid'}")
        if seq.count(v) > 1:
            out.add(f"{x}in{s}:twice")
    else:
        out.add(f"{x}in{s}:absent")


def choose(cands: Sequence[dict[str, object]], types: dict[str, RType], k: int,
           chars: Sequence[int] = (), extra: Sequence[frozenset[str]] = ()) -> list[int]:
    """Up to k of the candidates (their positions): the smallest, then greedily the one adding the most
    features not yet shown (the smaller on a tie), until none adds any. `extra`: more features of each
    (what its objects hold once made)."""
    if not cands:
        return []
    feats = [features(c, types, chars) | (extra[i] if i < len(extra) else frozenset()) for i, c in enumerate(cands)]
    sizes = [_total(c) for c in cands]
    first = min(range(len(cands)), key=lambda i: (sizes[i], i))
    chosen = [first]
    seen = set(feats[first])
    while len(chosen) < k:
        best, gain = -1, 0
        for i, f in enumerate(feats):
            if i in chosen:
                continue
            g = len(f - seen)
            if g > gain or (g == gain and g > 0 and best >= 0 and sizes[i] < sizes[best]):
                best, gain = i, g
        if best < 0 or gain == 0:
            break
        chosen.append(best)
        seen |= feats[best]
    return chosen


def _total(values: dict[str, object]) -> tuple[int, int]:
    parts = [size(v) for v in values.values()]
    return (sum(n for n, _ in parts), sum(m for _, m in parts))

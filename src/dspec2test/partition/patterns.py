"""Case patterns as tests and destructors: `case Cons(h, _)` on `l` is the test `l.Cons?` with `h` bound to
`l.head`, so a match splits into branches whose literals a reader (and BVA) can see: `l.Cons? && n == l.head`
instead of a literal that is a whole match expression.

Only the program's datatype declarations are needed: which names are constructors, and the names of their
fields. A pattern whose meaning depends on more than that (an anonymous field bound to a variable, a
constructor name two candidate datatypes define differently) gives None, and the caller keeps the match.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.model.walk import conj, pattern_names


@dataclass(frozen=True)
class CaseTest:
    """What a case pattern says about the scrutinee."""

    tests: tuple[ast.Expr, ...]  # all hold exactly when the pattern matches (evaluated left to right)
    binds: dict[str, ast.Expr]  # each pattern variable as an expression over the scrutinee
    ctor: str | None = None  # the top-level constructor tested, when the pattern is one

    @property
    def catch_all(self) -> bool:
        return not self.tests


@dataclass(frozen=True)
class Ctors:
    """The program's datatypes by constructor name."""

    by_name: dict[str, tuple[ast.Datatype, ...]]

    @staticmethod
    def of(decls: Iterable[object]) -> "Ctors":
        out: dict[str, list[ast.Datatype]] = {}
        for d in decls:
            if isinstance(d, ast.Datatype):
                for c in d.ctors:
                    if d not in out.setdefault(c.name, []):
                        out[c.name].append(d)
        return Ctors({k: tuple(v) for k, v in out.items()})

    def cases(self, scrutinee: ast.Expr, patterns: tuple[ast.Pattern, ...]) -> list[CaseTest] | None:
        """The tests of each case of a match on `scrutinee`; None when some case cannot be expressed."""
        datatypes = self._datatypes_of(patterns)
        if datatypes is None:
            return None
        out = []
        for p in patterns:
            got = _Converter(self, datatypes).convert(p, scrutinee)
            if got is None:
                return None
            out.append(got)
        return out

    def _datatypes_of(self, patterns: tuple[ast.Pattern, ...]) -> tuple[ast.Datatype, ...] | None:
        """The datatypes the scrutinee may have: those declaring every constructor the cases name (None: no
        datatype does, so a bare name in a case cannot be told from a variable)."""
        named = {_short(p.name) for p in patterns if isinstance(p, ast.PatCtor)}
        named |= {_short(p.name) for p in patterns if isinstance(p, ast.PatVar) and self.nullary(_short(p.name))}
        if not named:
            return ()
        candidates: set[ast.Datatype] | None = None
        for name in named:
            here = set(self.by_name.get(name, ()))
            candidates = here if candidates is None else candidates & here
        if not candidates:
            return None
        return tuple(candidates)

    def nullary(self, name: str) -> bool:
        return any(not c.params for d in self.by_name.get(name, ()) for c in d.ctors if c.name == name)


class _Converter:
    def __init__(self, ctors: Ctors, datatypes: tuple[ast.Datatype, ...]):
        self.ctors = ctors
        self.datatypes = datatypes

    def convert(self, p: ast.Pattern, s: ast.Expr) -> CaseTest | None:
        if isinstance(p, ast.PatWild):
            return CaseTest((), {})
        if isinstance(p, ast.PatVar):
            if self._is_ctor(_short(p.name), nullary=True):
                return CaseTest(self._ctor_test(s, _short(p.name)), {}, _short(p.name))
            return CaseTest((), {p.name: s})
        if isinstance(p, ast.PatBind):
            inner = self.convert(p.pattern, s)
            return None if inner is None else CaseTest(inner.tests, {**inner.binds, p.name: s}, inner.ctor)
        if isinstance(p, ast.PatLit):
            return CaseTest((ast.BinOp("==", s, p.value),), {})
        if isinstance(p, ast.PatTuple):
            if len(p.elems) == 1:
                return self.convert(p.elems[0], s)
            parts = s.elems if isinstance(s, ast.TupleExpr) and len(s.elems) == len(p.elems) else \
                tuple(ast.MemberSelect(s, str(k)) for k in range(len(p.elems)))
            return self._all(zip(p.elems, parts), ())
        if isinstance(p, ast.PatAlt):
            if any(True for a in p.alts for _ in pattern_names(a)):
                return None  # Dafny forbids variables in alternatives; do not guess
            alts = [self.convert(a, s) for a in p.alts]
            if any(a is None or a.catch_all for a in alts):
                return None if any(a is None for a in alts) else CaseTest((), {})
            return CaseTest((_disj([conj(a.tests) for a in alts]),), {})  # type: ignore[union-attr]
        if isinstance(p, ast.PatCtor):
            name = _short(p.name)
            fields = self._fields(name, len(p.args))
            if fields is None:
                return None
            sub = [(a, ast.MemberSelect(s, f)) for a, f in zip(p.args, fields)]
            if any(not f and not isinstance(a, ast.PatWild) for a, f in zip(p.args, fields)):
                return None  # an anonymous field has no destructor to bind or test it by
            got = self._all(((a, e) for a, e in sub if not isinstance(a, ast.PatWild)), self._ctor_test(s, name))
            return None if got is None else CaseTest(got.tests, got.binds, name)
        return None

    def _all(self, parts, tests: tuple[ast.Expr, ...]) -> CaseTest | None:
        binds: dict[str, ast.Expr] = {}
        for sub, e in parts:
            # a nested pattern is about a field (or tuple element) of its own type: its names tell which
            datatypes = self.ctors._datatypes_of((sub,))
            if datatypes is None:
                return None
            got = _Converter(self.ctors, datatypes).convert(sub, e)
            if got is None:
                return None
            tests += got.tests
            binds.update(got.binds)
        return CaseTest(tests, binds)

    def _is_ctor(self, name: str, nullary: bool) -> bool:
        return any(c.name == name and (not nullary or not c.params) for d in self.datatypes for c in d.ctors)

    def _ctor_test(self, s: ast.Expr, name: str) -> tuple[ast.Expr, ...]:
        # a datatype of one constructor always matches it: no test to state
        if all(len(d.ctors) == 1 for d in self.datatypes if any(c.name == name for c in d.ctors)):
            return ()
        return (ast.MemberSelect(s, name + "?"),)

    def _fields(self, name: str, arity: int) -> tuple[str, ...] | None:
        """The field names of constructor `name` ("" for an anonymous one), the same in every candidate."""
        found = {tuple(f.name for f in c.params) for d in self.datatypes for c in d.ctors if c.name == name}
        if len(found) != 1:
            return None
        fields = found.pop()
        return fields if len(fields) == arity else None


def _short(name: str) -> str:
    return name.split(".")[-1]


def _disj(es: list[ast.Expr]) -> ast.Expr:
    out = es[0]
    for e in es[1:]:
        out = ast.BinOp("||", out, e)
    return out


def disjoint(a: CaseTest, b: CaseTest) -> bool:
    """Two cases that test different constructors of the same scrutinee never both match."""
    return a.ctor is not None and b.ctor is not None and a.ctor != b.ctor

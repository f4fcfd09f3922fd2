"""Safe DNF and Full DNF of one clause: an ordered, lazy sequence of branches (conjunctions of literals).

Safe DNF follows Dafny's short-circuit evaluation: branch i carries the negations of the guards of the
branches before it, so no branch evaluates a sub-expression whose guard is false, and the branches of
one expression are pairwise disjoint. Full DNF enumerates every non-empty subset of satisfied
disjuncts of an n-ary disjunction (lazily, without bitmasks); it drops short-circuit safety.

`branches(e, positive)` yields tuples of literals whose disjunction is equivalent to `e` (positive) or
`!e` (negative). An atom with a value-level conditional or match in it is first lifted (see `lift`), so
`r == if x > 0 then x else -x` splits like `if x > 0 then r == x else r == -x`; a match splits into one
branch per case, whose literals are the case's constructor tests with its variables read by destructors
(`c.Red? && n == 1`) where the program's datatypes tell them (`patterns`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from dspec2test.dafny import ast
from dspec2test.partition.lift import Definitions, Unfolding, binds_over, lift
from dspec2test.partition.patterns import CaseTest, disjoint
from dspec2test.model.walk import conj, free_names, negate, pattern_names, substitute, walk

Branch = tuple[ast.Expr, ...]
Factory = Callable[[], Iterator[Branch]]


def branches(e: ast.Expr, positive: bool = True, full: bool = False,
             defs: Definitions | None = None) -> Iterator[Branch]:
    """`defs`: the program's datatypes, to split a match by constructor tests (without: by whole-match
    literals), and the functions defined by cases that a call in `e` unfolds to."""
    defs = defs or Definitions()
    return _Splitter(full, defs, Unfolding(e, defs)).split(e, positive)


def lazy_product(factories: list[Factory]) -> Iterator[Branch]:
    """Cross product of lazily produced branch sequences, concatenating literals, in order."""
    if not factories:
        yield ()
        return
    for head in factories[0]():
        for tail in lazy_product(factories[1:]):
            yield head + tail


class _Splitter:
    def __init__(self, full: bool, defs: Definitions, unfolding: Unfolding):
        self.full = full
        self.defs = defs
        self.unfolding = unfolding

    def f(self, e: ast.Expr, positive: bool) -> Factory:
        return lambda: self.split(e, positive)

    def split(self, e: ast.Expr, pos: bool) -> Iterator[Branch]:
        if self.full:
            ds = self._disjuncts(e, pos)
            if ds is not None and len(ds) > 1:
                return self._subsets(ds)
        method = getattr(self, "split_" + type(e).__name__, None)
        if method is not None:
            out = method(e, pos)
            if out is not None:
                return out
        lifted = lift(e, self.defs, self.unfolding)
        if lifted is not None:
            return self.split(lifted, pos)
        return iter([(e if pos else negate(e),)])

    # ------------------------------------------------------------ Full DNF

    def _disjuncts(self, e: ast.Expr, pos: bool) -> list[tuple[ast.Expr, bool]] | None:
        """The flattened disjuncts (expression, polarity) of `e` under `pos`, or None if not a disjunction."""
        if isinstance(e, ast.UnOp) and e.op == "!":
            return self._disjuncts(e.operand, not pos)
        if not isinstance(e, ast.BinOp):
            return None
        parts: list[tuple[ast.Expr, bool]]
        if pos and e.op == "||":
            parts = [(e.left, True), (e.right, True)]
        elif pos and e.op == "==>":
            parts = [(e.left, False), (e.right, True)]
        elif pos and e.op == "<==":
            parts = [(e.left, True), (e.right, False)]
        elif not pos and e.op == "&&":
            parts = [(e.left, False), (e.right, False)]
        else:
            return None
        flat: list[tuple[ast.Expr, bool]] = []
        for sub, p in parts:
            flat.extend(self._disjuncts(sub, p) or [(sub, p)])
        return flat

    def _subsets(self, ds: list[tuple[ast.Expr, bool]]) -> Iterator[Branch]:
        # itertools.product over (True, False) per disjunct: lazy, no integer masks to overflow.
        for choice in itertools.product((True, False), repeat=len(ds)):
            if not any(choice):
                continue
            yield from lazy_product([self.f(d, p if c else not p) for (d, p), c in zip(ds, choice)])

    # ------------------------------------------------------------ Safe DNF rules

    def _then(self, first: tuple[ast.Expr, bool], second: tuple[ast.Expr, bool]) -> Iterator[Branch]:
        return lazy_product([self.f(*first), self.f(*second)])

    def _seq(self, *parts: Factory) -> Iterator[Branch]:
        for p in parts:
            yield from p()

    def split_UnOp(self, e: ast.UnOp, pos: bool) -> Iterator[Branch] | None:
        if e.op != "!":
            return None
        return self.split(e.operand, not pos)

    def split_BoolLit(self, e: ast.BoolLit, pos: bool) -> Iterator[Branch] | None:
        return iter([(ast.BoolLit(e.value == pos),)])

    def split_BinOp(self, e: ast.BinOp, pos: bool) -> Iterator[Branch] | None:
        a, b = e.left, e.right
        op = e.op
        if op == "&&":
            if pos:  # A && B
                return self._then((a, True), (b, True))
            return self._seq(self.f(a, False), lambda: self._then((a, True), (b, False)))  # !A, A && !B
        if op == "||":
            if pos:  # A, !A && B
                return self._seq(self.f(a, True), lambda: self._then((a, False), (b, True)))
            return self._then((a, False), (b, False))
        if op == "==>":
            if pos:  # !A, A && B
                return self._seq(self.f(a, False), lambda: self._then((a, True), (b, True)))
            return self._then((a, True), (b, False))
        if op == "<==":  # A <== B is A || !B, evaluated left to right
            if pos:
                return self._seq(self.f(a, True), lambda: self._then((a, False), (b, False)))
            return self._then((a, False), (b, True))
        if op == "<==>":
            if pos:  # A && B, !A && !B
                return self._seq(lambda: self._then((a, True), (b, True)), lambda: self._then((a, False), (b, False)))
            return self._seq(lambda: self._then((a, True), (b, False)), lambda: self._then((a, False), (b, True)))
        return None

    def split_IfThenElse(self, e: ast.IfThenElse, pos: bool) -> Iterator[Branch] | None:
        if e.binding:
            return None  # `if x :| P then ...` binds in the branches: keep whole
        return self._seq(lambda: self._then((e.cond, True), (e.then, pos)),
                         lambda: self._then((e.cond, False), (e.els, pos)))

    def split_Let(self, e: ast.Let, pos: bool) -> Iterator[Branch] | None:
        if e.such_that is not None or e.fail_op:
            return None
        # a conditional in a bound value first: `var a := if c then x else y; P(a)`
        lifted = lift(e, self.defs, self.unfolding)
        if lifted is not None:
            return self.split(lifted, pos)
        names = frozenset(n for p in e.pats for n in pattern_names(p))

        def wrap(lit: ast.Expr) -> ast.Expr:
            if names & free_names(lit):
                inlined = _inline(e, lit)
                return inlined if inlined is not None else ast.Let(e.pats, e.values, lit, ghost=e.ghost, span=e.span)
            return lit

        return (tuple(wrap(lit) for lit in br) for br in self.split(e.body, pos))

    def split_MatchExpr(self, e: ast.MatchExpr, pos: bool) -> Iterator[Branch] | None:
        if any(isinstance(c.body, tuple) for c in e.cases):
            return None
        by_tests = self._match_by_tests(e, pos)
        if by_tests is not None:
            return by_tests

        def case_branches(i: int) -> Iterator[Branch]:
            case = e.cases[i]
            before = tuple(ast.MatchCase(c.pattern, ast.BoolLit(False)) for c in e.cases[:i])
            after = (ast.MatchCase(ast.PatWild(), ast.BoolLit(False)),) if i < len(e.cases) - 1 else ()

            def wrap(lit: ast.Expr) -> ast.Expr:
                # Earlier cases map to false, so the literal also says "the scrutinee matches case i only".
                return ast.MatchExpr(e.scrutinee, before + (ast.MatchCase(case.pattern, lit),) + after, span=e.span)

            for br in self.split(case.body, pos):  # type: ignore[arg-type]
                yield tuple(wrap(lit) for lit in br)

        return self._seq(*[(lambda i=i: case_branches(i)) for i in range(len(e.cases))])

    def _match_by_tests(self, e: ast.MatchExpr, pos: bool) -> Iterator[Branch] | None:
        """Case i: the earlier cases that could also match do not, case i's tests hold, and its body (with the
        pattern's variables replaced by destructors of the scrutinee) splits as usual. None when a case
        cannot be put so (the whole-match literals below then stand)."""
        found = self.defs.ctors.cases(e.scrutinee, tuple(c.pattern for c in e.cases))
        if found is None:
            return None
        tests: list[CaseTest] = found
        bodies = []
        for case, t in zip(e.cases, tests):
            body: ast.Expr = case.body  # type: ignore[assignment]
            if t.binds:
                if frozenset(n for v in t.binds.values() for n in free_names(v)) & binds_over(body):
                    return None  # a binder in the body would capture the scrutinee's names
                body = substitute(body, t.binds)
            bodies.append(body)

        def case_branches(i: int) -> Iterator[Branch]:
            earlier = [t for t in tests[:i] if not disjoint(t, tests[i])]
            if any(t.catch_all for t in earlier):
                return  # an earlier case catches everything: this one is never reached
            guard = tuple(negate(conj(t.tests)) for t in earlier) + tests[i].tests
            for br in self.split(bodies[i], pos):
                yield guard + br

        return self._seq(*[(lambda i=i: case_branches(i)) for i in range(len(e.cases))])

    def split_Quantifier(self, e: ast.Quantifier, pos: bool) -> Iterator[Branch] | None:
        # exists (positive) and not-forall (negative) are disjunctions over the body's branches.
        if (e.kind == "exists") != pos:
            return None
        body = e.body if e.kind == "exists" else negate(e.body)
        if e.range is not None:
            body = ast.BinOp("&&", e.range, body)
        inner = list(itertools.islice(self.split(body, True), 65))
        if len(inner) <= 1 or len(inner) > 64:
            return None

        def q(br: Branch) -> ast.Expr:
            return ast.Quantifier("exists", e.vars, None, conj(br), e.attributes, span=e.span)

        def gen() -> Iterator[Branch]:
            for i, br in enumerate(inner):
                yield tuple(negate(q(prev)) for prev in inner[:i]) + (q(br),)

        return gen()


def _inline(let: ast.Let, lit: ast.Expr) -> ast.Expr | None:
    """A literal under a let, with the let's values put in place of its names where that stays readable and
    means the same: untyped variables bound to a name or a literal, or used once, with nothing captured."""
    if not all(isinstance(p, ast.PatVar) and p.type is None for p in let.pats):
        return None
    inner = binds_over(lit)
    mapping: dict[str, ast.Expr] = {}
    for p, v in zip(let.pats, let.values):
        assert isinstance(p, ast.PatVar)
        if free_names(v) & inner:
            return None
        uses = sum(1 for x in walk(lit) if isinstance(x, ast.Name) and x.name == p.name)
        if uses > 1 and not isinstance(v, (ast.Name, ast.IntLit, ast.BoolLit, ast.CharLit, ast.RealLit)):
            return None
        mapping[p.name] = v
    return substitute(lit, mapping)

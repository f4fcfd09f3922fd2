"""Safe DNF and Full DNF branch rules, and the property: branches are disjoint and cover the expression."""

import itertools

import z3
from build import INT, b, chain, i, n
from fakesolver import FakeSolver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.partition.dnf import branches
from dspec2test.partition.walk import conj

A, B, C = b("<", n("x"), i(0)), b("==", n("y"), i(1)), b(">", n("x"), n("y"))


def labels(e, full=False, positive=True):
    return [print_expr(conj(br)) for br in branches(e, positive, full)]


def test_safe_rules_follow_short_circuit_order():
    assert labels(b("==>", A, B)) == ["!(x < 0)", "x < 0 && y == 1"]
    assert labels(b("||", A, B)) == ["x < 0", "!(x < 0) && y == 1"]
    assert labels(ast.UnOp("!", b("&&", A, B))) == ["!(x < 0)", "x < 0 && !(y == 1)"]
    assert labels(b("<==>", A, B)) == ["x < 0 && y == 1", "!(x < 0) && !(y == 1)"]
    assert labels(ast.IfThenElse(A, B, C)) == ["x < 0 && y == 1", "!(x < 0) && x > y"]
    assert labels(b("<==", A, B)) == ["x < 0", "!(x < 0) && !(y == 1)"]


def test_chained_comparison_is_one_atom():
    e = chain(i(0), "<=", n("x"), "<", n("y"))
    assert labels(e) == ["0 <= x < y"]
    assert labels(e, positive=False) == ["!(0 <= x < y)"]


def test_let_and_match_are_split_through_their_bodies():
    let = ast.Let((ast.PatVar("k"),), (b("+", n("x"), i(1)),), b("||", b("<", n("k"), i(0)), B))
    assert labels(let) == ["var k := x + 1; k < 0", "(var k := x + 1; !(k < 0)) && y == 1"]
    m = ast.MatchExpr(n("d"), (ast.MatchCase(ast.PatCtor("Nil", ()), A),
                               ast.MatchCase(ast.PatCtor("Cons", (ast.PatVar("h"), ast.PatWild())), b("||", A, B))))
    got = labels(m)
    assert len(got) == 3
    assert got[0] == "match d { case Nil() => x < 0 case _ => false }"
    assert got[1].startswith("match d { case Nil() => false case Cons(h, _) => x < 0 }")


def test_exists_positive_and_forall_negative_split():
    k = ast.BoundVar("k", INT)
    ex = ast.Quantifier("exists", (k,), None, b("||", b("==", n("k"), n("x")), b("==", n("k"), n("y"))))
    got = labels(ex)
    assert got == ["exists k: int :: k == x",
                   "!(exists k: int :: k == x) && (exists k: int :: !(k == x) && k == y)"]
    fa = ast.Quantifier("forall", (k,), None, b("&&", b("==", n("k"), n("x")), b("==", n("k"), n("y"))))
    assert len(labels(fa, positive=False)) == 2
    assert labels(fa) == [print_expr(fa)]  # a positive forall stays one atom


def test_issue_example_safe_two_full_three():
    r, x = n("r"), n("x")
    e = b("||", b("==", r, x), b("==", r, ast.UnOp("-", x)))
    assert len(labels(e)) == 2
    assert labels(e, full=True) == ["r == x && r == -x", "r == x && !(r == -x)", "!(r == x) && r == -x"]


def test_full_dnf_is_lazy_on_wide_disjunctions():
    wide = b("==", n("x"), i(0))
    for k in range(1, 40):  # 2^40 subsets: only the first few are ever built
        wide = b("||", wide, b("==", n("x"), i(k)))
    first = list(itertools.islice(branches(wide, True, True), 3))
    assert len(first) == 3 and all(len(br) == 40 for br in first)


# ---------------------------------------------------------------- property

ATOMS = [b("<", n("x"), i(0)), b("==", n("y"), i(1)), b(">", n("x"), n("y")), b("<=", b("+", n("x"), n("y")), i(3)),
         chain(i(0), "<=", n("x"), "<", i(5))]


def exprs():
    leaf = st.sampled_from(ATOMS)

    def grow(children):
        binary = st.tuples(st.sampled_from(["&&", "||", "==>", "<==", "<==>"]), children, children).map(
            lambda t: b(*t))
        neg = children.map(lambda e: ast.UnOp("!", e))
        ite = st.tuples(children, children, children).map(lambda t: ast.IfThenElse(*t))
        return binary | neg | ite

    return st.recursive(leaf, grow, max_leaves=6)


SOLVER = FakeSolver([("x", INT, False), ("y", INT, False)])


def _valid(f) -> bool:
    s = z3.Solver()
    s.add(z3.Not(f))
    return s.check() == z3.unsat


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs(), st.booleans())
def test_branches_are_disjoint_and_cover(e, full):
    brs = [SOLVER.enc(conj(br)) for br in branches(e, True, full)]
    whole = SOLVER.enc(e)
    assert _valid(whole == z3.Or(*brs)) if brs else _valid(z3.Not(whole))
    for p, q in itertools.combinations(brs, 2):
        assert _valid(z3.Not(z3.And(p, q)))

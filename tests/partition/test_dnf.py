"""Safe DNF and Full DNF branch rules, and the property: branches are disjoint and cover the expression."""

import itertools

import z3
from build import INT, b, card, chain, i, n
from fakesolver import OPT_DECL, FakeSolver
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.partition.dnf import branches
from dspec2test.partition.lift import Definitions
from dspec2test.partition.patterns import Ctors
from dspec2test.model.walk import conj

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
    assert labels(let) == ["x + 1 < 0", "!(x + 1 < 0) && y == 1"]  # used once: the value stands in
    twice = ast.Let((ast.PatVar("k"),), (b("+", n("x"), i(1)),), b("||", b("<", n("k"), n("k")), B))
    assert labels(twice) == ["var k := x + 1; k < k", "(var k := x + 1; !(k < k)) && y == 1"]
    m = ast.MatchExpr(n("d"), (ast.MatchCase(ast.PatCtor("Nil", ()), A),
                               ast.MatchCase(ast.PatCtor("Cons", (ast.PatVar("h"), ast.PatWild())), b("||", A, B))))
    got = labels(m)
    assert len(got) == 3
    assert got[0] == "match d { case Nil() => x < 0 case _ => false }"
    assert got[1].startswith("match d { case Nil() => false case Cons(h, _) => x < 0 }")


COLOR = ast.Datatype("Color", tuple(ast.Ctor(c, ()) for c in ("Red", "Green", "Blue")))


def test_value_level_conditional_is_lifted_out_of_its_atom():
    r, x = n("r"), n("x")
    e = b("==", r, ast.IfThenElse(b(">", x, i(0)), x, ast.UnOp("-", x)))
    assert labels(e) == ["x > 0 && r == x", "!(x > 0) && r == -x"]
    assert labels(e, positive=False) == ["x > 0 && !(r == x)", "!(x > 0) && !(r == -x)"]
    assert labels(e, full=True) == labels(e)
    # nested, and in any operand the atom always evaluates
    nested = b("<", b("+", ast.IfThenElse(A, i(1), ast.IfThenElse(B, i(2), i(3))), x), i(5))
    assert labels(nested) == ["x < 0 && 1 + x < 5", "!(x < 0) && y == 1 && 2 + x < 5",
                              "!(x < 0) && !(y == 1) && 3 + x < 5"]


def test_value_level_match_gives_one_branch_per_case_with_constructor_tests():
    c, m = n("c"), n("n")
    e = b("==", m, ast.MatchExpr(c, tuple(ast.MatchCase(ast.PatVar(k), i(v))
                                          for k, v in (("Red", 1), ("Green", 2), ("Blue", 3)))))
    got = [print_expr(conj(br)) for br in branches(e, True, False, Definitions(Ctors.of([COLOR])))]
    assert got == ["c.Red? && n == 1", "c.Green? && n == 2", "c.Blue? && n == 3"]
    # a catch-all case says which earlier cases did not match; the wildcard after it is never reached
    wild = b("==", m, ast.MatchExpr(c, (ast.MatchCase(ast.PatVar("Red"), i(1)), ast.MatchCase(ast.PatWild(), i(0)),
                                        ast.MatchCase(ast.PatVar("Blue"), i(3)))))
    got = [print_expr(conj(br)) for br in branches(wild, True, False, Definitions(Ctors.of([COLOR])))]
    assert got == ["c.Red? && n == 1", "!c.Red? && n == 0"]


def test_case_variables_become_destructors_and_never_capture_the_atoms_names():
    # `x == match o case None => 0 case Some(x) => x + 1`: the case's x is o.value, the atom's x stays
    x, o = n("x"), n("o")
    m = ast.MatchExpr(o, (ast.MatchCase(ast.PatVar("None"), i(0)),
                          ast.MatchCase(ast.PatCtor("Some", (ast.PatVar("x"),)), b("+", x, i(1)))))
    e = b("==", x, m)
    got = [print_expr(conj(br)) for br in branches(e, True, False, CTORS)]
    assert got == ["o.None? && x == 0", "o.Some? && x == o.value + 1"]
    # without the datatypes, the match stays whole inside each literal, its variable renamed apart
    plain = labels(e)
    assert len(plain) == 2 and "case Some(x') => x == x' + 1" in plain[1]
    for got_branches in (branches(e, True, False, CTORS), branches(e, True, False)):
        brs = [SOLVER.enc(conj(br)) for br in got_branches]
        assert _valid(SOLVER.enc(e) == z3.Or(*brs))


def test_lets_are_lifted_through():
    r, x = n("r"), n("x")
    absx = ast.IfThenElse(b(">", x, i(0)), x, ast.UnOp("-", x))
    bound = ast.Let((ast.PatVar("a"),), (absx,), b("==", r, n("a")))  # the conditional in the bound value
    assert labels(bound) == ["x > 0 && r == x", "!(x > 0) && r == -x"]
    inner = b("==", r, ast.Let((ast.PatVar("a"),), (b("+", x, i(1)),),
                               ast.IfThenElse(b(">", n("a"), i(0)), n("a"), i(0))))  # a let in a value
    assert labels(inner) == ["x + 1 > 0 && r == x + 1", "!(x + 1 > 0) && r == 0"]
    clash = b("==", n("a"), ast.Let((ast.PatVar("a"),), (b("*", x, x),), ast.IfThenElse(A, n("a"), i(0))))
    assert labels(clash) == ["x < 0 && a == x * x", "!(x < 0) && a == 0"]


def test_guarded_conditionals_keep_their_guards_first():
    # `b == (0 <= i < |s| && (if s[i] > 0 then 1 else 2) == r)`: s[i] only ever after its guard
    s_i = ast.Index(n("s"), (n("i"),))
    guard = chain(i(0), "<=", n("i"), "<", card(n("s")))
    e = b("==", n("b"), b("&&", guard, b("==", ast.IfThenElse(b(">", s_i, i(0)), i(1), i(2)), n("r"))))
    for full in (False, True):
        got = list(branches(e, True, full))
        assert len(got) == 3
        for br in got:
            where = [k for k, lit in enumerate(br) if "s[i]" in print_expr(lit)]
            if where:
                assert br[:where[0]] == (guard,)
    # a chain is a conjunction: its third operand is evaluated only when the first comparison holds
    third = chain(n("x"), "<", n("y"), "<", ast.IfThenElse(A, i(1), i(2)))
    assert labels(third) == [print_expr(third)]
    first = chain(ast.IfThenElse(A, i(1), i(2)), "<", n("y"), "<", n("x"))
    assert labels(first) == ["x < 0 && 1 < y < x", "!(x < 0) && 2 < y < x"]
    # inside a quantifier or old() nothing is lifted
    q = ast.Quantifier("forall", (ast.BoundVar("k", INT),), None,
                       b("==", n("k"), ast.IfThenElse(b(">", n("x"), i(0)), i(1), i(2))))
    assert labels(q) == [print_expr(q)]
    old = b("==", n("r"), ast.Old(ast.IfThenElse(A, i(1), i(2))))
    assert labels(old) == [print_expr(old)]


def _function(name, params, body, result=INT, module=None):
    f = ast.Function("function", name, tuple(ast.Formal(p, INT) for p in params), ast.Formal("", result),
                     ast.Spec(), body)
    return f


def test_a_call_of_a_function_defined_by_cases_is_unfolded_once():
    x, r, k = n("x"), n("r"), n("k")
    absf = _function("Abs", ["v"], ast.IfThenElse(b("<", n("v"), i(0)), ast.UnOp("-", n("v")), n("v")))
    fib = _function("Fib", ["k"], ast.IfThenElse(b("<", k, i(2)), k, b("+", ast.Call(n("Fib"), (b("-", k, i(1)),)),
                                                                         ast.Call(n("Fib"), (b("-", k, i(2)),)))))
    sorted_ = _function("Up", ["a", "c"], ast.IfThenElse(b(">=", n("a"), n("c")), ast.BoolLit(True),
                                                         b("<", n("a"), i(0))), result=ast.NamedType("bool"))
    other = _function("Far", ["v"], ast.IfThenElse(b("<", n("v"), n("K")), i(1), i(2)))  # K: not of its module
    defs = Definitions.of(ast.Program("p.dfy", (), (absf, fib, sorted_, other)))
    assert set(defs.functions) == {"Abs", "Fib", "Up"}

    def got(e, positive=True):
        return [print_expr(conj(br)) for br in branches(e, positive, False, defs)]

    assert got(b("==", r, ast.Call(n("Abs"), (b("+", x, i(1)),)))) == ["x + 1 < 0 && r == -(x + 1)",
                                                                       "!(x + 1 < 0) && r == x + 1"]
    assert got(b("==", r, ast.Call(n("Fib"), (x,)))) == ["x < 2 && r == x",
                                                         "!(x < 2) && r == Fib(x - 1) + Fib(x - 2)"]
    up = ast.Call(n("Up"), (x, r))  # a predicate called as the atom itself
    assert got(up) == ["x >= r && true", "!(x >= r) && x < 0"]  # the walk drops `true`
    assert got(up, positive=False) == ["x >= r && false", "!(x >= r) && !(x < 0)"]
    far = b("==", r, ast.Call(n("Far"), (x,)))
    assert got(far) == [print_expr(far)]
    assert [print_expr(conj(br)) for br in branches(up, True, False)] == ["Up(x, r)"]  # without the definitions


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


def values():
    """Integer expressions with conditionals, matches (on an int, binding it; on `Opt`, binding `x`, which
    the surrounding atom also uses) and lets in them."""
    leaf = st.sampled_from([n("x"), n("y"), i(0), i(2)])
    cond = st.sampled_from(ATOMS)

    def grow(children):
        ite = st.tuples(cond, children, children).map(lambda t: ast.IfThenElse(*t))
        add = st.tuples(children, children).map(lambda t: b("+", *t))
        on_int = st.tuples(children, children, children).map(lambda t: ast.MatchExpr(t[0], (
            ast.MatchCase(ast.PatLit(i(0)), t[1]), ast.MatchCase(ast.PatVar("k"), b("+", n("k"), t[2])))))
        on_opt = st.tuples(children, children).map(lambda t: ast.MatchExpr(n("o"), (
            ast.MatchCase(ast.PatVar("None"), t[0]),
            ast.MatchCase(ast.PatCtor("Some", (ast.PatVar("x"),)), b("-", n("x"), t[1])))))
        let = st.tuples(children, children).map(lambda t: ast.Let((ast.PatVar("y"),), (t[0],),
                                                                  b("+", n("y"), b("+", n("y"), t[1]))))
        return ite | add | on_int | on_opt | let

    return st.recursive(leaf, grow, max_leaves=3)


def value_atoms():
    v = values()
    compare = st.tuples(st.sampled_from(["<", "==", ">="]), v, v).map(lambda t: b(*t))
    # a conditional behind a short-circuit guard, inside an atom: the guard is lifted first
    guarded = st.tuples(st.sampled_from(["&&", "||", "==>"]), st.sampled_from(ATOMS), v).map(
        lambda t: b("==", b(t[0], t[1], b(">", t[2], i(0))), b(">", n("x"), n("y"))))
    return compare | guarded


def exprs(lifted: bool = False):
    leaf = st.sampled_from(ATOMS) | value_atoms() if lifted else st.sampled_from(ATOMS)

    def grow(children):
        binary = st.tuples(st.sampled_from(["&&", "||", "==>", "<==", "<==>"]), children, children).map(
            lambda t: b(*t))
        neg = children.map(lambda e: ast.UnOp("!", e))
        ite = st.tuples(children, children, children).map(lambda t: ast.IfThenElse(*t))
        return binary | neg | ite

    return st.recursive(leaf, grow, max_leaves=3 if lifted else 6)


SOLVER = FakeSolver([("x", INT, False), ("y", INT, False), ("o", ast.NamedType("Opt"), False)])
CTORS = Definitions(Ctors.of([OPT_DECL]))


def _valid(f) -> bool:
    s = z3.Solver()
    s.add(z3.Not(f))
    return s.check() == z3.unsat


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs(), st.booleans())
def test_branches_are_disjoint_and_cover(e, full):
    _disjoint_and_cover(e, full, None)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs(lifted=True), st.booleans(), st.booleans())
def test_lifted_branches_are_disjoint_and_cover(e, full, by_tests):
    _disjoint_and_cover(e, full, CTORS if by_tests else None)


def _disjoint_and_cover(e, full, ctors):
    got = list(itertools.islice(branches(e, True, full, ctors), 257))
    assume(len(got) <= 256)  # the partition cap would cut more: they could not all be checked
    brs = [SOLVER.enc(conj(br)) for br in got]
    whole = SOLVER.enc(e)
    assert _valid(whole == z3.Or(*brs)) if brs else _valid(z3.Not(whole))
    for p, q in itertools.combinations(brs, 2):
        assert _valid(z3.Not(z3.And(p, q)))


def test_a_let_moved_out_of_an_atom_does_not_capture_a_name_another_let_reads_in_its_value():
    # `(var y := match ...; y + x) < (var y := y; y + x)`: the right let's value is the outer y; moving the
    # left let over the whole atom must rename it (found by the property test above)
    n = ast.Name
    m = ast.MatchExpr(n("o"), (ast.MatchCase(ast.PatVar("None"), n("x")),
                               ast.MatchCase(ast.PatCtor("Some", (ast.PatVar("x"),)), b("-", n("x"), n("x")))))
    left = ast.Let((ast.PatVar("y"),), (m,), b("+", n("y"), n("x")))
    right = ast.Let((ast.PatVar("y"),), (n("y"),), b("+", n("y"), n("x")))
    _disjoint_and_cover(b("<", left, right), False, None)


def test_the_last_unfolding_a_clause_is_allowed_is_made_whole():
    """`F(a) == if F(a) >= F(b) then F(a) else F(b)` with F by cases runs into the unfolding limit: the
    unfolding that reaches it was counted before its body was taken, which then came back empty (None)
    and broke the branch (an internal error for the member, in any project with such a helper)."""
    from dspec2test.partition.lift import MAX_UNFOLDINGS
    absf = _function("Abs", ["v"], ast.IfThenElse(b("<", n("v"), i(0)), ast.UnOp("-", n("v")), n("v")))
    defs = Definitions.of(ast.Program("p.dfy", (), (absf,)))
    fa, fb = ast.Call(n("Abs"), (n("a"),)), ast.Call(n("Abs"), (n("b"),))
    clause = b("==", ast.Call(n("Abs"), (n("r"),)), ast.IfThenElse(b(">=", fa, fb), fa, fb))
    got = list(branches(clause, True, False, defs))
    assert got and len(got) <= 2 ** MAX_UNFOLDINGS
    for br in got:
        print_expr(conj(br))  # every literal is whole: it prints

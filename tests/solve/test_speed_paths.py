"""The shortcuts that save work without changing what is found: the encoder's memo, a partition's
remembered unsat cores, and pins decided on a model."""

import z3

from dspec2test.solve import Solver
from dspec2test.solve import solver as S
from tests.solve.build import T, card, chain, forall, i, idx, n, op, program
from dspec2test.oracle import Unbounded
from dspec2test.solve.context import Query
from dspec2test.solve.optimise import FAR_PROBE_RLIMIT, PROBE_RLIMIT

EMPTY = program()
INT = T("int")
SEQ = T("seq", INT)


def _pairs_differ():
    """forall k :: 0 <= k < |a| ==> forall l :: k < l < |a| ==> a[k] != a[l]: the inner body is met under
    every outer instance."""
    inner = forall("l", op("==>", chain(n("k"), "<", n("l"), "<", card(n("a"))),
                           op("!=", idx(n("a"), n("k")), idx(n("a"), n("l")))))
    return forall("k", op("==>", chain(0, "<=", n("k"), "<", card(n("a"))), inner))


def test_memo_encodes_each_subterm_once_per_bound_values_and_builds_the_same_formula(monkeypatch):
    def encode(memo: bool):
        s = Solver(EMPTY, [("a", SEQ, False)], length_limit=4)
        if not memo:
            monkeypatch.setattr(s.encoder, "_pure_names", lambda e: None)
        calls = []
        real = type(s.encoder).e_Index
        monkeypatch.setattr(type(s.encoder), "e_Index", lambda self, e, env: calls.append(1) or real(self, e, env))
        f = s.encoder.boolean(_pairs_differ(), s.env)
        monkeypatch.undo()
        return f, len(calls)

    with_memo, fewer = encode(True)
    without, more = encode(False)
    assert with_memo.eq(without)  # Z3 shares equal terms: the memo hands back the very same formula
    assert fewer < more / 2  # a[k] is not encoded again for every l


def test_memo_tells_bound_values_and_proof_contexts_apart():
    s = Solver(EMPTY, [("a", SEQ, False), ("x", INT, False)])
    e = op("==", idx(n("a"), n("x")), i(3))
    env = s.env
    one = s.encoder.enc(e, env.bind({"x": s.encoder.enc(i(1), env)})).v
    two = s.encoder.enc(e, env.bind({"x": s.encoder.enc(i(2), env)})).v
    assert not one.eq(two)
    assert s.encoder.enc(e, env.bind({"x": s.encoder.enc(i(1), env)})).v.eq(one)
    before = len(s.encoder._memo)
    s._unlimited = frozenset({"a"})  # other length limits: bound proofs may differ, so a new entry
    s.encoder.enc(e, env.bind({"x": s.encoder.enc(i(1), env)}))
    assert len(s.encoder._memo) > before


def test_a_partitions_later_scenarios_skip_the_preferences_its_base_could_not_meet(monkeypatch):
    # r == x + 1 and x == 0 leave `x away from 0 and 1` and `x > 1` unmeetable: the base solve learns
    # that from unsat cores, one query each; a pinned scenario of the same partition starts without them
    s = Solver(EMPTY, [("x", INT, False), ("r", INT, True)])
    lits = [op("==", n("r"), op("+", n("x"), i(1))), op("==", n("x"), i(0))]
    runs = []
    real = S.Solver._run
    monkeypatch.setattr(S.Solver, "_run", lambda self, q, *a: runs.append(1) or real(self, q, *a))
    base = s.solve(lits, relevant=lits)
    first = len(runs)
    runs.clear()
    pinned = s.solve(lits + [op("==", n("r"), i(1))], relevant=lits, avoid=[base])
    assert base is not None and pinned is not None and pinned.raw["r"] == 1
    assert first >= 2 and len(runs) < first


def test_holds_evaluates_a_pin_on_a_model():
    s = Solver(EMPTY, [("a", SEQ, False), ("x", INT, False)])
    m = s.solve([op("==", card(n("a")), i(3)), op("==", n("x"), i(2))])
    assert s.holds(op("==", n("x"), op("-", card(n("a")), i(1))), m) is True
    assert s.holds(op("==", card(n("a")), i(0)), m) is False
    assert s.holds(op(">", card(n("a")), i(1)), m) is True


def test_size_and_sign_preferences_are_built_once_per_turn_parity():
    s = Solver(EMPTY, [("a", SEQ, False)])
    assert s._nontrivial(0) is s._nontrivial(2)
    assert s._nontrivial(1) is s._nontrivial(3)
    assert not s._nontrivial(0)[-1][2].eq(s._nontrivial(1)[-1][2])  # all positive, then both signs


def test_without_zs_python_checks_the_same_query_gives_the_same_model(monkeypatch):
    lits = [chain(0, "<=", n("x"), "<", card(n("a"))), op("==", idx(n("a"), n("x")), i(7))]

    def solved():
        s = Solver(EMPTY, [("a", SEQ, False), ("x", INT, False)])
        return s.solve(lits).values

    monkeypatch.setattr(z3.z3, "Z3_DEBUG", True)  # restored after the test
    checked = solved()
    from dspec2test.solve import skip_python_checks
    skip_python_checks()
    assert z3.z3.Z3_DEBUG is False
    assert solved() == checked


def test_the_far_probe_for_unboundedness_gets_a_small_budget(monkeypatch):
    # n >= 0 && r == SumTo(n): asked at n >= 2^20, Z3 unfolds SumTo a million times and gives up, which
    # counts as unbounded whatever the budget; the small one makes that answer come at once
    from tests.solve.build import call, function, ite
    sum_to = function("SumTo", [("n", INT)], INT,
                      ite(op("<=", n("n"), i(0)), i(0), op("+", n("n"), call("SumTo", op("-", n("n"), i(1))))))
    s = Solver(program(sum_to), [("n", INT, False), ("r", INT, True)])
    cons = [op(">=", n("n"), i(0)), op("==", n("r"), call("SumTo", n("n")))]
    budgets = []
    real = Query.set_budget
    monkeypatch.setattr(Query, "set_budget", lambda self, units: budgets.append(units) or real(self, units))
    assert isinstance(s.optimize(n("n"), cons, True), Unbounded)
    assert FAR_PROBE_RLIMIT in budgets and FAR_PROBE_RLIMIT < PROBE_RLIMIT
    assert s.optimize(n("n"), cons, False) == 0  # the least edge is still searched in full


def test_an_edge_at_the_linear_bound_is_confirmed_by_one_fresh_query(monkeypatch):
    # 0 <= i < |a| < 50 with |a| >= 20 (past the length limit): the linear part bounds i by 48, and one
    # query on a fresh solver shows 48 is met, with no gallop of probes towards it
    s = Solver(EMPTY, [("a", SEQ, False), ("i", INT, False)])
    size = card(n("a"))
    cons = [op(">=", size, i(20)), op("<", size, i(50)), chain(0, "<=", n("i"), "<", size)]
    runs = []
    real = S.Solver._run
    monkeypatch.setattr(S.Solver, "_run", lambda self, q, *a: runs.append(1) or real(self, q, *a))
    assert s.optimize(n("i"), cons, True) == 48
    assert len(runs) <= 2  # the first model, then the bound itself
    assert s.optimize(op("-", n("i"), size), cons, True) == -1


def _proofs(s, monkeypatch) -> list:
    asked = []
    real = Query.check
    monkeypatch.setattr(Query, "check", lambda self, *a: asked.append(1) or real(self, *a))
    return asked


def test_an_unbounded_sequence_fails_the_bound_ladder_in_two_proofs_and_a_bounded_one_gets_its_least_step(
        monkeypatch):
    s = Solver(EMPTY, [("a", SEQ, False)], length_limit=4)
    s._unlimited = frozenset({"a"})
    asked = _proofs(s, monkeypatch)
    a = z3.Length(s.env.vars["a"].v)
    assert s.encoder.least_bound(a, None, (5, 10, 20)) is None
    assert len(asked) == 2  # 5, then 20: a counterexample to 20 refutes 10 as well
    s._unlimited = frozenset()  # the limit (4) bounds it: the first step holds
    assert s.encoder.least_bound(a + 7, None, (5, 10, 20)) == 20
    assert s.encoder.least_bound(a + 3, None, (5, 10, 20)) == 10
    assert s.encoder.least_bound(a, z3.IntVal(0), (5, 10, 20)) == 5


def test_limit_settings_that_differ_only_in_scalars_share_their_proofs(monkeypatch):
    s = Solver(EMPTY, [("a", SEQ, False), ("x", INT, False)], length_limit=4)
    a = z3.Length(s.env.vars["a"].v)
    s._unlimited = frozenset({"a"})
    assert not s._prove(a <= 9)
    asked = _proofs(s, monkeypatch)
    s._unlimited = frozenset({"a", "x"})  # optimisation unlimits every variable: x's constraints are the same
    assert not s._prove(a <= 9)
    assert s._prove(z3.IntVal(3) <= z3.IntVal(1) + 5)  # true by simplification alone
    assert asked == []
    s._unlimited = frozenset()
    assert s._prove(a <= 9)  # the limit on a is another setting
    assert asked == [1]

"""The bounded fallback: when Z3 gives up on a scenario, small shapes of the inputs find a witness."""

import z3

from dspec2test.dafny import ast as A
from dspec2test.solve import SolveResult, Solver
from dspec2test.solve import solver as S
from dspec2test.solve.bounded import Dim, shapes
from tests.solve.build import T, card, chain, i, idx, n, op, program
from dspec2test.solve.context import Query

EMPTY = program()
INT = T("int")


def test_shapes_fix_small_lengths_first_then_larger_then_small_integers():
    a, b, x = (Dim(t, z3.Int(t)) for t in ("|a|", "|b|", "x"))
    texts = [s.text for s in shapes([a, b], [x])]
    assert texts[:4] == ["|a| == 0, |b| == 0", "|a| == 0, |b| == 1", "|a| == 1, |b| == 0", "|a| == 0, |b| == 2"]
    assert texts.index("|a| == 3, |b| == 3") < texts.index("|a| == 0, |b| == 4")
    assert texts.index("|a| == 6, |b| == 6") < texts.index("|a| == 0, |b| == 0, x == 0")
    assert len(texts) == len(set(texts)) == 7 * 7 + 4 * 4 * 7
    assert [s.text for s in shapes([], [x])] == [f"x == {k}" for k in (0, 1, -1, 2, -2, 3, -3)]


def _rows_differ():
    """not all rows of s have one length (the witness `[[], [0]]` is small; Z3's sequence theory gives up)"""
    rows = A.Quantifier("forall", (A.BoundVar("i"), A.BoundVar("j")),
                        op("&&", chain(0, "<=", n("i"), "<", card(n("s"))), chain(0, "<=", n("j"), "<", card(n("s")))),
                        op("==", card(idx(n("s"), n("i"))), card(idx(n("s"), n("j")))))
    return [op("==", n("r"), rows), A.UnOp("!", n("r"))]


def test_a_scenario_z3_gives_up_on_gets_a_small_witness():
    s = Solver(EMPTY, [("s", T("seq", T("seq", INT)), False), ("r", T("bool"), True)], timeout_s=1)
    m = s.solve(_rows_differ())
    assert m is not None and s.status_of_last is SolveResult.SAT
    rows = m.raw["s"]
    assert len({len(row) for row in rows}) > 1 and len(rows) <= 3


def test_the_fallback_answers_only_a_give_up_and_stays_within_its_budget(monkeypatch):
    # every ordinary query as if Z3 gave up: the fallback alone finds the model, and says which shape
    s = Solver(EMPTY, [("s", T("seq", INT), False), ("x", INT, False)])
    real = S.Solver._solve

    def give_up(self, *args):
        found = real(self, *args)
        if found is not None:
            self.status_of_last = SolveResult.UNKNOWN
        return None

    monkeypatch.setattr(S.Solver, "_solve", give_up)
    c = [op("==", card(n("s")), i(2)), op(">", idx(n("s"), 1), n("x"))]
    m = s.solve(c)
    assert m is not None and m.bounded == "|s| == 2" and len(m.raw["s"]) == 2 and m.raw["s"][1] > m.raw["x"]
    # an unsat scenario stays unsat: the fallback is not asked
    assert s.solve([op("<", card(n("s")), i(0))]) is None and s.status_of_last is SolveResult.UNSAT
    s.bounded_left = 0  # the member's share is spent: no shape is tried
    assert s.solve(c) is None and s.status_of_last is SolveResult.UNKNOWN


def test_fallback_queries_stopped_by_the_clock_leave_the_members_limit_alone(monkeypatch):
    real = Query.check

    def timed_out(self, *a):  # every query as if the clock had stopped it (a busy machine)
        r = real(self, *a)
        self.timed_out = True
        return r

    monkeypatch.setattr(Query, "check", timed_out)
    s = Solver(EMPTY, [("s", T("seq", INT), False)], timeout_s=30)
    assert s._bounded([op("==", card(n("s")), i(2))], ()) is not None
    assert s.timeouts == 0 and s.timeout_ms == 30_000

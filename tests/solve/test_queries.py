"""Uniqueness, optimisation, exclusion (--repeat), timeouts and unsupported constructs."""

import pytest

from dspec2test.dafny import ast as A
from dspec2test.errors import Unsupported
from dspec2test.solve import SolveResult, Solver, Unbounded
from tests.solve.build import T, at, card, chain, i, idx, n, op, program
from dspec2test.solve.context import Query
from dspec2test.solve.core import SHORT_TIMEOUT_MS, TIMEOUTS_BEFORE_SHORT
from dspec2test.solve.optimise import is_linear

EMPTY = program()
INT = T("int")


def test_unique_output():
    s = Solver(EMPTY, [("x", INT, False), ("r", INT, True)])
    c = [op("==", n("r"), op("+", n("x"), i(1)))]
    m = s.solve(c)
    assert m.raw["r"] == m.raw["x"] + 1 and s.outputs_unique(c, m)


def test_not_unique_output():
    s = Solver(EMPTY, [("x", INT, False), ("r", INT, True)])
    c = [op(">=", n("r"), n("x"))]
    m = s.solve(c)
    assert not s.outputs_unique(c, m)


def test_unique_sequence_output_not_an_artefact_of_the_length_limit():
    s = Solver(EMPTY, [("x", INT, False), ("r", T("seq", INT), True)], length_limit=3)
    c = [op(">=", card(n("r")), i(3))]
    m = s.solve(c)
    assert m is not None and not s.outputs_unique(c, m)


def test_optimize_symbolic_edge():
    s = Solver(EMPTY, [("s", T("seq", INT), False), ("x", INT, False)])
    c = [chain(0, "<=", n("x"), "<", card(n("s")))]
    assert s.optimize(op("-", n("x"), card(n("s"))), c, maximize=True) == -1
    assert s.optimize(n("x"), c, maximize=False) == 0
    assert s.optimize(n("x"), c, maximize=True) == Unbounded()


def test_optimize_literal_bounds():
    s = Solver(EMPTY, [("x", INT, False)])
    c = [chain(-5, "<", n("x"), "<=", i(37))]
    assert s.optimize(n("x"), c, maximize=True) == 37
    assert s.optimize(n("x"), c, maximize=False) == -4
    assert s.optimize(n("x"), [op(">", n("x"), i(0))], maximize=False) == 1
    assert s.optimize(n("x"), [op(">", n("x"), i(0))], maximize=True) == Unbounded()
    assert s.optimize(n("x"), [op(">", n("x"), n("x"))], maximize=True) is None


def test_linear_check_accepts_subtraction():
    # Z3 4.8.12's is-qflira probe alone rejects `i - j`; the optimiser's fast path must still take it
    import z3
    i_, j_ = z3.Ints("i j")
    assert is_linear([i_ - j_ >= 0, i_ <= 3 * j_])
    assert not is_linear([i_ * j_ >= 0])
    assert not is_linear([z3.Length(z3.Const("s", z3.SeqSort(z3.IntSort()))) > i_])


def test_optimum_of_the_linear_part_attained_by_the_first_model_needs_no_search(monkeypatch):
    # x < |s| with |s| <= 3 (the length limit does not apply to optimisation, so use a contract bound):
    # the linear part's optimum x - |s| == -1 is attained by any model with x == |s| - 1, so when the
    # first model has it, no gallop or bisection query runs
    s = Solver(EMPTY, [("s", T("seq", INT), False), ("x", INT, False)])
    c = [chain(0, "<=", n("x"), "<", card(n("s"))), op("<=", card(n("s")), i(3)),
         op("==", n("x"), op("-", card(n("s")), i(1)))]
    checks = []
    real = Query.check
    monkeypatch.setattr(Query, "check", lambda self, *a: checks.append(1) or real(self, *a))
    assert s.optimize(op("-", n("x"), card(n("s"))), c, maximize=True) == -1
    assert len(checks) == 2  # the first model and the linear optimum; no gallop, no bisection
    assert s.optimize(n("x"), c, maximize=True) == 2  # not attained at first: searched, same answer


def test_exclude_previous_inputs():
    s = Solver(EMPTY, [("s", T("set", INT), False), ("r", INT, True)])
    c = [op("==", card(n("s")), i(1)), op("==", n("r"), i(0))]
    seen = []
    for _ in range(3):
        m = s.solve(c, exclude=seen)
        assert m is not None
        seen.append(m)
    assert len({m.values["s"] for m in seen}) == 3


def test_exclusion_exhausts_a_finite_domain():
    s = Solver(EMPTY, [("b", T("bool"), False)])
    first = s.solve([])
    second = s.solve([], exclude=[first])
    assert {first.values["b"], second.values["b"]} == {"true", "false"}
    assert s.solve([], exclude=[first, second]) is None and s.status_of_last is SolveResult.UNSAT


def test_check_results():
    s = Solver(EMPTY, [("x", INT, False)])
    assert s.check([op(">", n("x"), i(3))]) is SolveResult.SAT
    assert s.check([op(">", n("x"), i(3)), op("<", n("x"), i(2))]) is SolveResult.UNSAT


def test_same_query_same_model_text():
    def run():
        s = Solver(EMPTY, [("s", T("seq", INT), False), ("x", INT, False)])
        return s.solve([op("==", card(n("s")), i(4)), op(">", idx(n("s"), 2), n("x"))]).values

    assert run() == run()


def test_timeout_gives_unknown():
    # x^3 + y^3 == z^3 with positive integers: hopeless for Z3 in a millisecond
    cube = lambda v: op("*", n(v), op("*", n(v), n(v)))  # noqa: E731
    s = Solver(EMPTY, [(v, INT, False) for v in "xyz"], timeout_s=0.001)
    c = [op("==", op("+", cube("x"), cube("y")), cube("z")), op(">", n("x"), i(0)), op(">", n("y"), i(0))]
    assert s.check(c) is SolveResult.UNKNOWN
    assert s.timeouts == 1  # counted apart from resource-budget give-ups, which are no timeouts
    assert s.solve(c) is None and s.status_of_last is SolveResult.UNKNOWN


@pytest.mark.parametrize("node, construct", [
    (A.Lambda((A.BoundVar("y"),), n("y")), "equality of functions"),  # a lambda compared: reported at the lambda
    (A.Unchanged((n("x"),)), "unchanged"),
    (A.MultisetDisplay((A.Lambda((A.BoundVar("y"),), n("y")),)), "lambda"),
])
def test_unsupported_names_construct_and_line(node, construct):
    s = Solver(EMPTY, [("x", INT, False)])
    with pytest.raises(Unsupported) as err:
        s.check([op("==", n("x"), at(7, node) if not isinstance(node, A.MultisetDisplay)
                    else A.MultisetDisplay((at(7, node.elems[0]),)))])
    assert err.value.construct == construct and err.value.line == 7


def test_old_is_unsupported_only_when_the_member_modifies_the_heap():
    mod = A.Method("method", "M", (), (), A.Spec(modifies=(A.Clause("modifies", (n("a"),)),)), None)
    pure = A.Method("method", "P", (), (), A.Spec(), None)
    c = [op("==", n("x"), at(3, A.Old(n("x"))))]
    assert Solver(program(pure), [("x", INT, False)], member=pure).check(c) is SolveResult.SAT
    with pytest.raises(Unsupported) as err:
        Solver(program(mod), [("x", INT, False)], member=mod).check(c)
    assert err.value.construct == "old" and err.value.line == 3


def test_unknown_type_is_unsupported():
    with pytest.raises(Unsupported):
        Solver(EMPTY, [("x", at(4, T("Mystery")), False)])


def test_optimisation_never_probes_beyond_the_linear_parts_bound(monkeypatch):
    # x < |s| <= 10 bounds x by 9 in the linear part; s[0] == x keeps the facts non-linear. A probe past
    # 9 is unsat without asking, and Z3's sequence solver, asked, may give up and be read as unbounded.
    import re
    s = Solver(EMPTY, [("s", T("seq", INT), False), ("x", INT, False)])
    c = [chain(0, "<=", n("x"), "<", card(n("s"))), op("<=", card(n("s")), i(10)),
         op("==", idx(n("s"), i(0)), n("x"))]
    added = []
    real = Query.add
    monkeypatch.setattr(Query, "add", lambda self, *fs: added.extend(f.sexpr() for f in fs) or real(self, *fs))
    assert s.optimize(n("x"), c, maximize=True) == 9
    assert max(int(k) for f in added for k in re.findall(r"\b\d+\b", f)) <= 10


def test_after_three_timeouts_a_members_later_queries_get_a_short_limit(monkeypatch):
    real = Query.check

    def timed_out(self, *a):  # every query as if the clock had stopped it
        r = real(self, *a)
        self.timed_out = True
        return r

    monkeypatch.setattr(Query, "check", timed_out)
    s = Solver(EMPTY, [("x", INT, False)], timeout_s=30)
    for _ in range(TIMEOUTS_BEFORE_SHORT - 1):
        s.check([op(">", n("x"), i(0))])
    assert s.timeout_ms == 30_000
    s.check([op(">", n("x"), i(0))])
    assert s.timeouts == TIMEOUTS_BEFORE_SHORT and s.timeout_ms == SHORT_TIMEOUT_MS

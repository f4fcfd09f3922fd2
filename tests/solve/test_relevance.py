"""Relevance: inputs on which each output literal discriminates (DESIGN.md section 3)."""

from dspec2test.solve import Solver
from dspec2test.solve.relevance import _range_guard
from tests.solve.build import T, card, chain, forall, i, idx, n, op, program

EMPTY = program()
INT = T("int")
SEQ = T("seq", INT)


def _first_index():
    """i is the first index of x in a: `0 <= i < |a|`, `a[i] == x`, `forall k :: 0 <= k < i ==> a[k] != x`."""
    guard = chain(0, "<=", n("i"), "<", card(n("a")))
    hit = op("==", idx(n("a"), n("i")), n("x"))
    first = forall("k", op("==>", chain(0, "<=", n("k"), "<", n("i")), op("!=", idx(n("a"), n("k")), n("x"))))
    return [guard, hit, first]


def test_first_index_input_has_an_earlier_candidate_and_a_miss():
    s = Solver(EMPTY, [("a", SEQ, False), ("x", INT, False), ("i", INT, True)])
    m = s.solve(_first_index())
    a, x = m.raw["a"], m.raw["x"]
    # the forall discriminates only when x occurs twice; `a[i] == x` only when some index misses x
    assert a.count(x) >= 2 and any(v != x for v in a)
    assert a.index(x) == m.raw["i"]


def test_relevance_leaves_out_a_pin_that_is_no_contract_literal():
    s = Solver(EMPTY, [("a", SEQ, False), ("x", INT, False), ("i", INT, True)])
    lits = _first_index()
    pin = op("==", n("i"), i(0))
    m = s.solve(lits + [pin], relevant=lits)
    a, x = m.raw["a"], m.raw["x"]
    # with the pin among the alternatives' literals, i' == 0 too and the forall could never break
    assert m.raw["i"] == 0 and a[0] == x and a.count(x) >= 2


def test_goal_no_input_meets_is_dropped_and_the_solve_still_succeeds():
    # r == x + 1 pins r, so `r > x` never discriminates: the core drops that goal
    s = Solver(EMPTY, [("x", INT, False), ("r", INT, True)])
    c = [op("==", n("r"), op("+", n("x"), i(1))), op(">", n("r"), op("*", n("x"), n("x")))]
    m = s.solve(c)
    assert m is not None and m.raw["r"] == m.raw["x"] + 1


def test_range_guards_are_order_comparisons_of_plain_terms():
    assert _range_guard(chain(0, "<=", n("i"), "<", card(n("a"))))
    assert not _range_guard(op("==", n("i"), i(0)))
    assert not _range_guard(op("<", idx(n("a"), n("i")), n("x")))


def test_numbers_prefer_values_away_from_zero_and_one():
    s = Solver(EMPTY, [("x", INT, False), ("r", INT, True)])
    m = s.solve([op("==", n("r"), op("+", n("x"), i(1)))])
    assert m.raw["x"] > 1 and m.raw["r"] > 1


def test_sequences_prefer_three_nonzero_elements_unless_the_constraints_say_otherwise():
    s = Solver(EMPTY, [("a", SEQ, False), ("r", INT, True)])
    m = s.solve([op("==", n("r"), card(n("a")))])
    assert len(m.raw["a"]) >= 3 and 0 not in m.raw["a"]
    pinned = s.solve([op("==", n("r"), card(n("a"))), op("==", card(n("a")), i(1))])
    assert pinned.raw["a"] != [0] and len(pinned.raw["a"]) == 1


def test_avoid_prefers_inputs_new_to_the_partition_but_never_forbids_them():
    s = Solver(EMPTY, [("x", INT, False), ("r", INT, True)])
    c = [chain(2, "<=", n("x"), "<=", i(3)), op("==", n("r"), n("x"))]
    first = s.solve(c)
    second = s.solve(c, avoid=[first])
    assert second.raw["x"] != first.raw["x"]
    only = s.solve(c + [op("==", n("x"), i(first.raw["x"]))], avoid=[first])
    assert only is not None and only.raw["x"] == first.raw["x"]


def test_numeric_sequences_prefer_a_rise_and_a_fall_so_a_running_maximum_changes():
    s = Solver(EMPTY, [("a", SEQ, False), ("r", INT, True)])
    a = s.solve([op("==", n("r"), card(n("a")))]).raw["a"]
    pairs = list(zip(a, a[1:]))
    assert any(x < y for x, y in pairs) and any(x > y for x, y in pairs)
    # sorted by contract: the preference gives way
    up = forall("k", op("==>", chain(0, "<", n("k"), "<", card(n("a"))), op("<", idx(n("a"), op("-", n("k"), i(1))),
                                                                          idx(n("a"), n("k")))))
    b = s.solve([op("==", n("r"), card(n("a"))), up]).raw["a"]
    assert list(b) == sorted(b) and len(b) >= 3


def test_sequence_signs_alternate_over_a_partitions_scenarios():
    # the first scenario's elements all positive, the next one's of both signs
    s = Solver(EMPTY, [("a", SEQ, False), ("r", INT, True)])
    c = [op(">=", card(n("a")), i(2)), op("==", n("r"), i(0))]
    first = s.solve(c)
    second = s.solve(c, avoid=[first])
    assert all(v > 0 for v in first.raw["a"]), first.raw
    assert any(v < 0 for v in second.raw["a"]) and any(v > 0 for v in second.raw["a"]), second.raw

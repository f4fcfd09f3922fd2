"""Bounded witness search: an unbounded `exists` over integers written as a search within a bound made from
the clause, with the obligation that makes the bounded form the same clause (emit/witness_search.py)."""

from dspec2test.dafny.parser import parse_program
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.compilable import GhostIndex
from dspec2test.emit.witness_search import bounded_search
from dspec2test.model.contracts import select

ABS_R = "(if r < 0 then -r else r)"


def search(text: str, kinds: dict[str, str]):
    program = parse_program(text, "p.dfy")
    c = select(program)[0]
    return bounded_search(c.ensures[0].expr, GhostIndex.of(program), kinds)


def test_a_ghost_predicate_with_an_unbounded_exists_is_inlined_and_bounded():
    found = search("""
ghost predicate IsSquare(n: int) { exists k :: k * k == n }
method M(x: int) returns (r: int) ensures IsSquare(r)
""", {"x": "int", "r": "int"})
    assert found is not None
    assert print_expr(found.expr) == f"exists k | -({ABS_R} + 1) <= k <= {ABS_R} + 1 :: k * k == r"
    (obligation,) = found.obligations
    assert print_expr(obligation) == f"forall k :: k * k == r ==> -({ABS_R} + 1) <= k <= {ABS_R} + 1"
    assert found.source == f"a search for |k| <= {ABS_R} + 1, a bound proved to hold every witness"


def test_the_bound_counts_every_variable_the_body_reads_its_sequences_and_its_largest_literal():
    found = search("""
method M(s: seq<int>, a: int) returns (r: int) ensures exists k :: k * 3 == r + a + |s| - 7
""", {"s": "seq", "a": "int", "r": "int"})
    assert found is not None
    bound = "(if a < 0 then -a else a) + " + ABS_R + " + |s| + 8"
    assert print_expr(found.expr).startswith(f"exists k | -({bound}) <= k <= {bound} ::")


def test_an_existing_range_is_kept_beside_the_bound():
    found = search("method M(r: int) returns (b: bool) ensures b == exists k | k > 0 :: k * k == r",
                   {"r": "int", "b": "bool"})
    assert found is not None
    assert "exists k | -(" in print_expr(found.expr) and "&& k > 0 :: k * k == r" in print_expr(found.expr)
    assert print_expr(found.obligations[0]).startswith("forall k :: k > 0 && k * k == r ==>")


def test_no_search_where_the_body_reads_a_variable_bound_outside_or_the_witness_is_no_integer():
    # i is bound by the outer forall: a bound made of it would not be the test's to compute
    assert search("method M(a: seq<int>) ensures forall i | 0 <= i < |a| :: exists k :: k * k == a[i]",
                  {"a": "seq"}) is None
    assert search("method M(r: int) ensures exists s: seq<int> :: |s| == r", {"r": "int"}) is None
    # nothing to bound
    assert search("method M(r: int) ensures r > 0", {"r": "int"}) is None


def test_an_undeclared_witness_is_searched_only_where_the_clause_shows_it_is_an_integer():
    # c compared with a char: a bound of integers would not typecheck, and the tests file would not build
    assert search("method M(r: char) returns (b: bool) ensures b == exists c :: c == r", {"r": "char", "b": "bool"}) \
        is None
    assert search("method M(r: real) returns (b: bool) ensures b == exists x :: x * x == r",
                  {"r": "real", "b": "bool"}) is None
    assert search("method M(r: int) returns (b: bool) ensures b == exists x :: x * x == r",
                  {"r": "int", "b": "bool"}) is not None


def test_a_forall_whose_guard_bounds_its_variable_is_a_search_for_a_counterexample():
    found = search("""
method M(n: int) returns (result: bool)
  ensures result == false ==> (forall a: int :: 0 < a * a < n ==> a * a != n)
""", {"n": "int", "result": "bool"})
    assert found is not None
    bound = "(if n < 0 then -n else n) + 1"
    assert print_expr(found.expr) == f"result == false ==> (forall a: int | -({bound}) <= a <= {bound} :: " \
                                     f"0 < a * a < n ==> a * a != n)"
    assert print_expr(found.obligations[0]) == f"forall a: int :: 0 < a * a < n ==> -({bound}) <= a <= {bound}"
    assert found.source.endswith("a bound proved to hold every value its guard admits")
    # without a guard nothing bounds the values that matter
    assert search("method M(n: int) ensures forall a: int :: a * a != n + 1", {"n": "int"}) is None

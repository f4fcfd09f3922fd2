"""Quantifiers over tuples split into one bound variable per component, for the solver and for checks."""

import z3

from dspec2test.dafny.parser import parse_program
from dspec2test.dafny.printer import print_expr
from dspec2test.model.contracts import select
from dspec2test.model.tuples import Tuples, explicit_bounds
from dspec2test.solve import Solver

PROG = """
type interval = iv: (int, int) | iv.0 <= iv.1 witness (0, 0)
function length(iv: interval): int { iv.1 - iv.0 }
predicate valid(s: string, iv: interval) {
  && (0 <= iv.0 <= iv.1 <= |s|)
  && (forall i, j | iv.0 <= i < j < iv.1 :: s[i] != s[j])
}
method Longest(s: string) returns (n: int)
  ensures forall iv | valid(s, iv) :: length(iv) <= n
  ensures forall k | 0 <= k < |s| :: k <= n
{ }
"""


def _clauses():
    prog = parse_program(PROG, "p.dfy")
    [c] = select(prog)
    return prog, c, [cl.expr for cl in c.clauses]


def test_a_quantifier_over_a_tuple_becomes_one_over_its_bounded_components():
    prog, _, [longest, plain] = _clauses()
    tuples = Tuples.of(prog)
    split = tuples.split(longest)
    assert [v.name for v in split.vars] == ["iv_0", "iv_1"]
    assert print_expr(split.body) == "iv_1 - iv_0 <= n"
    rng = print_expr(split.range)
    # each component bounded on its own (from the inlined chain), the subset type's constraint kept
    assert rng.startswith("0 <= iv_0 <= |s| && 0 <= iv_1 <= |s| && (iv_0 <= iv_1 && ")
    assert "valid" not in rng and "forall i, j" in rng
    assert tuples.split(plain) is plain  # nothing over tuples: left as it was


def test_explicit_bounds_follow_a_chain_to_its_nearest_outer_ends_with_strictness():
    prog = parse_program("method M(a: seq<int>) ensures exists x, y :: 0 < x <= y < |a| && y - x == 1 { }", "p.dfy")
    [c] = select(prog)
    got = print_expr(explicit_bounds(c.clauses[0].expr))
    assert got == "exists x, y :: 0 < x < |a| && 0 < y < |a| && (0 < x <= y < |a| && y - x == 1)"


def test_the_solver_expands_the_split_quantifier_instead_of_leaving_z3_one():
    prog, c, [longest, _] = _clauses()
    s = Solver(prog, [(v.name, v.type, v.is_output) for v in c.vars], length_limit=3, member=c.member)
    [f] = s._encode([longest])
    assert not any(z3.is_quantifier(t) for t in _subterms(f))
    model = s.solve([longest])
    text = model.raw["s"]
    longest_run = max((j - i for i in range(len(text) + 1) for j in range(i, len(text) + 1)
                       if len(set(text[i:j])) == j - i), default=0)
    assert int(model.values["n"]) >= longest_run
    # and the expansion is exact: on "aab", n == 1 breaks the clause ("ab" has length 2), n == 2 meets it
    [pinned] = select(parse_program('method X(s: string, n: int) requires s == "aab" && n == 1 { }', "q.dfy"))
    assert s.check([longest, pinned.clauses[0].expr]).value == "unsat"
    [pinned] = select(parse_program('method X(s: string, n: int) requires s == "aab" && n == 2 { }', "q.dfy"))
    assert s.check([longest, pinned.clauses[0].expr]).value == "sat"


def _subterms(f):
    seen, todo = set(), [f]
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        yield t
        if not z3.is_quantifier(t):
            todo.extend(t.children())

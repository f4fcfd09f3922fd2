"""A recursive function over a sequence given a lambda (`ConcatBytes(obj.data, d => Member(d))` of
libraries' JSON serializer) is unfolded while a bound on its sequence's length shrinks, to where the
sequence is empty; it was unsupported after 4 unfoldings, whatever the sequence."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from dspec2test.generate import GenerateOptions, generate
from dspec2test.solve.seqbound import length_bound
from tests.solve.runs import run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def _by_member(path: Path):
    got = generate(str(path), GenerateOptions(search=False))  # the solver alone: its first model
    cases: dict = {}
    for tc in got.cases:
        cases.setdefault(tc.method, []).append(tc)
    return got, cases


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.strip("[]").split(",") if x.strip()]


def test_a_lambda_given_to_a_recursive_function_over_a_bounded_sequence_is_solved():
    got, cases = _by_member(FIXTURES / "lambda_recursion.dfy")
    assert not [d for d in got.diagnostics if "internal error" in d.message]
    squares = cases["SquaresTo14"][0]  # the requires is solved through the unfolding: no guess meets it
    assert sum(x * x for x in _ints(squares.inputs["s"])) == 14
    doubled = cases["Doubled"][0]
    s = _ints(doubled.inputs["s"])
    assert len(s) >= 2 and _ints(doubled.outputs["r"]) == [x for x in s for _ in (0, 1)]
    literal = cases["Literal"][0]  # a literal sequence of 6, beyond the 4 unfoldings of before
    assert int(literal.outputs["r"]) == 21 * int(literal.inputs["k"])


def test_a_sequence_without_a_known_length_bound_stays_unsupported_with_the_reason():
    got, _ = _by_member(FIXTURES / "lambda_recursion.dfy")
    found = [d for d in got.diagnostics if "lambda passed to the recursive function SumOf" in d.message]
    assert found and found[0].line == 46, got.diagnostics  # RowTotal: a datatype field has no length limit
    assert "its sequence's length has no known bound" in found[0].message
    got = generate(str(FIXTURES / "lambdas.dfy"), GenerateOptions())  # recursion over a number
    assert any("Sum (it takes no sequence to bound its recursion)" in d.message for d in got.diagnostics)


def test_length_bounds_read_off_literals_slices_and_lists():
    s = z3.Concat(z3.Unit(z3.IntVal(1)), z3.Unit(z3.IntVal(2)), z3.Unit(z3.IntVal(3)))
    assert length_bound(s) == 3
    rest = z3.Extract(s, 1, z3.Length(s) - 1)
    assert length_bound(rest) == 2 and length_bound(z3.Extract(rest, 1, z3.Length(rest) - 1)) == 1
    empty = z3.Empty(z3.SeqSort(z3.IntSort()))
    listed = z3.If(z3.Bool("nil"), empty, z3.Concat(z3.Unit(z3.Int("h")), z3.If(z3.Bool("nil2"), empty, s)))
    assert length_bound(listed) == 4
    free = z3.Const("s", z3.SeqSort(z3.IntSort()))
    assert length_bound(free) is None and length_bound(z3.Extract(free, 1, z3.Length(free) - 1)) is None
    assert length_bound(z3.Extract(free, 2, z3.Length(free) - 2), {free.get_id(): 10}) == 8


@pytest.mark.dafny
def test_a_bug_against_a_contract_of_a_recursive_function_given_a_lambda_is_found(tmp_path):
    statuses = {t["name"]: t["status"] for t in run_tests(FIXTURES / "lambda_recursion_bug.dfy", tmp_path)}
    # SquaresTo14's requires needs the unfolding solved (it was not tested); Doubled's ensures holds it
    assert statuses.get("Test_SquaresTo14_p1_s1") == "failed" and statuses.get("Test_Doubled_p1_s1") == "failed"


@pytest.mark.dafny
def test_tests_of_verified_code_with_such_contracts_pass(tmp_path):
    tests = run_tests(FIXTURES / "lambda_recursion.dfy", tmp_path)
    assert {t["status"] for t in tests} == {"passed"} and len(tests) >= 5

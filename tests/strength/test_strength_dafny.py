"""Contract strength with the real Dafny on the planted fixtures: a weak contract is reported with a
concrete differing input; a complete one gets no finding; one whose verified mutants are all
equivalent gets none (they are counted)."""

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions
from dspec2test.strength.engine import StrengthOptions
from dspec2test.strength.program import strength_of_file
from dspec2test.strength.records import Measured

pytestmark = pytest.mark.dafny

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def weak():
    got = strength_of_file(str(FIXTURES / "weak.dfy"), StrengthOptions(), generation=GenerateOptions(bva=100))
    return {r.member: r for r in got.members}


def test_a_weak_contract_is_reported_with_a_differing_input(weak) -> None:
    m = weak["Max"]
    assert m.status is Measured.MEASURED and m.weak
    for f in m.findings:
        assert f.inputs and f.original != f.mutated  # a concrete input on which the two differ
        assert f.line in (8, 10) and f.before in ("r := a;", "r := b;") and f.after.startswith(f.before[:-1])
        assert f.clause and "only bound r" in f.clause
    assert m.killed >= 1 and m.survived == len(m.findings) + m.equivalent


def test_a_complete_contract_gets_no_finding(weak) -> None:
    m = weak["Twice"]
    assert m.status is Measured.MEASURED and m.chosen >= 3 and not m.findings and m.survived == 0


def test_equivalent_mutants_are_counted_never_reported(weak) -> None:
    m = weak["MaxOf"]
    assert m.status is Measured.MEASURED and not m.findings
    assert m.survived >= 1 and m.equivalent == m.survived  # `a >= b` for `a > b` verifies and computes the same


def test_recursive_functions_and_arrays_changed_in_place() -> None:
    got = strength_of_file(str(FIXTURES / "shapes.dfy"), StrengthOptions(), ("Fact", "Fill", "Squares", "Helper"),
                           generation=GenerateOptions(bva=100))
    by = {r.member: r for r in got.members}
    fact = by["Fact"]
    assert fact.weak  # `Fact(n) >= 1` lets n + Fact(n - 1) through: the copy recurses into itself
    assert all(set(f.original) == {"result"} and f.original != f.mutated for f in fact.findings)
    assert any(f.after.endswith("n + Fact(n - 1)") for f in fact.findings)
    fill = by["Fill"]
    assert fill.weak  # a[i] := v + 1 also meets `a[i] >= v`; the array after the call tells them apart
    f = next(f for f in fill.findings if f.after == "a[i] := v + 1;")
    assert f.original["a"] != f.mutated["a"]
    squares = by["Squares"]  # a returned array is compared by its contents, not its identity
    assert squares.weak and all(f.original["a"].startswith("[") and f.original != f.mutated for f in squares.findings)
    assert by["Helper"].status is Measured.SKIPPED  # a lemma: no compiled code

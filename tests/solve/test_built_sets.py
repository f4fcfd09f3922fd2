"""Sets built in a contract and stored (a datatype's field, a recursive function's argument): a set of
literal elements is stored as an input's set is, its elements in increasing order, and read back as far as
its term says, beyond the length limit (evm-dafny's fork: its opcodes, a literal set of 140, extended by
a recursive function over a literal list of EIPs); one of elements the solver chooses stays unsupported,
saying so. They were all `set expression stored in a collection, datatype or function`."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from dspec2test.dafny.parser import parse_program
from dspec2test.generate import GenerateOptions, generate
from dspec2test.model.resolve import INT, Resolver, RType
from dspec2test.solve.literal import term_of
from dspec2test.solve.types import Types
from tests.solve.runs import run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def test_a_literal_set_stored_in_a_datatype_is_read_back_beyond_the_length_limit():
    got = generate(str(FIXTURES / "built_sets.dfy"), GenerateOptions())
    cases = {tc.method: tc for tc in got.cases}
    # 100 and 101 are the 14th and 15th of the set: a read of its first 10 finds no x >= 100
    assert int(cases["Allowed"].inputs["x"]) in (100, 101)
    assert int(cases["InMore"].inputs["x"]) in (100, 101)  # through AddAll, unfolded along its literal
    assert not [d for d in got.diagnostics if "internal error" in d.message]


def test_a_set_of_chosen_elements_stored_in_a_datatype_says_why_it_is_unsupported():
    got = generate(str(FIXTURES / "built_sets.dfy"), GenerateOptions())
    found = [d for d in got.diagnostics if "set of elements not known before solving" in d.message]
    # Visit, Drop and Mark (`l.seen + {x}`, `s - {xs[0]}` to Without): at their members, Z3 would not decide them
    assert found and {d.line for d in found} == {7, 27, 50}, got.diagnostics


def test_a_models_set_is_pinned_and_admitted_as_its_canonical_rep():
    """A datatype field's set in a model may repeat an element; the literal a test holds does not, and
    admission reads the literal's value (a `Log({7720}, 38)` admitted for `|l.seen| >= 2` was a bad input)."""
    types = Types(Resolver(parse_program("", "<t>")), cap=4)
    term = term_of((7720, 3, 7720), RType("set", (INT,)), types)
    assert z3.simplify(z3.Length(term)).as_long() == 2
    assert z3.simplify(term[0]).as_long() == 3


@pytest.mark.dafny
def test_a_bug_against_a_contract_storing_a_literal_set_is_found(tmp_path):
    statuses = {t["name"]: t["status"] for t in run_tests(FIXTURES / "built_sets_bug.dfy", tmp_path)}
    # the solver's input fails; any other test that does not pass is of the same member (a search's input)
    assert statuses["Test_Allowed_p1_s1"] == "failed"
    assert {n for n, s in statuses.items() if s != "passed"} <= {n for n in statuses if n.startswith("Test_Allowed_")}


@pytest.mark.dafny
def test_tests_of_verified_code_storing_sets_pass(tmp_path):
    tests = run_tests(FIXTURES / "built_sets.dfy", tmp_path)
    assert {t["status"] for t in tests} == {"passed"} and len(tests) >= 6


def test_a_literal_set_of_values_with_no_order_stored_in_a_datatype_gets_tests():
    # a set of strings, a set of sets, a set of datatype values and a map of string keys, each in a datatype:
    # each literal has one representation (its elements in the order of their printed terms); they were
    # `unsupported: ... its elements have no order to make one representation of it`
    got = generate(str(FIXTURES / "built_unordered_sets.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if "unsupported" in d.render()], got.diagnostics
    inputs = {(tc.method, tuple(sorted(tc.inputs.items()))) for tc in got.cases}
    assert ("Has", (("d", 'Doc({"a", "b"}, 3)'),)) in inputs
    assert ("Count", (("x", "Groups({{1}, {2, 3}})"),)) in inputs
    assert ("Pick", (("p", 'Palette({Green(2), Red}, map["a" := 2, "z" := 1])'),)) in inputs


@pytest.mark.dafny
def test_a_bug_against_a_contract_storing_a_set_of_datatype_values_is_found(tmp_path):
    good = run_tests(FIXTURES / "built_unordered_sets.dfy", tmp_path)
    assert {t["status"] for t in good} == {"passed"} and {t["method"] for t in good} == {"Has", "Count", "Pick"}
    bad = run_tests(FIXTURES / "built_unordered_sets_bug.dfy", tmp_path)
    assert {t["status"] for t in bad if t["method"] == "Pick"} == {"failed"}

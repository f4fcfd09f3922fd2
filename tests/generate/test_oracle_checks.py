"""Oracles from what the verifier knows, at generation (no Dafny run): values of functions without a body
from the lemmas that define them, unique outputs expected by default, and bounded witness searches.
Their runs against correct and buggy implementations are in tests/run/test_oracle_runs.py."""

import io
import json
from pathlib import Path

from dspec2test import cli
from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import CheckKind

ORACLES = Path(__file__).parents[1] / "fixtures" / "oracles"


def member(got, name):
    return next(m for m in got.members if m.name == name)


def test_a_clause_over_a_bodiless_function_is_checked_by_the_value_its_axioms_give():
    got = generate(str(ORACLES / "tri.dfy"), GenerateOptions(bva=100))
    tri = member(got, "Triangle")
    assert tri.cases and tri.unchecked == ()  # `r == Tri(n)` no longer unchecked: every test checks its value
    for tc in tri.cases:
        (value,) = [c for c in tc.checks if c.kind is CheckKind.VALUE]
        assert value.line == 11 and value.source.startswith("from the axioms TriZero (line 4)")
    values = {tc.inputs["n"]: tc.outputs["r"] for tc in tri.cases}
    assert values["0"] == "0" and values["100"] == "5050"
    assert "// checked by the expected values: ensures (line 11) r == Tri(n) (Tri has no body)" in got.tests_text
    assert '(from the axioms TriZero (line 4), TriSucc (line 7))"; }' in got.tests_text  # the failure's message
    # the mechanism off (no value checks): the clause is unchecked, as before
    off = member(generate(str(ORACLES / "tri.dfy"), GenerateOptions(bva=100, simplify=False)), "Triangle")
    assert [(u.line, u.reason) for u in off.unchecked] == [(11, "Tri has no body")]
    assert not any(c.kind is CheckKind.VALUE for tc in off.cases for c in tc.checks)


def test_unique_outputs_are_expected_by_default_and_not_with_no_simplify(tmp_path):
    # without the test build, which compiles Pow2 so the ensures is checked by calling it, the expected value
    # is the only check of `r == Pow2(n)`
    power = member(generate(str(ORACLES / "pow2.dfy"), GenerateOptions(test_build=False)), "Power")
    assert power.unchecked == ()
    assert all(any(c.kind is CheckKind.VALUE for c in tc.checks) for tc in power.cases)
    off = member(generate(str(ORACLES / "pow2.dfy"), GenerateOptions(simplify=False, test_build=False)), "Power")
    assert [u.reason for u in off.unchecked] == ["Pow2 is ghost"]
    assert not any(c.kind is CheckKind.VALUE for tc in off.cases for c in tc.checks)
    # the flag: no output is expected as unique
    path = tmp_path / "m.json"
    rc = cli.main(["generate", str(ORACLES / "pow2.dfy"), "--no-simplify", "--json", str(path)], io.StringIO(),
                  io.StringIO())
    assert rc == 0
    [m] = json.loads(path.read_text())["methods"]
    scenarios = [s for p in m["partitions"] for s in p["scenarios"]]
    assert scenarios and not any(s["unique"] for s in scenarios)


def test_an_unbounded_exists_is_searched_within_a_bound_proved_complete_or_stays_unchecked():
    got = generate(str(ORACLES / "square.dfy"))
    square, after = member(got, "Square"), member(got, "Next")
    assert square.unchecked == ()
    searched = [c for tc in square.cases for c in tc.checks if c.line == 9]
    assert len(searched) == len(square.cases) >= 1
    assert all(c.kind is CheckKind.ENSURES and c.source.startswith("a search for |k| <= ") for c in searched)
    assert "exists k | -((if r < 0 then -r else r) + 1) <= k <= (if r < 0 then -r else r) + 1 :: k * k == r" \
        in got.tests_text
    # every k above r is a witness: no bound is proved, and the clause says so
    [(line, reason)] = [(u.line, u.reason) for u in after.unchecked]
    assert line == 23 and reason.endswith("no bound on k was proved complete for a search")


def test_value_checks_leave_the_inputs_as_they_are_without_them():
    # the uniqueness question leaves terms and fresh names in the solver: asked between scenarios, it changed
    # the models of the boundary and diverse scenarios solved after it
    on = generate(str(ORACLES / "first_index.dfy"), GenerateOptions(bva=100))
    off = generate(str(ORACLES / "first_index.dfy"), GenerateOptions(bva=100, simplify=False))
    assert [(tc.name, tc.inputs) for tc in on.cases] == [(tc.name, tc.inputs) for tc in off.cases]
    assert any(tc.unique for tc in on.cases) and not any(tc.unique for tc in off.cases)

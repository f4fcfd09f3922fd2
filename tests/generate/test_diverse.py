"""Diverse scenarios end to end: pins in the manifest and the tests, inputs that meet them, and bugs only
they reveal (with the real solver, and once with real Dafny)."""

import re
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import ScenarioKind, Status
from dspec2test.run import RunOptions, run_tests
from dspec2test.toolchain import find_toolchain

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAM = str(FIXTURES / "diverse_bugs.dfy")


def ints(literal: str) -> list[int]:
    return [int(x) for x in re.findall(r"-?\d+", literal)]


@pytest.fixture(scope="module")
def generated():
    # the solver's diverse scenarios are the subject: without the search's inputs, which reach these bugs too
    return generate(PROGRAM, GenerateOptions(bva=100, jobs=2, search=False))


def scenarios(g, member: str) -> list[dict]:
    entry = next(m for m in g.manifest["methods"] if m["name"] == member)
    return [s for p in entry["partitions"] for s in p["scenarios"]]


def test_diverse_scenarios_come_after_the_boundaries_with_inputs_that_meet_their_pins(generated):
    maxima = scenarios(generated, "Max")
    kinds = [s["kind"] for s in maxima]
    assert "diverse" in kinds and kinds == sorted(kinds, key=["base", "bva", "diverse"].index)
    negative = next(s for s in maxima if s["kind"] == "diverse" and "< 0)" in s["pin"])
    assert negative["pin"] == "|a| > 1 && (forall i :: 0 <= i < |a| ==> a[i] < 0)"
    assert len(ints(negative["inputs"]["a"])) > 1 and all(v < 0 for v in ints(negative["inputs"]["a"]))
    twice = next(s for s in scenarios(generated, "CountOf") if s["pin"] == "|set i | 0 <= i < |s| && s[i] == x| > 1")
    x = int(twice["inputs"]["x"])
    assert ints(twice["inputs"]["s"]).count(x) > 1 and twice["outputs"]["c"] == str(ints(twice["inputs"]["s"]).count(x))
    # the test says which diverse pin it comes from
    case = next(tc for tc in generated.cases if tc.name == twice["test"])
    assert case.kind is ScenarioKind.DIVERSE and case.pin == twice["pin"]
    assert f"// scenario {case.scenario} (diverse): {case.pin}" in generated.tests_text


def test_scalar_inputs_of_one_type_get_each_strict_ordering_above_zero(generated):
    orders = []
    for s in scenarios(generated, "Min3"):
        x, y, z = (int(s["inputs"][v]) for v in "xyz")
        if s["kind"] == "diverse" and s["pin"].count("<") == 3:
            assert s["pin"].startswith("0 < ") and 0 < min(x, y, z) and len({x, y, z}) == 3
            orders.append(tuple(sorted("xyz", key=lambda v: int(s["inputs"][v]))))
    assert len(orders) == 6 and len(set(orders)) == 6


def test_a_records_fields_are_pinned_like_inputs(generated):
    signs = [s for s in scenarios(generated, "Width") if s["kind"] == "diverse" and s["pin"] in ("r.lo < 0", "r.hi < 0")]
    assert signs
    for s in signs:
        lo, hi = ints(s["inputs"]["r"])
        assert (lo if s["pin"] == "r.lo < 0" else hi) < 0


def test_no_diverse_scenario_without_bva_or_when_turned_off():
    for options in (GenerateOptions(jobs=2), GenerateOptions(bva=100, diverse=False, jobs=2)):
        g = generate(PROGRAM, options)
        assert all(tc.kind is not ScenarioKind.DIVERSE for tc in g.cases)


@pytest.mark.dafny
def test_bugs_only_a_diverse_input_reaches_are_caught_and_the_correct_members_pass(generated):
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    result = run_tests(PROGRAM, generated.tests_text, list(generated.cases), RunOptions(target="py"))
    kinds = {tc.name: tc.kind for tc in generated.cases}
    by_member: dict[str, list] = {}
    for v in result.verdicts:
        by_member.setdefault(v.method, []).append(v)
    assert all(v.status is Status.PASSED for m in ("Max", "CountOf", "Min3", "Width") for v in by_member[m])
    for buggy in ("MaxFromZero", "CountOfOnce", "Min3Swapped", "WidthAboveZero"):
        failed = [v for v in by_member[buggy] if v.status is not Status.PASSED]
        assert failed and all(v.status is Status.FAILED for v in failed)
        # only diverse inputs reach these bugs: every other scenario passes
        assert {kinds[v.test] for v in failed} == {ScenarioKind.DIVERSE}

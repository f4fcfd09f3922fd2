"""Function inputs of a standard shape that the solver does not find by itself (solve/standard.py): a
comparator whose requires say it is a strict total order over every integer."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "functions" / "comparator.dfy"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    prog = tmp_path_factory.mktemp("comparator") / FIXTURE.name
    prog.write_text(FIXTURE.read_text())
    return prog, generate(str(prog), GenerateOptions(bva=100))


def test_a_comparator_required_to_be_an_order_is_a_standard_relation(generated):
    _, got = generated
    assert {tc.method for tc in got.cases} == {"Search.LowerBound", "Search.Max"}
    assert {tc.inputs["less"] for tc in got.cases} == {"(x, y) => x < y"}


@pytest.mark.dafny
@pytest.mark.parametrize("planted, failing", [(None, set()), ("then x else y", {"Search.Max"})])
def test_tests_with_a_standard_comparator_pass_and_catch_a_planted_bug(generated, tmp_path, planted, failing):
    prog, got = generated
    text = prog.read_text()
    target = tmp_path / FIXTURE.name
    target.write_text(text.replace("then y else x", planted) if planted else text)
    verdicts = run_tests(target, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.status for v in verdicts} <= {Status.PASSED, Status.FAILED}
    assert {v.method for v in verdicts if v.status is Status.FAILED} == failing

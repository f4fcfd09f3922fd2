"""Inputs whose type constraints are too many to make (types.WF_STEPS values): the member is not held up
making them (eth2.0-dafny's BeaconState took every member to the 120 s stop); its inputs are solved
without their datatype fields' own constraints, which each test's literals are checked against."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests
from dspec2test.solve.types import WF_STEPS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "large"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    prog = tmp_path_factory.mktemp("large") / "chain.dfy"
    prog.write_text((FIXTURES / "chain.dfy").read_text())
    return generate(str(prog), GenerateOptions())


def test_constraints_past_the_limit_are_not_made_and_the_fields_are_deferred(generated):
    said = " ".join(d.message for d in generated.diagnostics)
    assert f"their types constrain more than {WF_STEPS} values" in said
    assert "solved without their datatype fields' own constraints" in said
    assert [tc.method for tc in generated.cases] and {tc.method for tc in generated.cases} == {"Grow"}


@pytest.mark.dafny
@pytest.mark.parametrize("name, failing", [("chain.dfy", set()), ("chain_bug.dfy", {"Grow"})])
def test_tests_of_a_large_state_pass_and_catch_a_planted_bug(generated, tmp_path, name, failing):
    target = tmp_path / "chain.dfy"
    target.write_text((FIXTURES / name).read_text())
    verdicts = run_tests(target, generated.tests_text, generated.cases, RunOptions(target="py")).verdicts
    assert verdicts and {v.status for v in verdicts} <= {Status.PASSED, Status.FAILED}
    assert {v.method for v in verdicts if v.status is Status.FAILED} == failing

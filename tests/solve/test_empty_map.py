"""`m == map[]` where m's values are datatypes: the empty display's values were compared with m's (an
internal error that left bank-cli-dafny's Deposit, Withdraw and Transfer untested)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "maps" / "empty_of_datatypes.dfy"


@pytest.fixture(scope="module")
def generated():
    return generate(str(FIXTURE), GenerateOptions(search=False))


def test_comparing_with_the_empty_map_is_encoded(generated):
    assert not [d for d in generated.diagnostics if d.severity.value == "unsupported"]
    inputs = {tc.inputs["m"] for tc in generated.cases}
    assert "map[]" in inputs and len(inputs) == 2  # both branches of Count


@pytest.mark.dafny
def test_its_tests_pass(generated, tmp_path):
    target = tmp_path / "m.dfy"
    target.write_text(FIXTURE.read_text())
    verdicts = run_tests(target, generated.tests_text, generated.cases, RunOptions(target="py")).verdicts
    assert verdicts and {v.status for v in verdicts} == {Status.PASSED}

"""A member declared `decreases *` may not terminate: Dafny does not prove it does, so a test whose call
does not return is not-tested, never a timeout that fails the build (dafny-aoc-2025's QuickUnion.findRoot,
given a cycle its Valid() allows, was three false alarms on merged code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "diverging" / "union_find.dfy"


@pytest.fixture(scope="module")
def generated():
    return generate(str(FIXTURE), GenerateOptions(bva=100))


def test_a_test_of_a_decreases_star_member_knows_the_line(generated):
    assert generated.cases and {tc.diverges for tc in generated.cases} == {15}


@pytest.mark.dafny
def test_a_call_that_does_not_return_is_not_a_finding(generated, tmp_path):
    target = tmp_path / "union_find.dfy"
    target.write_text(FIXTURE.read_text())
    verdicts = run_tests(target, generated.tests_text, generated.cases, RunOptions(target="py", timeout_s=5)).verdicts
    cyclic = [v for v in verdicts if v.inputs.get("this.parent") == "[3, 2, 0, 1]"]
    assert cyclic, "the solver no longer picks a cycle: pick a fixture whose inputs hang"
    assert all(v.status is Status.NOT_TESTED and "declared decreases * (line 15)" in v.message for v in cyclic)
    assert Status.TIMEOUT not in {v.status for v in verdicts}
    assert Status.PASSED in {v.status for v in verdicts}

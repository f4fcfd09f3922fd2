"""`a < b` of datatype values (Dafny's rank: a is a part of b) in a requires: solved as a part of b that
the test's literals show, and never compiled into a check (Dafny allows it only in specifications)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "rank"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    prog = tmp_path_factory.mktemp("rank") / "tree.dfy"
    prog.write_text((FIXTURES / "tree.dfy").read_text())
    return prog, generate(str(prog), GenerateOptions(bva=100))


def test_the_smaller_input_is_written_as_a_part_of_the_larger(generated):
    _, got = generated
    assert {tc.method for tc in got.cases} == {"ValueAt", "LabelOf"}
    for tc in got.cases:
        part, whole = (tc.inputs["t"], tc.inputs["root"]) if tc.method == "ValueAt" else (tc.inputs["r"], tc.inputs["root"])
        assert part in whole and part != whole


def test_a_rank_comparison_is_not_compiled_into_a_check(generated):
    _, got = generated
    code = [line for line in got.tests_text.splitlines() if not line.lstrip().startswith("//")]
    assert not any("< root" in line for line in code)
    assert "unchecked: requires (line 17) r < root: a rank comparison" in got.tests_text


@pytest.mark.dafny
@pytest.mark.parametrize("name, failing", [("tree.dfy", set()), ("tree_bug.dfy", {"ValueAt", "LabelOf"})])
def test_tests_of_parts_pass_and_catch_planted_bugs(generated, tmp_path, name, failing):
    _, got = generated
    target = tmp_path / "tree.dfy"
    target.write_text((FIXTURES / name).read_text())
    verdicts = run_tests(target, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert verdicts and {v.status for v in verdicts} <= {Status.PASSED, Status.FAILED}
    assert {v.method for v in verdicts if v.status is Status.FAILED} == failing

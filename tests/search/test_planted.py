"""Bugs the solver's first model does not reach, caught with the default options: the search's inputs
(every small input first, biased random ones, several shapes per partition). The correct programs' tests all
pass; each planted bug fails a test. Tests are generated once, from the contract, and run against both."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests
from dspec2test.toolchain import find_toolchain

pytestmark = pytest.mark.dafny

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "search"

# fixture, the text of the bug: (correct, buggy)
PLANTED = [
    ("count_of.dfy", ("if s[i] == x {", "if s[i] == x && i > 0 {")),  # a match at index 0 is not counted
    ("all_same_length.dfy", ("if |ss[i]| != |ss[0]|", "if |ss[i]| > |ss[0]|")),  # a later shorter row
    ("replace_separators.dfy", ("s[i] == ' ' || s[i] == ',' || s[i] == '.'", "s[i] == ' ' || s[i] == '.'")),
    ("shapes.dfy", ("case Rect(w, h) => p := p + 2 * (w + h);", "case Rect(w, h) => p := p + 2 * w + h;")),
    ("prefix_sum.dfy", ("if s > m { m := s; }", "if s >= 0 { m := s; }")),  # a positive, then a smaller negative
]


@pytest.mark.parametrize("fixture,bug", PLANTED, ids=[p[0] for p in PLANTED])
def test_a_bug_only_a_searched_input_reaches_is_caught_and_the_correct_program_passes(tmp_path, fixture, bug):
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    correct = tmp_path / fixture
    correct.write_text((FIXTURES / fixture).read_text())
    got = generate(str(correct), GenerateOptions(jobs=2))
    assert got.cases, got.diagnostics
    verdicts = run_tests(correct, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.status for v in verdicts} == {Status.PASSED}, [v.message for v in verdicts if v.status is not Status.PASSED]
    buggy = tmp_path / "buggy" / fixture
    buggy.parent.mkdir()
    text = correct.read_text()
    assert bug[0] in text
    buggy.write_text(text.replace(bug[0], bug[1]))
    verdicts = run_tests(buggy, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert Status.FAILED in {v.status for v in verdicts}


def test_two_runs_give_the_same_tests_byte_for_byte():
    first = generate(str(FIXTURES / "replace_separators.dfy"), GenerateOptions(jobs=2))
    second = generate(str(FIXTURES / "replace_separators.dfy"), GenerateOptions(jobs=1))
    assert first.tests_text == second.tests_text and any(tc.kind.value == "search" for tc in first.cases)


def test_a_contract_the_solver_cannot_read_is_tested_on_inputs_that_ran_its_requires(tmp_path):
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    program = tmp_path / "unreadable_requires.dfy"
    program.write_text((FIXTURES / program.name).read_text())
    without = generate(str(program), GenerateOptions(search=False))
    assert not without.cases  # the solver's inputs could break a precondition it cannot read
    got = generate(str(program), GenerateOptions())
    assert got.cases and all(tc.kind.value == "search" for tc in got.cases)
    assert any("search's inputs alone" in d.message for d in got.diagnostics)
    verdicts = run_tests(program, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.status for v in verdicts} == {Status.PASSED}
    buggy = tmp_path / "buggy" / program.name
    buggy.parent.mkdir()
    buggy.write_text(program.read_text().replace("t := seq(|s|, i requires 0 <= i < |s| => s[i] * 2);",
                                                 "t := seq(|s|, i requires 0 <= i < |s| => s[i] + 2);"))
    verdicts = run_tests(buggy, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert Status.FAILED in {v.status for v in verdicts}

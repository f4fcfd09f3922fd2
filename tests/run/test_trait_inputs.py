"""An input of a trait type is made by `new` of a class that implements it, whose fields the test then
sets: its variable takes the class's type (declared with the trait's, `c.n := 2` did not build, and
every test of the program was not-tested on correct code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trait_input"


@pytest.mark.dafny
def test_a_trait_input_made_by_a_class_builds_and_passes(monkeypatch):
    monkeypatch.chdir(FIXTURES)
    got = generate("C.dfy", GenerateOptions(methods=("C.BumpVia",)))
    assert got.cases and all(tc.inputs["c"].startswith("new C.Cell(") for tc in got.cases)
    assert "var c: T.Counter :=" not in got.tests_text
    verdicts = run_tests(Path("C.dfy"), got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert verdicts and {v.status for v in verdicts} == {Status.PASSED}, [v.message for v in verdicts]

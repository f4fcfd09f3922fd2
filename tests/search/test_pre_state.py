"""A search candidate the solver does not confirm is tested as found; an array the member modifies is then
named as the solver names it, by its value before the call (`old(a)`: reading the candidate by that name
was an internal error, KeyError, and the member had no test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "search"


@pytest.mark.dafny
def test_an_array_sorted_in_place_gets_tests_that_pass_and_catch_a_sort_that_does_nothing(monkeypatch, tmp_path):
    monkeypatch.chdir(FIXTURES)
    got = generate("sort_in_place.dfy", GenerateOptions(bva=100))
    assert not [d for d in got.diagnostics if "internal error" in d.message], got.diagnostics
    assert got.cases and {tc.method for tc in got.cases} == {"Sort"}
    verdicts = run_tests(Path("sort_in_place.dfy"), got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.status for v in verdicts} == {Status.PASSED}, [v.message for v in verdicts]
    lazy = tmp_path / "sort_in_place.dfy"
    lazy.write_text((FIXTURES / "sort_in_place.dfy").read_text().replace("a[j], a[j + 1] := a[j + 1], a[j];", ""))
    verdicts = run_tests(lazy, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert Status.FAILED in {v.status for v in verdicts}

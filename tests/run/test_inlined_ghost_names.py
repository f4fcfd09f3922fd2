"""A ghost predicate's body inlined into a check keeps the names its own module reads, in full: Bank opens
Accounts, so AllValid's body says Valid and Compute bare, and the tests (of Tests, which does not open
Accounts) did not build ("unresolved identifier: Compute"; bank-cli-dafny's ValidBank)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ghost_inline"


@pytest.mark.dafny
def test_an_inlined_body_names_another_modules_function_in_full(monkeypatch):
    # the program as written: its test build compiles AllValid, which the tests then call rather than inline
    monkeypatch.chdir(FIXTURES)
    got = generate("bank.dfy", GenerateOptions(test_build=False))
    assert got.cases and "Accounts.Compute(" in got.tests_text
    verdicts = run_tests(Path("bank.dfy"), got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert verdicts and {v.status for v in verdicts} == {Status.PASSED}, [v.message for v in verdicts]

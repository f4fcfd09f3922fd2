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


@pytest.mark.dafny
def test_a_trait_function_a_class_implements_is_checked_and_a_planted_bug_caught(monkeypatch, tmp_path):
    # Get has no body in the trait: it is compiled through the class, not "Get has no body"
    monkeypatch.chdir(FIXTURES)
    got = generate("C.dfy", GenerateOptions(methods=("C.Cell.Bump",)))
    assert got.cases and "Get has no body" not in got.tests_text
    (tmp_path / "T.dfy").write_text((FIXTURES / "T.dfy").read_text())
    buggy = tmp_path / "C.dfy"
    buggy.write_text((FIXTURES / "C.dfy").read_text().replace("{ n := n + 1; r := n; }", "{ r := n; }"))
    verdicts = run_tests(buggy, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert verdicts and {v.status for v in verdicts} == {Status.FAILED}



CHAIN = Path(__file__).resolve().parents[1] / "fixtures" / "trait_chain"


@pytest.mark.dafny
def test_a_trait_reached_through_a_chain_of_traits_is_built_as_its_class(monkeypatch, tmp_path):
    # trait A, trait B extends A, class C extends B: an input of type A or B, and the receiver of B's and
    # C's methods, is a C declared as one (Dafny inferred A from the field the test sets: 'member Bump does
    # not exist in trait A', every test of B.Bump and C.Bump not-tested)
    monkeypatch.chdir(CHAIN)
    got = generate("chain.dfy", GenerateOptions())
    assert {tc.method for tc in got.cases} == {"B.Bump", "C._ctor", "C.Bump", "UseA", "UseB"}
    assert "var a: C := new C(" in got.tests_text and "var dspec2test_obj: C := new C(" in got.tests_text
    verdicts = run_tests(Path("chain.dfy"), got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.status for v in verdicts} == {Status.PASSED}, [v.message for v in verdicts]
    buggy = tmp_path / "chain.dfy"
    buggy.write_text((CHAIN / "chain.dfy").read_text().replace("n := n + 1;", "n := n + 2;"))
    verdicts = run_tests(buggy, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.method for v in verdicts if v.status is Status.FAILED} == {"B.Bump", "C.Bump", "UseB"}

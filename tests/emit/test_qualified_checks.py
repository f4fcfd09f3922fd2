"""The input checks of subset types are written as the type's own module reads them: names in full
(`Limits.MAX`, where the test opens the member's module, not the ones it opened), the namesake types of
modules refining one abstract module each with its own predicate (`FormA.Ok(s)`, `FormB.Ok(s)`, which the
tests file would find ambiguous), and a ghost predicate in a constraint (`b.Valid?()`) left to the solver,
since a test cannot evaluate it (Dafny rejected the whole tests file: print in a ghost context), unless the
program's test build compiles it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "model" / "qualified_constraints.dfy"


def type_checks(method: str, test_build: bool = True) -> list[str]:
    got = generate(str(FIXTURE), GenerateOptions(methods=(method,), test_build=test_build))
    lines = got.tests_text.splitlines()
    assert got.cases, got.diagnostics
    return [line.strip() for line in lines if line.strip().startswith("if !(") and "is not a" in line]


def test_a_constraint_names_its_module_s_declarations_in_full():
    assert any("Limits.MAX" in c for c in type_checks("Use.Twice"))


def test_namesake_types_of_refining_modules_check_their_own_predicate():
    assert any("FormA.Ok(s)" in c for c in type_checks("FormA.Len"))
    assert any("FormB.Ok(s)" in c for c in type_checks("FormB.Len"))
    assert not any("FormA" in c for c in type_checks("FormB.Len"))


def test_a_type_inside_a_contract_s_expression_is_written_in_full():
    got = generate(str(FIXTURE), GenerateOptions(methods=("Use.Half",)))
    assert any("x as Limits.Small" in line for line in got.tests_text.splitlines() if line.strip().startswith("if !("))


def test_a_ghost_predicate_of_a_constraint_is_not_a_runtime_check():
    assert not any("Valid?" in c for c in type_checks("Use.Get", test_build=False))


@pytest.mark.dafny
def test_a_ghost_predicate_of_a_constraint_the_test_build_compiles_is_checked():
    assert any("Valid?" in c for c in type_checks("Use.Get"))


@pytest.mark.dafny
def test_every_compiled_member_passes_with_dafny(tmp_path):
    report = tmp_path / "run.json"
    proc = subprocess.run([sys.executable, "-m", "dspec2test", "run", str(FIXTURE), "--json", str(report)],
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    tests = json.loads(report.read_text())["tests"]
    assert {t["method"] for t in tests if t["status"] == "passed"} == {"FormA.Len", "FormB.Len", "Use.Twice", "Use.Get",
                                                                                 "Use.Half"}
    assert [t["method"] for t in tests if t["status"] != "passed"] == ["Form.Len"]  # abstract: its refinements

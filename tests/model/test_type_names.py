"""Types, functions and constructors share names without meaning one another (libraries' JSON: a function
`JSON(js: JSON)` beside the type it opens, a constructor `Writer` of `Writer_` beside `type Writer`, a
datatype `Chain` with a constructor `Chain`): a type name resolves to the type, a call to the
constructor, and the test writes the type's full name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "model" / "type_names.dfy"


def test_names_shared_by_a_type_and_a_function_or_constructor_resolve_by_use():
    got = generate(str(FIXTURE), GenerateOptions(bva=100))
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    assert got.cases and all(tc.inputs["w"].startswith("Lib.Writer_.Writer(") for tc in got.cases)


@pytest.mark.dafny
def test_the_tests_build_and_pass(tmp_path):
    report = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "dspec2test", "run", str(FIXTURE), "--bva", "--json", str(report)],
                   capture_output=True, text=True, timeout=600)
    statuses = [t["status"] for t in json.loads(report.read_text())["tests"]]
    assert statuses and set(statuses) == {"passed"}, statuses

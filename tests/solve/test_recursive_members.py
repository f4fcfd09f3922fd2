"""A recursive function that is a member of a datatype (`function Size(): nat` of a Tree, calling
`l.Size()` and `r.Size()`) is one Z3 recursive definition taking its receiver as an argument. It was
neither seen as recursive (the calls are on other values) nor defined once (one definition per receiver),
so encoding it unfolded without end: every member whose contract used it was an internal error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def test_a_contract_over_a_recursive_datatype_member_is_solved():
    got = generate(str(FIXTURES / "tree_members.dfy"), GenerateOptions(bva=100))
    assert not [d for d in got.diagnostics if "internal error" in d.message], got.diagnostics
    assert any(tc.inputs["t"].startswith("Node(") for tc in got.cases)  # a tree with a size, not only Leaf


@pytest.mark.dafny
def test_a_bug_in_a_member_over_trees_is_found(tmp_path):
    report = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "dspec2test", "run", str(FIXTURES / "tree_members_bug.dfy"), "--bva",
                    "--json", str(report)], capture_output=True, text=True, timeout=600)
    statuses = {t["status"] for t in json.loads(report.read_text())["tests"]}
    assert "failed" in statuses and statuses <= {"failed", "passed"}


def test_a_member_called_on_a_field_of_the_receiver_is_that_field_s_member():
    """`chain.Length()` inside a member of Writer (chain: a destructor of this) was an unknown function."""
    got = generate(str(FIXTURES / "datatype_field_calls.dfy"), GenerateOptions(bva=100))
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    assert {tc.method for tc in got.cases} == {"Writer.Add"}
    assert any(tc.inputs["this"].startswith("Writer(") and "Link(" in tc.inputs["this"] for tc in got.cases)

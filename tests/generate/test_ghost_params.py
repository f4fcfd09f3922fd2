"""Ghost parameters are inputs like any other: the solver gives them values that meet the requires, and the
test passes them (a compiled value may be passed to a ghost parameter); only ghost fields, which no test
can set, are left out. Before, every member with a ghost parameter was an internal error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def test_a_ghost_parameter_gets_a_value_that_meets_the_requires():
    got = generate(str(FIXTURES / "ghost_params.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if "internal error" in d.message]
    inputs = {tc.method: tc.inputs for tc in got.cases}
    assert set(inputs) == {"M", "N", "P"}
    assert int(inputs["M"]["x"]) > int(inputs["M"]["g"])  # requires x > g, g ghost
    assert "arr" in inputs["N"] and "arr" in inputs["P"]


@pytest.mark.dafny
@pytest.mark.parametrize("fixture", ["ghost_params.dfy", "trait_chain.dfy"])
def test_members_with_ghost_parameters_and_trait_chains_pass_with_dafny(tmp_path, fixture):
    report = tmp_path / "run.json"
    proc = subprocess.run([sys.executable, "-m", "dspec2test", "run", str(FIXTURES / fixture), "--json", str(report)],
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    tests = json.loads(report.read_text())["tests"]
    passed = {t["method"] for t in tests if t["status"] == "passed"}
    others = [t for t in tests if t["status"] != "passed"]
    if fixture == "ghost_params.dfy":
        assert passed == {"M", "N", "P"} and not others
    else:  # the namesake trait Decoy.Trait has no class: its member alone is not tested, with that reason
        assert passed == {"A.Interface.Trait.Get", "B.Implementation.Trait.Twice", "C.Impl._ctor", "C.Impl.Get"}
        assert [t["method"] for t in others] == ["Decoy.Trait.Other"]
        assert "no class of the program implements trait Trait" in others[0]["message"]

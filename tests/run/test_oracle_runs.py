"""Oracles from what the verifier knows, run with the real Dafny against correct and buggy implementations:
with the default options each bug is caught and each correct program (which `dafny verify` accepts) passes.
Without the mechanism (value checks off), the bugs over a function only the solver can evaluate pass."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions
from dspec2test.pipeline import run_program
from dspec2test.records import Status
from dspec2test.run import RunOptions
from dspec2test.toolchain import find_toolchain

ORACLES = Path(__file__).parents[1] / "fixtures" / "oracles"


@pytest.mark.dafny
@pytest.mark.parametrize("name", ["tri.dfy", "axioms_variants.dfy", "pow2.dfy", "square.dfy", "first_index.dfy"])
def test_the_correct_programs_verify(name):
    # a function without a body and the lemmas Dafny takes on trust verify; a bodiless lemma without {:axiom}
    # is a warning (FibBase), which the tests' own build allows too
    dafny = find_toolchain().dafny
    assert dafny is not None
    proc = subprocess.run([dafny, "verify", "--allow-warnings", str(ORACLES / name)], capture_output=True, text=True)
    assert proc.returncode == 0 and " 0 errors" in proc.stdout, proc.stdout + proc.stderr


def statuses(tmp_path: Path, name: str, options: GenerateOptions = GenerateOptions()) -> dict[str, set[Status]]:
    shutil.copy(ORACLES / name, tmp_path / name)
    tested = run_program(str(tmp_path / name), options, RunOptions(target="py"))
    out: dict[str, set[Status]] = {}
    for v in tested.result.verdicts:
        out.setdefault(v.method, set()).add(v.status)
    return out


@pytest.mark.dafny
def test_a_wrong_result_of_a_function_defined_by_axioms_is_caught(tmp_path):
    assert statuses(tmp_path, "tri.dfy") == {"Triangle": {Status.PASSED}}
    assert Status.FAILED in statuses(tmp_path, "tri_bug.dfy")["Triangle"]
    assert statuses(tmp_path, "axioms_variants.dfy") == {"FibIt": {Status.PASSED}, "PowIt": {Status.PASSED}}


@pytest.mark.dafny
def test_a_unique_output_only_the_solver_can_evaluate_catches_a_bug_by_default_and_not_without(tmp_path):
    assert statuses(tmp_path, "pow2.dfy") == {"Power": {Status.PASSED}}
    assert Status.FAILED in statuses(tmp_path, "pow2_bug.dfy")["Power"]
    # with --no-simplify the ensures over the ghost Pow2 is not checked: the bug passes
    assert Status.FAILED not in statuses(tmp_path, "pow2_bug.dfy", GenerateOptions(simplify=False, test_build=False))["Power"]


@pytest.mark.dafny
def test_a_bounded_witness_search_catches_a_result_with_no_witness(tmp_path):
    correct = statuses(tmp_path, "square.dfy")
    assert correct["Square"] == {Status.PASSED} and Status.FAILED not in correct["Next"]
    buggy = statuses(tmp_path, "square_bug.dfy")
    assert Status.FAILED in buggy["Square"] and Status.FAILED not in buggy["Next"]

"""Lambdas in contracts (`ensures r == Apply(y => y + 1, x)`, `Seq.Map(x => x as uint8, s)`): a closure
applied where the function it is passed to is inlined, its untyped parameters typed by that function's
formal. They were `unsupported: lambda` for every member that wrote one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def test_lambdas_passed_to_inlined_functions_are_solved():
    got = generate(str(FIXTURES / "lambdas.dfy"), GenerateOptions())
    by_member = {}
    for tc in got.cases:
        by_member.setdefault(tc.method, []).append(tc)
    assert {"Inc", "Scale", "IsPos"} <= set(by_member)
    inc = by_member["Inc"][0]
    assert int(inc.outputs["r"]) == int(inc.inputs["x"]) + 1  # the lambda's body, applied to the input
    scale = by_member["Scale"][0]
    x, k = int(scale.inputs["x"]), int(scale.inputs["k"])
    assert int(scale.outputs["r"]) == x * k * k  # applied twice, closed over k
    pos = by_member["IsPos"][0]
    assert pos.outputs["b"] == str(int(pos.inputs["x"]) > 0).lower()  # a bool lambda: R inferred as bool


def test_a_lambda_given_to_a_recursive_function_is_unsupported_at_the_lambda():
    got = generate(str(FIXTURES / "lambdas.dfy"), GenerateOptions())
    found = [d for d in got.diagnostics if "lambda passed to the recursive function Sum" in d.message]
    assert found and found[0].line == 28 and found[0].col == 20, got.diagnostics
    assert not [d for d in got.diagnostics if "internal error" in d.message]


@pytest.mark.dafny
def test_a_bug_against_a_lambda_contract_is_found(tmp_path):
    report = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "dspec2test", "run", str(FIXTURES / "lambdas_bug.dfy"),
                    "--json", str(report)], capture_output=True, text=True, timeout=600)
    statuses = {t["status"] for t in json.loads(report.read_text())["tests"]}
    assert statuses == {"failed"}


def test_a_generic_datatype_member_reads_t_as_the_receiver_instantiates_it():
    """`b.Holds(x => x > 0)` with `predicate Holds(p: T -> bool)` in `datatype Box<T>`: T was an unknown
    type (libraries' `minus.SplitFrom?(cs, SpecView)` on a Split<jminus>), for lambdas and plain values alike."""
    got = generate(str(FIXTURES / "generic_datatype_members.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    cases = {tc.method: tc for tc in got.cases}
    pos, same = cases["Pos"], cases["Same"]
    assert pos.outputs["r"] == str(int(pos.inputs["b"].removeprefix("Box(").rstrip(")")) > 0).lower()
    assert same.outputs["r"] == same.inputs["b"].removeprefix("Box(").rstrip(")")


def test_a_function_named_as_a_value_and_a_module_an_opened_import_brings():
    """`Spec.Apply(Spec.Double, x)` in a module that opens Core, which imports Defs.Spec: Spec was an unknown
    module (libraries' Numbers opens Core, which imports Spec) and a function as a value unsupported."""
    got = generate(str(FIXTURES / "function_values.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    cases = {tc.method: tc for tc in got.cases}
    assert int(cases["Top.Inner.Client.Twice"].outputs["r"]) == 2 * int(cases["Top.Inner.Client.Twice"].inputs["x"])
    assert int(cases["Top.Inner.Client.Plus"].outputs["r"]) == 2 * int(cases["Top.Inner.Client.Plus"].inputs["x"]) + 1

"""Two instantiations of one generic datatype in a member (Result<int, int> and Result<seq<int>, int>,
as libraries' Seq.MapWithResult has): a model value is read with its own instantiation's constructor, not
with the other's of the same name (a Z3 sort mismatch made the member an internal error)."""

from __future__ import annotations

from pathlib import Path

from dspec2test.generate import GenerateOptions, generate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "model" / "generic_instantiations.dfy"


def test_each_instantiation_of_a_generic_datatype_reads_its_own_values():
    got = generate(str(FIXTURE), GenerateOptions())
    assert not [d for d in got.diagnostics if "internal error" in d.message], got.diagnostics
    outputs = {tc.method: tc.outputs["r"] for tc in got.cases}
    assert set(outputs) == {"Both", "Other"}
    assert all(v.startswith(("Success([", "Failure(")) for v in outputs.values()), outputs

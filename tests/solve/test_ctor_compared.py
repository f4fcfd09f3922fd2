"""`bs == Success(Spec.JSON(js))` of a `Result<bytes, SerializationError>`: the constructor's E, which its
arguments do not say, is the compared value's. It was instantiated as int, and the comparison of two
instantiations unsupported (libraries' JSON.ZeroCopy.API.Serialize)."""

from __future__ import annotations

from pathlib import Path

from dspec2test.generate import GenerateOptions, generate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def test_a_constructor_compared_with_a_value_takes_its_type_arguments():
    got = generate(str(FIXTURES / "ctor_compared.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    cases = {tc.method: tc for tc in got.cases}
    x = int(cases["WrapM"].inputs["x"])
    assert x > 3 and cases["WrapM"].outputs["r"].replace(" ", "").endswith(f"Success([{x},{x}])")
    assert "Wrap" in cases


def test_a_bare_constructor_takes_the_type_arguments_of_the_map_it_keys():
    """`None in env`, `e[None]`, `e[None := 1]`, `None != k` of a map keyed by Option<seq<string>>: the
    key's sort was Option<int>'s, and the comparison an internal error (a type constraint of mech-uvl)."""
    got = generate(str(FIXTURES / "ctor_keyed.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    cases = {tc.method: tc for tc in got.cases}
    assert "None" in cases["Get"].inputs["e"] and "None" in cases["Root"].inputs["e"]

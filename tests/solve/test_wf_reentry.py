"""A subset-type input whose constraint quantifies over a range (`forall i | 0 <= i < |s| :: ...`): the
quantifier's bounds are proved under the inputs' constraints while those are being built. Asking for all
of them again recursed without end, a RecursionError reported as an internal error (libraries' JSON
Tutorial, MapSuffixedSequence over SuffixedSequence)."""

from __future__ import annotations

from pathlib import Path

from dspec2test.generate import GenerateOptions, generate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "model" / "quantified_subset_input.dfy"


def test_a_quantified_subset_type_input_is_solved_without_internal_error():
    got = generate(str(FIXTURE), GenerateOptions(search=False))
    assert not [d for d in got.diagnostics if "internal error" in d.message], got.diagnostics
    (case,) = [tc for tc in got.cases if tc.method == "Count"]
    s = [int(x) for x in case.inputs["s"].strip("[]").split(",")]
    assert len(s) > 1 and s[-1] == 0 and 0 not in s[:-1]  # the subset type's constraint holds
    assert int(case.outputs["r"]) == len(s) - 1

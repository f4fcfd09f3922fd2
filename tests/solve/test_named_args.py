"""Named arguments (`Code(contents := contents)`, `Pick(c := 5, a := x)`): the arguments in the formals'
order, defaults for those not given. They were `unsupported: named arguments` (evm-dafny's Code.Create,
on every member whose contract reaches a code segment)."""

from __future__ import annotations

from pathlib import Path

from dspec2test.generate import GenerateOptions, generate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def test_named_arguments_are_bound_to_their_formals():
    got = generate(str(FIXTURES / "named_args.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    cases = {tc.method: tc for tc in got.cases}
    assert "M" in cases  # its requires hold only with the names bound (and b's default, a + 1)
    assert int(cases["Ordered"].inputs["x"]) == 1  # 1 * 100 + 2 * 10 + 5 == 125: bound positionally, x == 0

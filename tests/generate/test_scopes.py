"""Names in a contract resolve in the member's own module (the solver gets the member's scope)."""

from dspec2test.generate import GenerateOptions, generate

PROGRAM = """
module M {
  function Double(x: int): int { 2 * x }
  method Twice(x: int) returns (r: int)
    ensures r == Double(x)
  { r := x + x; }
}
"""


def test_function_of_the_enclosing_module_is_encoded(tmp_path):
    path = tmp_path / "scoped.dfy"
    path.write_text(PROGRAM)
    result = generate(str(path), GenerateOptions())
    (entry,) = result.manifest["methods"]
    assert entry["name"] == "M.Twice"
    assert entry["unsupported"] == []
    assert {tc.method for tc in result.cases} == {"M.Twice"}
    assert "M.Twice(" in result.tests_text

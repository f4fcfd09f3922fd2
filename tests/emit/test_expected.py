"""The values a postcondition pins its outputs to (emit/expected.py), printed when the clause fails."""

from build import b, card, i, n

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.expected import pins

OUT = frozenset({"r"})


def shown(e: ast.Expr) -> list[tuple[list[str], str, str]]:
    return [([print_expr(g) for g in p.guards], p.output, print_expr(p.value)) for p in pins(e, OUT)]


def test_an_equality_with_an_expression_of_the_inputs_pins_the_output_either_way_round():
    assert shown(b("==", n("r"), b("+", n("x"), i(1)))) == [([], "r", "x + 1")]
    assert shown(b("==", b("+", n("x"), i(1)), n("r"))) == [([], "r", "x + 1")]


def test_the_guards_of_an_implication_and_the_conjuncts_before_it_are_kept():
    last = ast.Index(n("s"), (b("-", card(n("s")), i(1)),))
    assert shown(b("==>", b(">", card(n("s")), i(0)), b("==", n("r"), last))) == [(["|s| > 0"], "r", "s[|s| - 1]")]
    both = b("&&", b("<", n("k"), card(n("s"))), b("==", n("r"), ast.Index(n("s"), (n("k"),))))
    assert shown(both) == [(["k < |s|"], "r", "s[k]")]


def test_if_then_else_pins_each_branch_under_its_condition():
    e = ast.IfThenElse(b("<", n("x"), i(0)), b("==", n("r"), ast.UnOp("-", n("x"))), b("==", n("r"), n("x")))
    assert shown(e) == [(["x < 0"], "r", "-x"), (["!(x < 0)"], "r", "x")]


def test_nothing_is_pinned_by_an_inequality_a_disjunction_or_a_value_that_mentions_an_output():
    assert shown(b(">=", n("r"), n("x"))) == []
    assert shown(b("||", b("==", n("r"), n("x")), b("==", n("r"), i(0)))) == []
    assert shown(b("==", n("r"), b("+", n("r"), i(0)))) == []
    assert shown(b("==", n("y"), n("x"))) == []  # y is not an output


FIXTURE = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "model" / "expected_values.dfy"


def test_an_expected_value_that_needs_its_type_is_printed_through_a_typed_local():
    from dspec2test.generate import GenerateOptions, generate
    text = generate(str(FIXTURE), GenerateOptions()).tests_text
    assert "var dspec2test_expected: Option<int> := (None);" in text  # `print None` alone: underspecified
    assert "var dspec2test_expected: seq<int> := ([]);" in text


@__import__("pytest").mark.dafny
def test_failures_on_generic_datatype_and_sequence_outputs_show_the_expected_value(tmp_path):
    """Before, the tests file did not build (`the type of this expression is underspecified`), so these
    planted bugs were not-tested instead of failed."""
    import json
    import subprocess
    import sys
    report = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "dspec2test", "run", str(FIXTURE), "--json", str(report)],
                   capture_output=True, text=True, timeout=600)
    failed = {(t["method"], t.get("expected_value")) for t in json.loads(report.read_text())["tests"]
              if t["status"] == "failed"}
    assert ("Half", "r = Option.None") in failed
    assert any(m == "Evens" and v == "r = []" for m, v in failed)

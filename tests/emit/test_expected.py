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

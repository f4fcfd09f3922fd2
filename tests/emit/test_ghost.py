"""Ghost parameters and out-parameters: passed and received, never printed or checked at run time."""

from dspec2test.dafny.parser import parse_program
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.tests_file import EmitContext, checks_of, emit_test
from dspec2test.partition.contracts import select
from dspec2test import records
from dspec2test.records import ScenarioKind

PROG = """
method M(x: int) returns (r: int, ghost g: int)
  ensures g == x
  ensures r == x + 1
{ }
"""


def test_a_ghost_out_parameter_is_neither_printed_nor_checked():
    prog = parse_program(PROG, "p.dfy")
    [c] = select(prog)
    ctx = EmitContext.of(prog)
    checks = checks_of(c, ctx)
    assert [(cl.line, why) for cl, why in checks.unchecked] == [(3, "g is ghost")]
    assert [print_expr(e) for _, e in checks.ensures] == ["r == x + 1"]
    tc = records.TestCase(name="Test_M_p1_s1", method="M", file="p.dfy", line=2, partition=1, scenario=1, label="",
                  kind=ScenarioKind.BASE, pin=None, inputs={"x": "1"}, outputs={"r": "2", "g": "1"})
    text = emit_test(c, tc, checks, ctx, simplify=True)
    assert "var r, g := M(x);" in text and "actual r" in text and "actual g" not in text


def test_a_clause_calling_a_predicate_without_a_body_is_unchecked_not_a_broken_build():
    # the tests' build turns a bodiless function ghost (run/stubs.py): a check calling it could not compile
    prog = parse_program("predicate Q(x: int)\npredicate P(x: int) { x > 0 }\n"
                         "method M(x: int) returns (r: int)\n  ensures Q(r)\n  ensures P(r)\n{ r := 1; }\n", "p.dfy")
    [c] = select(prog)
    checks = checks_of(c, EmitContext.of(prog))
    assert [(cl.line, why) for cl, why in checks.unchecked] == [(4, "Q has no body")]
    assert [print_expr(e) for _, e in checks.ensures] == ["P(r)"]

"""The emitted tests file: TEAM.md format, checks, oracles, unchecked clauses, receivers, arrays."""

from dataclasses import replace
from pathlib import Path

import pytest
from build import INT, SEQ_INT, b, card, clause, conditional_get, i, method, n, program
from golden_util import check_golden

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.metadata import read_metadata
from dspec2test.emit.tests_file import EmitContext, checks_of, emit_file, emit_test, checks_for
from dspec2test.emit.tests_file import test_name as name_of_test
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import select
from dspec2test import records
from dspec2test.records import ScenarioKind

GOLDEN = Path(__file__).parent / "golden"


def case(contract, inputs, outputs, unique=False, p=1, s=1, pin=None):
    return records.TestCase(name=name_of_test(contract, p, s), method=contract.name, file="prog.dfy", line=contract.line,
                    partition=p, scenario=s, label="0 <= x < |s| && r == s[x]",
                    kind=ScenarioKind.BVA if pin else ScenarioKind.BASE, pin=pin, inputs=inputs, outputs=outputs,
                    unique=unique, clauses=(2, 3, 4))


def emitted(prog, inputs, outputs, simplify=False, unique=False, pin=None):
    ctx = EmitContext.of(prog)
    [c] = select(prog)
    checks = checks_of(c, ctx)
    tc = case(c, inputs, outputs, unique, pin=pin)
    tc = replace(tc, checks=checks_for(c, tc, checks, ctx, simplify))
    return emit_test(c, tc, checks, ctx, simplify), tc


def check_line(condition: str, check_id: str, message: str, expected: str = "") -> str:
    """`expected`: the statements that print the values the clause pins, after the fail line."""
    return (f'  if !({condition}) {{ print "\\n[dspec2test:RUN] fail {check_id}\\n"; {expected + " " if expected else ""}'
            f'expect false, "{message}"; }}')


def show(name: str, value: str, guard: str = "") -> str:
    printed = f'print "\\n[dspec2test:RUN] expected {name} = ", {value}, "\\n";'
    return f"if {guard} {{ {printed} }}" if guard else printed


def test_postcondition_oracles_and_metadata_round_trip():
    text, tc = emitted(conditional_get(), {"s": "[7]", "x": "0"}, {"r": "7"}, pin="x == 0")
    check_golden(GOLDEN / "conditional_get_p1_s1.dfy", text + "\n")
    assert read_metadata(text) == [tc]
    lines = text.splitlines()
    assert lines[3] == "method {:test} Test_ConditionalGet_p1_s1()"
    assert lines[5] == '  print "\\n[dspec2test:RUN] start Test_ConditionalGet_p1_s1\\n";'
    call = lines.index("  var r := ConditionalGet(s, x);")
    assert lines[call - 1] == '  print "\\n[dspec2test:RUN] call\\n";'
    assert lines[call + 1] == '  print "\\n[dspec2test:RUN] returned\\n";'
    # on failure the test also prints the value the clause pins r to, where its guard holds
    assert check_line("0 <= x < |s| ==> r == s[x]", "c3",
                      "dspec2test: ensures (line 4) violated: 0 <= x < |s| ==> r == s[x]",
                      show("r", "(s[x])", "(0 <= x < |s|)")) in lines
    assert [(c.id, c.kind.value, c.line) for c in tc.checks] == [("c1", "ensures", 2), ("c2", "ensures", 3),
                                                                 ("c3", "ensures", 4)]
    assert lines[-2] == '  print "\\n[dspec2test:RUN] done\\n";'


def test_simplify_expects_values_in_addition_to_the_contract():
    text, tc = emitted(conditional_get(), {"s": "[7]", "x": "0"}, {"r": "7"}, simplify=True, unique=True)
    assert check_line("r == 7", "c4", "dspec2test: expected r == 7 (ensures, line 2)", show("r", "7")) in text.splitlines()
    assert text.count("violated") == 3  # every compiled ensures is still checked
    assert tc.checks[-1].kind.value == "value" and tc.checks[-1].text == "r == 7"
    text, tc = emitted(conditional_get(), {"s": "[7]", "x": "0"}, {"r": "7"}, simplify=True, unique=False)
    assert "r == 7" not in text and text.count("violated") == 3 and len(tc.checks) == 3


def test_requires_and_subset_types_are_checked_as_bad_input():
    prog = program(method("Get", [("s", SEQ_INT), ("k", ast.NamedType("nat"))], [("r", INT)],
                          requires=[clause("requires", b("<", n("k"), card(n("s"))), 2)],
                          ensures=[clause("ensures", b("==", n("r"), ast.Index(n("s"), (n("k"),))), 3)]))
    text, _ = emitted(prog, {"s": "[1, 2]", "k": "1"}, {"r": "2"})
    body = text.splitlines()
    k_check = body.index(check_line("k >= 0", "c1", "dspec2test: bad test input: k is not a nat; "
                                                     "the generated input is wrong, not the program"))
    req = body.index(check_line("k < |s|", "c2", "dspec2test: bad test input: requires (line 2) does not hold; "
                                                 "the generated input is wrong, not the program"))
    call = body.index("  var r := Get(s, k);")
    assert body.index("  var k: nat := 1;") < k_check < req < call


def test_uncompilable_clauses_are_listed_not_dropped():
    old = ast.Old(n("x"))
    prog = program(method("Inc", [("x", INT)], [("r", INT)],
                          ensures=[clause("ensures", b("==", n("r"), b("+", old, i(1))), 2),
                                   clause("ensures",
                                          ast.Quantifier("forall", (ast.BoundVar("k", INT),), None,
                                                         b(">", b("*", n("k"), n("k")), i(-1))), 3),
                                   clause("ensures", b(">", n("r"), n("x")), 4)]))
    ctx = EmitContext.of(prog)
    [c] = select(prog)
    checks = checks_of(c, ctx)
    assert [(cl.line, why) for cl, why in checks.unchecked] == [(3, "unbounded quantifier over k")]
    # with no modifies clause nothing changes state, so old(x) is x
    assert [(cl.line, print_expr(e)) for cl, e in checks.ensures] == [(2, "r == x + 1"), (4, "r > x")]


def test_instance_member_gets_a_receiver_whose_fields_the_test_sets():
    meth = method("Add", [("d", INT)], [("r", INT)], ensures=[clause("ensures", b("==", n("r"), b("+", n("total"), n("d"))), 3)])
    cls = ast.ClassDecl("class", "Counter", (ast.Field("total", INT), meth))
    text, tc = emitted(program(cls), {"d": "1", "this": "new Counter", "this.total": "5"}, {"r": "6"})
    lines = text.splitlines()
    assert lines.index("  var dspec2test_obj := new Counter;") < lines.index("  dspec2test_obj.total := 5;") \
        < lines.index("  var r := dspec2test_obj.Add(d);")
    assert "if !(r == dspec2test_obj.total + d)" in text
    # a constructor with parameters: the test calls it as the inputs say (its arguments solved)
    ctor = ast.Method("constructor", "", (ast.Formal("n", INT),), (), ast.Spec(), None)
    text, _ = emitted(program(ast.ClassDecl("class", "Counter", (ast.Field("total", INT), ctor, meth))),
                      {"d": "1", "this": "new Counter(7)", "this.total": "5"}, {"r": "6"})
    assert "  var dspec2test_obj := new Counter(7);" in text and "  dspec2test_obj.total := 5;" in text


def test_array_inputs_are_allocated_then_filled():
    arr = ast.NamedType("array", (INT,))
    prog = program(method("First", [("a", arr)], [("r", INT)],
                          requires=[clause("requires", b(">", ast.MemberSelect(n("a"), "Length"), i(0)), 2)],
                          ensures=[clause("ensures", b("==", n("r"), ast.Index(n("a"), (i(0),))), 3)]))
    text, _ = emitted(prog, {"a": "[4, 5]"}, {"r": "4"})
    assert "  var dspec2test_a: seq<int> := [4, 5];" in text
    assert "  var a := new int[|dspec2test_a|];" in text
    assert "  forall dspec2test_i | 0 <= dspec2test_i < |dspec2test_a| { a[dspec2test_i] := dspec2test_a[dspec2test_i]; }" \
        in text


def test_file_is_deterministic_and_opens_modules():
    text1 = emit_file("dir/prog.dfy", ["M"], ["method {:test} A() {}", "method {:test} B() {}"])
    text2 = emit_file("dir/prog.dfy", ["M"], ["method {:test} A() {}", "method {:test} B() {}"])
    assert text1 == text2
    assert "import opened M\n" in text1 and text1.index("A()") < text1.index("B()")


def test_expect_messages_are_one_line_dafny_strings_escaped_like_the_printer():
    from dspec2test.emit.tests_file import dafny_string

    # A multi-line clause folds to one line; quotes, backslashes and non-ASCII are escaped.
    assert dafny_string('r == "a\\\\b"\n   && x ≥ 0') == '"r == \\"a\\\\\\\\b\\" && x \\U{2265} 0"'


def test_opened_modules_of_one_short_name_get_names_of_their_own():
    from dspec2test.emit.tests_file import emit_file

    text = emit_file("p.dfy", ["A.Seq", "B.Seq", "C"], [])
    assert "import opened A_Seq = A.Seq\nimport opened B_Seq = B.Seq\nimport opened C\n" in text

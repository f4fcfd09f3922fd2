"""Ghost parameters and out-parameters: passed and received, never printed or checked at run time."""

from dspec2test.dafny.parser import parse_program
from dspec2test.dafny.printer import print_expr
from dspec2test.dafny import ast
from dspec2test.model.tuples import reduce_lets
from dspec2test.emit.tests_file import EmitContext, checks_of, emit_test
from dspec2test.generate import GenerateOptions, generate
from dspec2test.model.contracts import select
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


def test_requires_and_reads_of_a_function_input_hold_for_the_built_lambda_and_stay_unchecked(tmp_path):
    src = ("method Map(f: int -> int, a: array<int>)\n  requires forall j :: 0 <= j < a.Length ==> f.requires(j)\n"
           "  requires forall j :: 0 <= j < a.Length ==> a !in f.reads(j)\n  modifies a\n"
           "  ensures forall j :: 0 <= j < a.Length ==> a[j] == f(j)\n{ }\n")
    prog = parse_program(src, "p.dfy")
    [c] = select(prog)
    checks = checks_of(c, EmitContext.of(prog))
    assert [why for _, why in checks.unchecked] == [".requires of a function is ghost", ".reads of a function is ghost"]
    path = tmp_path / "p.dfy"
    path.write_text(src)
    got = generate(str(path), GenerateOptions(isolate=False))
    [m] = got.manifest["methods"]
    assert not m["unsupported"] and got.cases  # the solver takes both requires as true of its lambdas


def test_a_ghost_predicate_with_a_compilable_body_is_checked_through_its_body():
    src = ("ghost predicate Pair(p: (int, int), s: seq<int>) { var (i, j) := p; 0 <= i < j < |s| }\n"
           "ghost function Len(s: seq<int>): nat { if s == [] then 0 else 1 + Len(s[1..]) }\n"
           "method M(s: seq<int>) returns (p: (int, int), n: int)\n  requires |s| > 1\n"
           "  ensures Pair(p, s)\n  ensures n == Len(s)\n{ p := (0, 1); n := |s|; }\n")
    prog = parse_program(src, "p.dfy")
    [c] = select(prog)
    checks = checks_of(c, EmitContext.of(prog))
    # the recursive one stays a listed clause; the other is checked through its body, bound by a let
    assert [(cl.line, why) for cl, why in checks.unchecked] == [(6, "Len is ghost")]
    [(clause, expr)] = checks.ensures
    assert clause.line == 5 and print_expr(expr) == "var p, s := p, s; var (i, j) := p; 0 <= i < j < |s|"


def test_a_ghost_predicate_conjoined_with_an_old_clause_is_checked_through_its_body():
    # the clause as a whole reads old(), so it is split: its ghost conjunct is still checked by its body
    src = ("ghost predicate sorted(a: array<int>) reads a { forall i, j :: 0 <= i < j < a.Length ==> a[i] <= a[j] }\n"
           "method Sort(a: array<int>)\n  modifies a\n"
           "  ensures sorted(a) && multiset(a[..]) == multiset(old(a[..]))\n{ }\n")
    prog = parse_program(src, "p.dfy")
    [c] = select(prog)
    checks = checks_of(c, EmitContext.of(prog))
    assert not checks.unchecked
    texts = [print_expr(e) for _, e in checks.ensures]
    assert texts[0] == "var a := a; forall i, j :: 0 <= i < j < a.Length ==> a[i] <= a[j]"
    assert len(texts) == 2 and "multiset" in texts[1]


INTERVALS = """
type interval = iv: (int, int) | iv.0 <= iv.1 witness (0, 0)
ghost function length(iv: interval): int { iv.1 - iv.0 }
ghost predicate valid(s: string, iv: interval) {
  && (0 <= iv.0 <= iv.1 <= |s|)
  && (forall i, j | iv.0 <= i < j < iv.1 :: s[i] != s[j])
}
method Longest(s: string) returns (n: int, ghost best: interval)
  ensures valid(s, best) && length(best) == n
  ensures forall iv | valid(s, iv) :: length(iv) <= n
{ }
"""


def test_a_quantifier_over_tuples_is_checked_per_component_and_a_ghost_witness_as_an_exists():
    prog = parse_program(INTERVALS, "p.dfy")
    [c] = select(prog)
    checks = checks_of(c, EmitContext.of(prog))
    assert not checks.unchecked
    [(first, witness), (second, longest)] = checks.ensures
    # the ghost out-parameter is existentially bound (its value is one witness), split into components
    assert first.line == 9 and isinstance(witness, ast.Quantifier) and witness.kind == "exists"
    assert [v.name for v in witness.vars] == ["best'_0", "best'_1"]
    text = print_expr(witness)
    assert "best'_1 - best'_0 == n" in text and "0 <= best'_0 <= |s|" in text and "best'_0 <= best'_1" in text
    # the tuple's components are bound on their own, the subset type's constraint kept in the range
    assert second.line == 10 and [v.name for v in longest.vars] == ["iv_0", "iv_1"]
    assert print_expr(longest.body) == "iv_1 - iv_0 <= n"
    assert "iv_0 <= iv_1" in print_expr(longest.range) and "valid" not in print_expr(longest.range)


def test_a_ghost_witness_that_pins_no_compiled_output_stays_unchecked():
    prog = parse_program(INTERVALS.replace("length(best) == n", "length(best) >= 0"), "p.dfy")
    [c] = select(prog)
    checks = checks_of(c, EmitContext.of(prog))
    assert [cl.line for cl, _ in checks.unchecked] == [9, 9]  # its two conjuncts, listed
    assert [cl.line for cl, _ in checks.ensures] == [10]


def test_lets_of_names_are_substituted_and_tuple_projections_folded():
    e = parse_program("method M(a: int, b: int) ensures var p, q := (a, b), a; p.1 + q > 0 { }", "p.dfy")
    [c] = select(e)
    assert print_expr(reduce_lets(c.clauses[0].expr)) == "b + a > 0"


def test_two_members_of_one_name_leave_the_ghost_index_buildable():
    prog = parse_program("class A { function f(x: int): int { x } }\nclass B { function f(x: int): int { x } }\n"
                         "method M(x: int) returns (r: int) ensures r == x { r := x; }\n", "p.dfy")
    assert dict(EmitContext.of(prog).ghosts.formals).get("f") is None


def test_a_set_of_values_that_hold_functions_is_unchecked_not_a_broken_build():
    """`st' in {ERROR(A), ERROR(B)}` over a state that holds functions (evm-dafny's Create): Dafny has no
    compiled equality for it, so the set exists in ghost code only; the tests file did not build."""
    prog = parse_program("datatype Box = Box(f: int -> int)\n"
                         "datatype S = Run(b: Box) | Err(code: int)\n"
                         "datatype P = P(x: int)\n"
                         "method M(x: int) returns (s: S, p: P)\n"
                         "  ensures s.Run? || s in {Err(1), Err(2)}\n"
                         "  ensures p in {P(1), P(x)}\n"
                         "{ s := Err(1); p := P(1); }\n", "p.dfy")
    [c] = select(prog)
    checks = checks_of(c, EmitContext.of(prog))
    assert [(cl.line, why) for cl, why in checks.unchecked] == [
        (5, "a set of S values: S holds functions, so it has no compiled equality")]
    assert [print_expr(e) for _, e in checks.ensures] == ["p in {P(1), P(x)}"]

"""Functions without a body, defined by the lemmas Dafny takes on trust: which lemmas a member's contract
reaches (model/axioms.py), and the values the solver computes from them on concrete inputs (solve/axioms.py)."""

from pathlib import Path

from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import parse_program
from dspec2test.model.axioms import axioms_reached
from dspec2test.model.contracts import select
from dspec2test.oracle import Model
from dspec2test.solve import Solver

ORACLES = Path(__file__).parents[1] / "fixtures" / "oracles"


def contract_of(text: str, name: str):
    program = parse_program(text, "p.dfy")
    return program, next(c for c in select(program) if c.short == name)


def fixture(name: str, member: str):
    return contract_of((ORACLES / name).read_text(), member)


def solver_for(program, contract) -> Solver:
    return Solver(program, [(v.name, v.type, v.is_output) for v in contract.solver_vars], member=contract.member)


def unique_value(program, contract, inputs: dict[str, int]) -> Model | None:
    """The outputs the solver proves unique for these inputs (solving first with them pinned)."""
    s = solver_for(program, contract)
    pins = [A.BinOp("==", A.Name(k), A.IntLit(v)) for k, v in inputs.items()]
    m = s.solve([cl.expr for cl in contract.clauses] + pins)
    assert m is not None
    return s.outputs_unique([cl.expr for cl in contract.clauses], m)


def test_the_trusted_lemmas_of_the_bodiless_functions_a_contract_reaches_and_no_others():
    program, c = contract_of("""
function Tri(n: nat): nat
function Other(n: nat): nat
function Twice(n: nat): nat { 2 * Tri(n) }
lemma {:axiom} TriZero() ensures Tri(0) == 0
lemma TriSucc(n: nat) ensures Tri(n + 1) == Tri(n) + n + 1
lemma Proved(n: nat) ensures Tri(n) >= 0 { assume false; }
lemma {:axiom} OtherZero() ensures Other(0) == 1
method M(n: nat) returns (r: nat) ensures r == Twice(n)
""", "M")
    # through Twice's body; a lemma with a proof is not an axiom, nor one of a function the contract does not reach
    assert [(a.name, a.label) for a in axioms_reached(program, c)] == [("TriZero", "TriZero (line 5)"),
                                                                       ("TriSucc", "TriSucc (line 6)")]
    _, plain = contract_of("function F(n: nat): nat { n }\nmethod M(n: nat) returns (r: nat) ensures r == F(n)", "M")
    assert axioms_reached(program, plain) == ()


def test_a_lemma_of_an_abstract_module_is_what_its_refinements_prove_not_an_axiom():
    program, c = contract_of("""
abstract module A {
  function F(n: nat): nat
  lemma FZero() ensures F(0) == 0
  method M(n: nat) returns (r: nat) ensures r == F(n)
}
""", "M")
    assert axioms_reached(program, c) == ()


def test_the_axioms_give_the_value_of_a_bodiless_function_on_the_test_inputs():
    program, c = fixture("tri.dfy", "Triangle")
    m = unique_value(program, c, {"n": 5})
    assert m is not None and m.values["r"] == "15"
    assert m.axioms == ("TriZero (line 4)", "TriSucc (line 7)")
    # a hundred unfoldings down to the guard n >= 0, none upwards: Tri(n + 1) is the pattern, not Tri(n)
    m = unique_value(program, c, {"n": 100})
    assert m is not None and m.values["r"] == "5050"


def test_without_axioms_a_bodiless_function_decides_nothing():
    program, c = contract_of("function Tri(n: nat): nat\nmethod M(n: nat) returns (r: nat) ensures r == Tri(n)", "M")
    assert unique_value(program, c, {"n": 5}) is None


def test_quantified_several_and_guarded_ensures_are_axioms_too():
    program, fib = fixture("axioms_variants.dfy", "FibIt")
    m = unique_value(program, fib, {"n": 10})
    assert m is not None and m.values["r"] == "55" and m.axioms == ("FibBase (line 6)", "FibStep (line 10)")
    program, pow_ = fixture("axioms_variants.dfy", "PowIt")
    m = unique_value(program, pow_, {"n": 6})
    assert m is not None and m.values["r"] == "64" and m.axioms == ("PowStep (line 13)",)


def test_an_axiom_that_leaves_the_value_open_gives_none():
    # Tri(n + 1) >= Tri(n) bounds nothing: the value is not unique, so no value check
    program, c = contract_of("""
function Tri(n: nat): nat
lemma {:axiom} Grows(n: nat) ensures Tri(n + 1) >= Tri(n)
lemma {:axiom} TriZero() ensures Tri(0) == 0
method M(n: nat) returns (r: nat) ensures r == Tri(n)
""", "M")
    assert unique_value(program, c, {"n": 3}) is None


def test_an_axiom_over_a_datatype_is_matched_field_by_field():
    program, c = contract_of("""
datatype List = Nil | Cons(head: int, tail: List)
function Len(l: List): nat
lemma {:axiom} LenNil() ensures Len(Nil) == 0
lemma {:axiom} LenCons(x: int, l: List) ensures Len(Cons(x, l)) == 1 + Len(l)
method M(l: List) returns (r: nat) ensures r == Len(l)
""", "M")
    s = solver_for(program, c)
    three = parse_program("const C := Cons(1, Cons(2, Cons(3, Nil)))", "c.dfy").decls[0].value
    m = s.solve([cl.expr for cl in c.clauses] + [A.BinOp("==", A.Name("l"), three)])
    assert m is not None
    found = s.outputs_unique([cl.expr for cl in c.clauses], m)
    assert found is not None and found.values["r"] == "3" and found.axioms == ("LenNil (line 4)", "LenCons (line 5)")

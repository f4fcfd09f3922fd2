"""Inputs checked against the requires before a test is written, and function inputs with their whole rule."""

import pytest
import z3

from dspec2test.dafny import ast as A
from dspec2test.solve import Solver
from dspec2test.solve.funcs import rule_of, rule_text
from dspec2test.solve.literal import real_lit
from tests.solve.build import T, call, card, chain, forall, i, idx, n, op, program
from tests.solve.test_dafny_literals import AST, CASES

INT, BOOL = T("int"), T("bool")
PRED = A.ArrowType((INT,), BOOL)


@pytest.mark.parametrize("text, typ, cons, _dafny", CASES, ids=[c[0] for c in CASES])
def test_every_kind_of_literal_is_read_back_and_admitted(text, typ, cons, _dafny):
    s = Solver(AST, [("v", typ, False)])
    m = s.solve([cons])
    assert s.admits({"v": m.values["v"]}, [cons]) is True
    assert s.admits({"v": m.values["v"]}, [A.UnOp("!", cons)]) is False


def test_inputs_that_break_a_requires_or_a_type_constraint_are_told_apart():
    s = Solver(AST, [("k", T("nat"), False), ("s", T("seq", INT), False), ("P", PRED, False)])
    req = [chain(0, "<=", n("k"), "<", card(n("s"))), call("P", idx(n("s"), n("k")))]
    assert s.admits({"k": "1", "s": "[3, 4]", "P": "x => x > 3"}, req) is True
    assert s.admits({"k": "2", "s": "[3, 4]", "P": "x => x > 3"}, req) is False  # out of range
    assert s.admits({"k": "0", "s": "[3, 4]", "P": "x => false"}, req) is False  # the lost table of the issue
    assert s.admits({"k": "-1", "s": "[3, 4]", "P": "x => true"}, []) is False  # not a nat
    assert s.admits({"k": "0", "s": "[3, 4", "P": "x => true"}, req) is None  # not a literal: undecided


def _function_input(cons):
    s = Solver(program(), [("P", PRED, False), ("x", INT, False)])
    m = s.solve(cons)
    assert m is not None
    return s, m


def test_a_function_input_keeps_the_rule_of_its_model_beyond_the_table():
    # P true below, false above some point, and true again beyond 100: no table of points says that
    cons = [call("P", n("x")), A.UnOp("!", call("P", op("+", n("x"), i(1)))),
            forall("k", call("P", n("k")), rng=op(">", n("k"), i(100)))]
    s, m = _function_input(cons)
    assert m.values["P"] != "x => false" and s.admits({"P": m.values["P"], "x": m.values["x"]}, cons) is True
    parity = [forall("k", op("<==>", call("P", n("k")), op("==", op("%", n("k"), i(2)), i(0)))),
              A.UnOp("!", call("P", n("x")))]
    s, m = _function_input(parity)
    assert "% 2" in m.values["P"] and s.admits({"P": m.values["P"], "x": m.values["x"]}, parity) is True


def test_rules_over_interval_tests_print_as_a_chain_of_bounds():
    v = z3.Var(0, z3.IntSort())
    empty = z3.Solver()
    empty.check()
    model = empty.model()  # no auxiliary functions to inline
    rule = rule_of(model, z3.Or(z3.Not(78 <= v), z3.And(78 <= v, 101 <= v)))
    assert rule_text(rule, ["x"], real_lit) == "if x < 78 then true else if x < 101 then false else true"
    mixed = rule_of(model, z3.If(v % 3 == 1, v * 2, -5))
    assert rule_text(mixed, ["x"], real_lit) == "if (x % 3) == 1 then (2 * x) else -5"
    # a sequence, or a name the model does not define: no rule (the value at a point stands)
    assert rule_of(model, z3.Length(z3.Const("q", z3.SeqSort(z3.IntSort()))) > v) is None


def test_with_recursive_functions_left_open_admission_is_still_computed():
    """The second try of a member solves with recursive functions uninterpreted; a literal's admission
    must not be assumed through them (`s: Light` where Light's constraint calls a recursive function)."""
    from pathlib import Path

    from dspec2test.dafny.parser import parse_program

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "model" / "recursive_input_type.dfy"
    prog = parse_program(fixture.read_text(), str(fixture))
    light = A.NamedType("Light")
    for opaque in (False, True):
        s = Solver(prog, [("s", light, False)], opaque_recursion=opaque)
        assert s.admits({"s": "[1, 2, 5]"}, []) is True
        assert s.admits({"s": "[1, 5, 7]"}, []) is False


HELD = """
type u8 = x: int | 0 <= x < 256
datatype Opt<T> = None | Some(v: T)
datatype World = World(accounts: map<u8, int>, seen: set<(u8, int)>, salt: Opt<u8>)
method Balance(w: World, a: u8) returns (b: int)
  requires a in w.accounts
  ensures b == w.accounts[a]
{ b := w.accounts[a]; }
"""


def test_a_literal_holding_maps_sets_and_a_bare_constructor_in_its_fields_is_read_back():
    """A machine state's literal: a map display keyed by int literals where the field's keys are u8, an
    empty set of tuples, and `None` where the field is an Opt<u8>. Each was an encoding error, so the test
    was not written for want of an admission."""
    from dspec2test.dafny.parser import parse_program
    from dspec2test.model.contracts import iter_members, member_contract
    prog = parse_program(HELD, "held.dfy")
    member = next(d for _, d in iter_members(prog.decls) if getattr(d, "name", "") == "Balance")
    contract = member_contract(prog, member)
    assert contract is not None
    s = Solver(prog, [(v.name, v.type, v.is_output) for v in contract.solver_vars], member=member)
    req = [c.expr for c in contract.requires]
    assert s.admits({"w": "World(map[7 := 1, 3 := 2], {}, None)", "a": "3"}, req) is True
    assert s.admits({"w": "World(map[7 := 1], {}, Some(2))", "a": "3"}, req) is False
    assert s.admits({"w": "World(map[], {}, None)", "a": "3"}, req) is False

"""Partitions and BVA scenarios of small contracts, against a Z3 fake of the solver interface."""

import json
from pathlib import Path

import pytest
from build import INT, SEQ_INT, abs_or, b, clause, conditional_get, i, lifted, method, n, program
from fakesolver import FakeSolver
from golden_util import check_golden

from dspec2test.dafny import ast
from dspec2test.model.contracts import select
from dspec2test.partition.partitions import partition
from dspec2test.partition.lift import Definitions
from dspec2test.partition.scenarios import bva_scenarios
from dspec2test.model.types import TypeIndex

GOLDEN = Path(__file__).parent / "golden"


def contract_and_solver(prog):
    [c] = select(prog)
    return c, FakeSolver([(v.name, v.type, v.is_output) for v in c.vars])


def test_conditional_get_has_three_partitions_and_the_paper_pins():
    prog = conditional_get()
    c, solver = contract_and_solver(prog)
    res = partition(c, c.clauses, solver)
    assert len(res.partitions) == 3 and not res.capped
    [get] = [p for p in res.partitions if "r == s[x]" in p.label and "!(r == s[x])" not in p.label]
    scenarios = bva_scenarios(c, get, solver, TypeIndex.of(prog))
    assert scenarios[0].scenario.pin is None and scenarios[0].scenario.id == 1
    assert sorted(s.scenario.pin for s in scenarios[1:]) == sorted(["x == 0", "x == |s| - 1", "|s| == 1", "|s| > 1"])
    assert [s.scenario.id for s in scenarios] == list(range(1, len(scenarios) + 1))


def test_safe_two_full_three():
    c, solver = contract_and_solver(abs_or())
    assert len(partition(c, c.clauses, solver).partitions) == 2
    assert len(partition(c, c.clauses, solver, full=True).partitions) == 3


def test_cap_cuts_and_says_so():
    x = n("x")
    clauses = [clause("ensures", b("==>", b(">", x, i(k)), b(">", n("r"), i(k))), k + 2) for k in range(6)]
    prog = program(method("Many", [("x", INT)], [("r", INT)], ensures=clauses))
    c, solver = contract_and_solver(prog)
    res = partition(c, c.clauses, solver, cap=4)
    assert len(res.partitions) == 4 and res.capped
    assert any("cap of 4" in m for m in res.messages)
    full = partition(c, c.clauses, solver, cap=64)
    assert not full.capped and len(full.partitions) == 7  # x <= 0, 0 < x <= 1, ..., x > 5


def test_unsat_prefixes_are_pruned_before_the_product_grows():
    x = n("x")
    # the first clause splits x < 0 / x >= 0; the rest only make sense for x >= 0: prefixes with x < 0 die early
    clauses = [clause("requires", b(">=", x, i(0)), 1)] + [
        clause("ensures", b("==>", b("<", x, i(0)), b("==", n("r"), i(k))), k + 2) for k in range(8)]
    prog = program(method("P", [("x", INT)], [("r", INT)], requires=clauses[:1], ensures=clauses[1:]))
    c, solver = contract_and_solver(prog)
    res = partition(c, c.clauses, solver)
    assert len(res.partitions) == 1
    assert len(solver.calls) <= 1 + 2 * 8  # linear, not 2^8


def test_unbounded_input_gets_the_bva_extremes():
    prog = abs_or()
    c, solver = contract_and_solver(prog)
    p = partition(c, c.clauses, solver).partitions[0]
    pins = [s.scenario.pin for s in bva_scenarios(c, p, solver, TypeIndex.of(prog), extreme=7)]
    assert pins == [None, "x == -7", "x == 7"]


def test_bool_and_nat_edges():
    prog = program(method("F", [("b", ast.NamedType("bool")), ("k", ast.NamedType("nat"))], [("r", INT)],
                          ensures=[clause("ensures", b("==>", n("b"), b("<", n("k"), i(10))), 2)]))
    c, solver = contract_and_solver(prog)
    parts = partition(c, c.clauses, solver).partitions
    assert [p.label for p in parts] == ["!b", "b && k < 10"]
    pins = [s.scenario.pin for s in bva_scenarios(c, parts[1], solver, TypeIndex.of(prog))]
    assert pins == [None, "k == 0", "k == 9"]  # b is implied; k's edges come from nat and k < 10


def _dump(prog, full):
    c, solver = contract_and_solver(prog)
    out = []
    for p in partition(c, c.clauses, solver, full=full, defs=Definitions.of(prog, (), prog.decls)).partitions:
        scen = bva_scenarios(c, p, solver, TypeIndex.of(prog)) if not full else []
        out.append({"id": p.id, "label": p.label, "clauses": list(p.clause_lines),
                    "pins": [s.scenario.pin for s in scen]})
    return json.dumps(out, indent=2) + "\n"


@pytest.mark.parametrize("name,prog,full", [("conditional_get", conditional_get(), False),
                                           ("conditional_get_fdnf", conditional_get(), True),
                                           ("abs_or", abs_or(), False),
                                           ("lifted", lifted(), False), ("lifted_fdnf", lifted(), True)])
def test_golden_partitions(name, prog, full):
    check_golden(GOLDEN / f"{name}.json", _dump(prog, full))


def test_terms_differing_by_a_constant_share_one_edge_search():
    # x compared with 5, |s| and |s| - 1: the edges of x - 5 are those of x, and of x - (|s| - 1) those of
    # x - |s|, so only x itself and x - |s| are optimised; the pins stay the contract's edges
    x, s = n("x"), n("s")
    size = ast.Cardinality(s)
    req = [clause("requires", b(">=", x, i(5)), 2), clause("requires", b("<=", x, b("-", size, i(1))), 3),
           clause("requires", b("<", x, size), 4)]
    prog = program(method("E", [("s", SEQ_INT), ("x", INT)], [], requires=req))
    c, solver = contract_and_solver(prog)
    [p] = partition(c, c.clauses, solver).partitions
    before = len(solver.calls)
    pins = [sc.scenario.pin for sc in bva_scenarios(c, p, solver, TypeIndex.of(prog))]
    assert "x == 5" in pins and "x == |s| - 1" in pins
    optimised = {call for call in solver.calls[before:] if call.startswith("optimize") and "|s|" != call.split()[1]}
    assert len(optimised) == 2, optimised
    # |s| >= 6 here: none of |s| == 0, 1, > 1 is useful, so the least size is searched for and pinned
    assert {"|s| == 6", "|s| == 7", "|s| > 7"} <= set(pins)


def test_the_edges_and_pins_of_b_minus_a_are_those_of_a_minus_b_without_asking_again():
    # i and j compared with each other: min (j - i) is -max (i - j), and max (j - i) is -min (i - j)
    iv, jv = n("i"), n("j")
    req = [clause("requires", b("<=", i(0), iv), 2), clause("requires", b("<", iv, i(10)), 2),
           clause("requires", b("<=", i(0), jv), 3), clause("requires", b("<", jv, i(10)), 3),
           clause("requires", b("!=", iv, jv), 4)]
    prog = program(method("P", [("i", INT), ("j", INT)], [], requires=req))
    c, solver = contract_and_solver(prog)
    [p] = partition(c, c.clauses, solver).partitions
    solver.calls.clear()
    pins = [sc.scenario.pin for sc in bva_scenarios(c, p, solver, TypeIndex.of(prog))]
    assert solver.calls.count("optimize i - j") == 2 and "optimize j - i" not in solver.calls
    assert {"i == j - 9", "i == j + 9", "i == 0", "i == 9", "j == 0", "j == 9"} <= set(pins)
    assert not {"j == i - 9", "j == i + 9"} & set(pins)  # the same scenarios as i == j + 9 and i == j - 9


def test_a_witness_model_settles_one_question_per_pin_without_changing_the_pins():
    prog = conditional_get()
    c, solver = contract_and_solver(prog)
    [get] = [p for p in partition(c, c.clauses, solver).partitions
             if "r == s[x]" in p.label and "!(r == s[x])" not in p.label]
    solver.calls.clear()
    plain = [s.scenario.pin for s in bva_scenarios(c, get, solver, TypeIndex.of(prog))]
    asked = solver.calls.count("check")
    witness = solver.solve(get.literals)
    solver.calls.clear()
    helped = [s.scenario.pin for s in bva_scenarios(c, get, solver, TypeIndex.of(prog), witness=witness)]
    assert helped == plain
    assert solver.calls.count("check") < asked and "holds" in solver.calls

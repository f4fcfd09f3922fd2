"""Datatypes recursive through a sequence, set, map or tuple (`Node(kids: seq<Tree>)`): Z3 4.8.12 cannot
declare a datatype holding a Seq of itself, so such a field is a list inside the datatype's Z3 group,
converted to and from the Seq the encoder works on (solve/recursive.py). These were "datatype recursive
through a collection or tuple", unsupported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.generate import GenerateOptions, generate
from dspec2test.solve import Solver
from tests.solve.build import T, call, card, i, n, op, sel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"

PROGRAM = parse_program("""
datatype Tree = Leaf(v: int) | Node(kids: seq<Tree>)
datatype J = Num(n: int) | Obj(fields: seq<(string, J)>) | Bag(items: set<J>) | Dict(m: map<int, J>)
predicate Nested(t: Tree) { t == Node([Leaf(1), Node([Leaf(2), Leaf(3)]), Node([])]) }
predicate Shape(t: Tree) { t.Node? && |t.kids| == 2 && t.kids[1].Node? && |t.kids[1].kids| == 1 && t.kids[1].kids[0] == Leaf(7) }
predicate Grown(t: Tree) { t.Node? && Node(t.kids + [Leaf(4)]).kids[|t.kids|] == Leaf(4) && |t.kids| == 2 }
predicate Fields(j: J) { j.Obj? && |j.fields| == 2 && j.fields[0].0 == "a" && j.fields[1].1.Bag? && |j.fields[1].1.items| == 2 }
predicate Entries(j: J) { j.Dict? && 3 in j.m && j.m[3].Obj? && |j.m[3].fields| == 1 && |j.m| == 2 }
""", "recursive.dfy")


def solve(var: str, typ: str, pred: str):
    s = Solver(PROGRAM, [(var, T(typ), False)])
    m = s.solve([call(pred, n(var))])
    assert m is not None, s.status_of_last
    return s, m


def test_a_nested_value_round_trips_through_the_encoding():
    """Built by constructors (a Seq into lists), compared, read back from the model (lists walked) and
    excluded (the literal back into a term): the one value it can be, and then none."""
    s, m = solve("t", "Tree", "Nested")
    assert m.values["t"] == "Node([Leaf(1), Node([Leaf(2), Leaf(3)]), Node([])])"
    assert s.solve([call("Nested", n("t"))], exclude=[m]) is None


def test_fields_read_through_lists_constrain_nested_values():
    s, m = solve("t", "Tree", "Shape")
    kids = m.raw["t"].args[0]
    assert len(kids) == 2 and kids[1].ctor == "Node" and [k.args for k in kids[1].args[0]] == [(7,)]
    other = s.solve([call("Shape", n("t"))], exclude=[m])
    assert other is not None and other.values["t"] != m.values["t"]
    _, m = solve("t", "Tree", "Grown")
    assert m.values["t"].startswith("Node([") and len(m.raw["t"].args[0]) == 2


def test_children_stay_within_the_length_cap():
    """A list's sorts bound its length by the solver's cap: no model holds more children than that."""
    s = Solver(PROGRAM, [("t", T("Tree"), False)], length_limit=3)
    kids = card(sel(n("t"), "kids"))
    node = sel(n("t"), "Node?")
    m = s.solve([node, op(">=", kids, i(3))])
    assert m is not None and len(m.raw["t"].args[0]) == 3
    assert s.solve([node, op(">=", kids, i(4))]) is None


def test_tuples_sets_and_maps_of_the_datatype_inside_it():
    _, m = solve("j", "J", "Fields")
    fields = m.raw["j"].args[0]
    assert len(fields) == 2 and fields[0][0] == tuple(map(ord, "a")) and fields[1][1].ctor == "Bag"
    assert len(set(fields[1][1].args[0])) == 2 and m.values["j"].startswith('Obj([("a", ')
    _, m = solve("j", "J", "Entries")
    entries = dict(m.raw["j"].args[0])
    assert len(entries) == 2 and entries[3].ctor == "Obj" and len(entries[3].args[0]) == 1


def test_a_contract_over_a_tree_of_sequences_gets_nested_tests():
    got = generate(str(FIXTURES / "seq_tree.dfy"), GenerateOptions(bva=100))
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    inputs = [tc.inputs["t"] for tc in got.cases]
    assert any(t.startswith("Node([Leaf(") for t in inputs) and any(t.startswith("Leaf(") for t in inputs)


def test_a_recursive_predicate_quantifying_over_children_is_encoded():
    """`forall i :: 0 <= i < |kids| ==> AllPos(kids[i])` in a recursive predicate: the children are within
    the length cap by their sort, so the quantifier expands (a Z3 quantifier is no part of a recursive
    definition: it was an internal error)."""
    got = generate(str(FIXTURES / "seq_tree_quantified.dfy"), GenerateOptions(bva=100))
    assert not [d for d in got.diagnostics if d.severity.value == "unsupported"], got.diagnostics
    assert any(tc.inputs["t"].startswith("Node([") and tc.inputs["t"] != "Node([])" for tc in got.cases)


def test_trees_are_preferred_with_children():
    """Minimal models leave a node's children empty; a node of two children or more is preferred."""
    s = Solver(PROGRAM, [("t", T("Tree"), False)])
    m = s.solve([sel(n("t"), "Node?")])
    assert m is not None and len(m.raw["t"].args[0]) >= 2


@pytest.mark.dafny
@pytest.mark.parametrize("name, failed", [("seq_tree", False), ("seq_tree_bug", True)])
def test_generated_tests_pass_and_catch_a_planted_bug(tmp_path, name, failed):
    report = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "dspec2test", "run", str(FIXTURES / f"{name}.dfy"), "--bva",
                    "--json", str(report)], capture_output=True, text=True, timeout=600)
    statuses = [t["status"] for t in json.loads(report.read_text())["tests"]]
    assert statuses and set(statuses) <= {"failed", "passed"}
    assert ("failed" in statuses) == failed, statuses

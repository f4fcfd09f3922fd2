"""Diversity pins of small contracts (golden), their evaluation on models, and the member-wide schedule."""

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from golden_util import check_golden

from dspec2test.dafny.parser import parse_program
from dspec2test.dafny.printer import print_expr
from dspec2test.model.contracts import select
from dspec2test.oracle import SolveResult
from dspec2test.partition.diversity import Proposal, Functions, PartitionState, candidates, diversify, novel
from dspec2test.partition.partitions import PartitionSpec, label_of
from dspec2test.model.types import TypeIndex
from dspec2test.records import ScenarioKind, ScenarioResult
from dspec2test.solve.literal import Data

GOLDEN = Path(__file__).parent / "golden"

# Each: a member whose contract clauses are one partition's literals, as the partition stage hands them over.
CONTRACTS = {
    "find_first": """method FindFirst(a: seq<int>, x: int) returns (r: int)
  ensures 0 <= r < |a|
  ensures a[r] == x
  ensures forall k :: 0 <= k < r ==> a[k] != x""",
    "count": """method CountPositive(s: seq<int>) returns (c: int)
  ensures c == |set i | 0 <= i < |s| && s[i] > 0|""",
    "contains": """method Contains(a: array<int>, x: int) returns (b: bool)
  ensures b
  ensures exists i :: 0 <= i < a.Length && a[i] == x""",
    "not_all_equal": """method AllEqual(s: string) returns (b: bool)
  ensures !b
  ensures !(forall i :: 0 <= i < |s| ==> s[i] == s[0])""",
    "sorted_search": """method Search(a: seq<real>, key: real) returns (n: int)
  requires forall i, j :: 0 <= i < j < |a| ==> a[i] <= a[j]
  ensures 0 <= n <= |a|""",
    "in_place": """method Negate(a: array<int>)
  modifies a
  requires a.Length > 0
  ensures forall k :: 0 <= k < a.Length ==> a[k] == -old(a[k])""",
    "booleans": """method Any(s: seq<bool>) returns (b: bool)
  ensures b""",
    "count_neighbours": """predicate V(c: char)
method CountBetween(s: string) returns (n: int)
  ensures n == |set i | 1 <= i < |s| - 1 && V(s[i - 1]) && V(s[i + 1])|""",
    "guarded": """method Positives(a: seq<int>) returns (r: seq<int>)
  ensures forall i :: 0 <= i < |a| && a[i] > 0 ==> a[i] in r""",
    "bitvectors": """method Xor(a: seq<bv32>, b: seq<bv32>) returns (r: seq<bv32>)
  requires |a| == |b|
  ensures forall i :: 0 <= i < |r| ==> r[i] == a[i] ^ b[i]""",
    "three_way": """method Split(a: array<int>) returns (lo: int)
  modifies a
  ensures forall x | 0 <= x < lo :: a[x] < 0 && 0 > a[x]
  ensures forall x | lo <= x < a.Length :: a[x] == -1 || a[x] >= 'c' as int
  ensures a.Length > 0 ==> a[0] != 7""",
    "min_of_three": """method Min3(x: int, y: int, z: int) returns (m: int)
  ensures m <= x && m <= y && m <= z""",
    "scalar_types": """newtype Small = k: int | -5 <= k < 5
method Mix(i: int, n: nat, r: real, b: bv8, c: bv8, ch: char, d: char, s: Small, ghost g: int) returns (o: int)
  ensures o == i""",
    "two_arrays": """method Common(a: array<int>, b: array<int>, s: string) returns (r: seq<int>)
  ensures forall x :: x in r ==> x in a[..] && x in b[..]""",
    "record_fields": """datatype Variables = Variables(value: int, ghost g: int)
lemma Step(v: Variables, v': Variables)
  requires v'.value == v.value + 1""",
    "record_collection": """datatype Constants = Constants(ids: seq<int>, n: nat)
method At(c: Constants, k: nat) returns (x: int)
  requires k < |c.ids|
  ensures x == c.ids[k]""",
    "constructors": """datatype Shape = Circle(r: int) | Rect(w: int, h: int) | Empty
method Scale(s: Shape, k: int) returns (t: Shape)
  ensures s.Empty? ==> t == s""",
    "tuple": """method Swap(p: (int, char)) returns (q: (char, int))
  ensures q.0 == p.1""",
    "receiver": """datatype Box = Box(lo: int, hi: int) {
  function Width(): int
    requires lo <= hi
    ensures Width() >= 0
}""",
}


def partition_of(text: str):
    prog = parse_program(text, "t.dfy")
    [c] = select(prog)
    literals = tuple(cl.expr for cl in c.clauses)
    return c, PartitionSpec(1, literals, label_of(literals), ()), TypeIndex.of(prog)


def pins(name: str) -> list[tuple[str, str]]:
    c, part, types = partition_of(CONTRACTS[name])
    return [(cand.family, print_expr(cand.pin)) for cand in candidates(c, part, types)]


def test_golden_pins():
    text = "".join(f"== {name}\n" + "".join(f"{family}: {pin}\n" for family, pin in pins(name)) for name in CONTRACTS)
    check_golden(GOLDEN / "diversity_pins.txt", text)


def test_an_index_answer_gets_its_element_again_after_and_before_it_and_the_key_twice():
    got = dict(pins("find_first"))
    assert got["index-repeated-after"] == "0 <= r < |a| && (exists j :: r < j < |a| && a[j] == a[r])"
    assert got["index-repeated-before"] == "0 <= r < |a| && (exists j :: 0 <= j < r && a[j] == a[r])"
    assert got["index-inner"] == "0 < r < |a| - 1"
    assert got["key-repeated"] == "|set i | 0 <= i < |a| && a[i] == x| > 1"
    # the specific families come before the generic ones
    families = [f for f, _ in pins("find_first")]
    assert families.index("key-repeated") < families.index("repeated")


def test_a_count_is_pinned_at_its_last_and_first_index_and_away_from_the_length():
    got = dict(pins("count"))
    assert got["counted-last"] == "0 < |s| && s[|s| - 1] > 0"
    assert got["counted-first"] == "0 < |s| && s[0] > 0"
    assert got["not-counted"] == "exists i :: 0 <= i < |s| && !(s[i] > 0)"
    assert got["count-inner"] == "1 < c < |s|"


def test_a_property_of_several_conditions_fails_one_of_them_at_some_index():
    got = [pin for family, pin in pins("count_neighbours") if family == "near-miss"]
    assert got == ["exists i :: 1 <= i < |s| - 1 && V(s[i + 1]) && !V(s[i - 1])",
                   "exists i :: 1 <= i < |s| - 1 && V(s[i - 1]) && !V(s[i + 1])"]
    assert dict(pins("count_neighbours"))["counted-first"] == "1 < |s| - 1 && (V(s[0]) && V(s[2]))"


def test_a_guarded_forall_gets_an_index_where_its_guard_holds_and_one_where_it_fails():
    got = dict(pins("guarded"))
    assert got["guard-held"] == "exists i :: 0 <= i < |a| && a[i] > 0"
    assert got["guard-failed"] == "exists i :: 0 <= i < |a| && !(a[i] > 0)"
    # and two where it holds: a body keeping only the last match meets the literal on one
    assert got["guard-held-twice"] == "exists i, i' :: 0 <= i < |a| && 0 <= i' < |a| && i < i' && a[i] > 0 && a[i'] > 0"


def test_elements_compared_with_a_constant_get_one_below_one_at_and_one_above_it():
    got = [pin for family, pin in pins("three_way") if family == "straddle"]
    # each constant once (either side of the comparison); of the array's input; an index by a constant
    # counts too; a cast is no constant
    assert got == [f"(exists i :: 0 <= i < old(a).Length && old(a)[i] < {k}) && "
                   f"(exists j :: 0 <= j < old(a).Length && old(a)[j] == {k}) && "
                   f"(exists m :: 0 <= m < old(a).Length && old(a)[m] > {k})" for k in ("0", "-1", "7")]
    assert "straddle" not in dict(pins("find_first"))  # compared with a key, not a constant
    assert "straddle" not in dict(pins("booleans"))
    # generic: a guarded forall's own pins are tried first
    cands = candidates(*partition_of(CONTRACTS["guarded"]))
    assert [c.specific for c in cands if c.family in ("guard-held", "straddle")] == [True, False]


def test_two_collections_of_one_element_kind_share_a_value_away_from_zero():
    got = [pin for family, pin in pins("two_arrays") if family == "shared-element"]
    # the string's chars are another kind: only a and b
    assert got == ["exists i, j :: 0 <= i < a.Length && 0 <= j < b.Length && a[i] == b[j] && a[i] != 0"]


def test_exists_and_not_forall_literals_give_witnesses_at_the_ends_and_a_second_one():
    got = dict(pins("contains"))
    assert got["witness-last"] == "0 < a.Length && a[a.Length - 1] == x"
    assert got["two-witnesses"] == ("exists i, i' :: 0 <= i < a.Length && a[i] == x && "
                                    "(0 <= i' < a.Length && a[i'] == x) && i != i'")
    got = dict(pins("not_all_equal"))
    assert got["witness-last"] == "0 < |s| && !(s[|s| - 1] == s[0])"


def test_element_types_decide_the_generic_families():
    assert "sorted" in dict(pins("sorted_search"))  # the contract orders two elements of a
    assert "sorted" not in dict(pins("find_first"))
    chars = dict(pins("not_all_equal"))  # a string: ordered, no signs
    assert "descent" in chars and "mixed-signs" not in chars and "all-negative" not in chars
    assert pins("booleans") == []
    bits = dict(pins("bitvectors"))  # unsigned and ordered
    assert {"repeated", "descent", "ascent", "distinct", "constant"} <= set(bits)
    assert "mixed-signs" not in bits and "all-negative" not in bits
    assert dict(pins("sorted_search"))["mixed-signs"] == \
        "(exists i :: 0 <= i < |a| && a[i] < 0.0) && (exists j :: 0 <= j < |a| && a[j] > 0.0)"


def test_three_scalars_of_one_type_get_each_strict_ordering_above_zero_then_signs():
    got = pins("min_of_three")
    orders = [pin for family, pin in got if family == "order"]
    assert len(orders) == 6 and len(set(orders)) == 6
    assert "0 < y < x < z" in orders and "0 < x < z < y" in orders
    assert [f for f, _ in got] == ["order"] * 6 + ["negative"] * 3 + ["positive"] * 3
    assert ("negative", "y < 0") in got and ("positive", "z > 0") in got


def test_scalars_are_ordered_within_their_type_and_signed_where_the_type_has_signs():
    got = pins("scalar_types")
    orders = {pin for family, pin in got if family == "order"}
    # bitvectors are unsigned: above zero is nonzero; chars have no zero; one int, one nat (one group, a
    # subset type), a real and a newtype alone have no ordering; a ghost takes no part
    assert orders == {"0 < i < n", "0 < n < i", "0 < b < c", "0 < c < b", "ch < d", "d < ch"}
    assert {pin for family, pin in got if family == "negative"} == {"i < 0", "r < 0.0", "s < 0"}  # not n, b, c
    assert {pin for family, pin in got if family == "positive"} == {"i > 0", "n > 0", "r > 0.0", "b > 0", "c > 0",
                                                                     "s > 0"}
    assert not any("g" in pin.split() for _, pin in got)


def test_scalars_beside_a_collection_get_no_pins_of_their_own():
    assert not any(f in ("order", "negative", "positive") for f, _ in pins("find_first"))
    assert not any(f in ("order", "negative", "positive") for f, _ in pins("sorted_search"))


def test_more_scalars_than_permuted_are_each_pinned_least_and_greatest():
    c, part, types = partition_of("""method M(a: int, b: int, c: int, d: int) returns (o: int)
  ensures o == a""")
    got = [(x.family, print_expr(x.pin)) for x in candidates(c, part, types)]
    assert ("least", "0 < b && b < a && b < c && b < d") in got
    assert ("greatest", "0 < a && 0 < b && 0 < c && a < d && b < d && c < d") in got
    assert sum(f == "least" for f, _ in got) == 4 and sum(f == "greatest" for f, _ in got) == 4
    assert not any(f == "order" for f, _ in got)


def test_pins_of_an_array_changed_in_place_speak_of_its_input():
    got = dict(pins("in_place"))
    assert got["repeated"] == "|set i | 0 <= i < old(a).Length :: old(a)[i]| < old(a).Length"


@dataclass
class M:
    raw: dict


@pytest.mark.parametrize("pin, raw, is_new", [
    ("repeated", {"s": (1, 2, 1)}, False),
    ("repeated", {"s": (1, 2, 3)}, True),
    ("descent", {"s": (1, 2, 3)}, True),
    ("descent", {"s": (1, 3, 2)}, False),
    ("all-negative", {"s": (-1, -2)}, False),
    ("all-negative", {"s": (-1, 2)}, True),
    ("distinct", {"s": (5,)}, True),  # too short to count
    ("counted-last", {"s": (1, -1)}, True),
    ("counted-last", {"s": (-1, 1)}, False),
    ("count-inner", {"s": (1, 2, -1), "c": 2}, False),
    ("count-inner", {"s": (1, -1), "c": 1}, True),
    ("not-counted", {"s": (1, 2), "c": 2}, True),
    ("constant", {"s": (3, 3, 3)}, False),
    ("constant", {"s": (3, 3, 4)}, True),
    ("constant", {"s": (3,)}, True),  # too short to be alike
])
def test_a_pin_some_earlier_input_already_has_is_not_new(pin, raw, is_new):
    c, part, types = partition_of(CONTRACTS["count"])
    [cand] = [x for x in candidates(c, part, types) if x.family == pin]
    assert novel(cand.pin, [M(raw)]) is is_new


@pytest.mark.parametrize("pin, raw, is_new", [
    ("0 < y < x < z", {"x": 3, "y": 2, "z": 4}, False),
    ("0 < y < x < z", {"x": 2, "y": 2, "z": 4}, True),  # a tie is not the ordering
    ("0 < y < x < z", {"x": 3, "y": -100, "z": 4}, True),  # nor the same order through a negative boundary
    ("0 < y < x < z", {"x": 4, "y": 2, "z": 3}, True),
    ("x < 0", {"x": -1, "y": 2, "z": 2}, False),
    ("x < 0", {"x": 0, "y": -2, "z": 2}, True),
])
def test_an_ordering_or_sign_some_earlier_input_already_has_is_not_new(pin, raw, is_new):
    c, part, types = partition_of(CONTRACTS["min_of_three"])
    [cand] = [x for x in candidates(c, part, types) if print_expr(x.pin) == pin]
    assert novel(cand.pin, [M(raw)]) is is_new


@pytest.mark.parametrize("raw, is_new", [
    ({"a": (1, 2), "b": (3, 2), "s": ()}, False),
    ({"a": (0, 2), "b": (0, 3), "s": ()}, True),  # only 0 in both
    ({"a": (1,), "b": (), "s": ()}, True),
])
def test_a_shared_element_is_new_unless_both_held_a_nonzero_value(raw, is_new):
    c, part, types = partition_of(CONTRACTS["two_arrays"])
    [cand] = [x for x in candidates(c, part, types) if x.family == "shared-element"]
    assert novel(cand.pin, [M(raw)]) is is_new


def test_a_pin_that_cannot_be_evaluated_counts_as_new():
    prog = parse_program("""predicate P(x: int) { x > 0 }
method M(s: seq<int>) returns (b: bool)
  ensures exists i :: 0 <= i < |s| && P(s[i])""", "t.dfy")
    [c] = select(prog)
    part = PartitionSpec(1, (c.ensures[0].expr,), "", ())
    [last] = [x for x in candidates(c, part, TypeIndex.of(prog)) if x.family == "witness-last"]
    assert novel(last.pin, [M({"s": (1, 2)})])  # P(s[1]) holds, but only Dafny knows P
    assert novel(last.pin, [object()])  # a model without plain values


# ---------------------------------------------------------------- the schedule over a member


@dataclass
class StubSolver:
    """SAT for every pin but those listed."""

    unsat: set[str] = field(default_factory=set)
    checked: list[str] = field(default_factory=list)

    def check(self, constraints, budget=0):
        text = print_expr(constraints[-1])
        self.checked.append(text)
        return SolveResult.UNSAT if text in self.unsat else SolveResult.SAT


def states_of(text: str, count: int, solved: bool = True):
    c, part, types = partition_of(text)
    out = []
    for k in range(1, count + 1):
        p = PartitionSpec(k, part.literals, part.label, ())
        out.append(PartitionState(p, [ScenarioResult(1, ScenarioKind.BASE, None)], [M({}) if solved else None]))
    return c, out, types


def run_schedule(c, states, types, solver, **budget):
    solved = []

    def solve(state, sc, constraints):
        assert sc.kind is ScenarioKind.DIVERSE and sc.pin == print_expr(constraints[-1])
        state.scenarios.append(ScenarioResult(sc.id, sc.kind, sc.pin))
        solved.append((state.part.id, sc.id, sc.pin))
        return M({})

    tried = diversify(c, states, types, solver, solve, **budget)
    return solved, tried


def test_specific_candidates_go_round_robin_over_partitions_before_generic_ones_within_the_budget():
    c, states, types = states_of(CONTRACTS["find_first"], 2)
    solved, tried = run_schedule(c, states, types, StubSolver(), max_scenarios=5, max_attempts=10)
    first = [cand for cand in candidates(c, states[0].part, types)]
    specific = [print_expr(x.pin) for x in first if x.specific]
    assert [(p, pin) for p, _, pin in solved] == [(1, specific[0]), (2, specific[0]), (1, specific[1]),
                                                  (2, specific[1]), (1, specific[2])]
    assert [sid for p, sid, _ in solved if p == 1] == [2, 3, 4]  # ids continue the partition's scenarios
    assert tried == 5


def test_pins_the_partition_contradicts_cost_an_attempt_and_no_scenario():
    c, states, types = states_of(CONTRACTS["find_first"], 1)
    every = [print_expr(x.pin) for x in candidates(c, states[0].part, types)]
    solver = StubSolver(unsat=set(every[:3]))
    solved, tried = run_schedule(c, states, types, solver, max_scenarios=2, max_attempts=4)
    assert solver.checked == every[:4] and [pin for _, _, pin in solved] == every[3:4] and tried == 4


def test_a_partition_with_no_input_gets_no_diverse_scenario():
    c, states, types = states_of(CONTRACTS["find_first"], 1, solved=False)
    assert run_schedule(c, states, types, StubSolver()) == ([], 0)


def test_candidates_are_deterministic_and_distinct():
    c, part, types = partition_of(CONTRACTS["find_first"])
    once, again = candidates(c, part, types), candidates(c, part, types)
    assert once == again and len({x.pin for x in once}) == len(once)
    assert all(isinstance(x, Proposal) for x in once)


def test_a_witness_about_the_state_after_the_call_keeps_it_and_collections_are_read_before_it():
    prog = parse_program("""method Zero(a: array<int>)
  modifies a
  ensures exists k :: 0 <= k < a.Length && a[k] == 0""", "t.dfy")
    [c] = select(prog)
    part = PartitionSpec(1, (c.ensures[0].expr,), "", ())
    got = {cand.family: print_expr(cand.pin) for cand in candidates(c, part, TypeIndex.of(prog))}
    assert got["witness-last"] == "0 < a.Length && a[a.Length - 1] == 0"
    assert got["descent"] == "exists i :: 0 <= i < old(a).Length - 1 && old(a)[i] > old(a)[i + 1]"


def test_predicates_with_structure_are_looked_into_and_leaf_predicates_stay_calls():
    prog = parse_program("""predicate Found(a: seq<int>, x: int, i: int) { 0 <= i < |a| && a[i] == x }
predicate Small(v: int) { v < 10 }
method Find(a: seq<int>, x: int) returns (i: int)
  ensures Found(a, x, i)
  ensures exists k :: 0 <= k < |a| && Small(a[k])""", "t.dfy")
    [c] = select(prog)
    part = PartitionSpec(1, tuple(cl.expr for cl in c.ensures), "", ())
    got = {cand.family: print_expr(cand.pin) for cand in candidates(c, part, TypeIndex.of(prog), Functions.of(prog))}
    assert got["index-repeated-after"] == "0 <= i < |a| && (exists j :: i < j < |a| && a[j] == a[i])"
    assert got["witness-last"] == "0 < |a| && Small(a[|a| - 1])"
    plain = {cand.family for cand in candidates(c, part, TypeIndex.of(prog))}
    assert "index-repeated-after" not in plain


# ---------------------------------------------------------------- fields of datatype and tuple inputs


def test_a_records_scalar_fields_are_ordered_and_signed_like_inputs():
    got = pins("record_fields")
    assert [f for f, _ in got] == ["order", "order", "negative", "negative", "positive", "positive"]
    assert ("order", "0 < v.value < v'.value") in got and ("order", "0 < v'.value < v.value") in got
    assert ("negative", "v.value < 0") in got and ("positive", "v'.value > 0") in got
    assert not any(".g" in pin for _, pin in got)  # a ghost field takes no part


def test_a_records_sequence_field_gets_the_pins_of_an_input_sequence_and_its_index_uses():
    got = dict(pins("record_collection"))
    assert got["index-repeated-after"] == "0 <= k < |c.ids| && (exists j :: k < j < |c.ids| && c.ids[j] == c.ids[k])"
    assert got["index-inner"] == "0 < k < |c.ids| - 1"
    assert got["repeated"] == "|set i | 0 <= i < |c.ids| :: c.ids[i]| < |c.ids|"
    assert got["constant"] == "|c.ids| > 1 && (forall i :: 0 <= i < |c.ids| ==> c.ids[i] == c.ids[0])"
    # a collection among the fields: the scalars are left to the pins above, as beside an input collection
    assert not any(f in ("order", "negative", "positive") for f in got)


def test_fields_of_one_constructor_among_several_are_pinned_behind_its_test():
    got = pins("constructors")
    orders = [pin for f, pin in got if f == "order"]
    # k with the first constructor's field only: a value is never a Circle and a Rect at once
    assert orders == ["s.Circle? && 0 < k < s.r", "s.Circle? && 0 < s.r < k"]
    assert [pin for f, pin in got if f == "negative"] == ["k < 0", "s.Circle? && s.r < 0", "s.Rect? && s.w < 0",
                                                           "s.Rect? && s.h < 0"]


def test_a_tuples_components_are_ordered_within_their_type():
    got = pins("tuple")
    assert ("negative", "p.0 < 0") in got and ("positive", "p.0 > 0") in got
    assert not any(f == "order" for f, _ in got)  # an int and a char: no ordering between them


def test_the_fields_of_the_datatype_value_a_member_is_called_on_are_pinned_like_a_parameters():
    got = pins("receiver")
    assert ("order", "0 < this.hi < this.lo") in got and ("negative", "this.lo < 0") in got
    c, part, types = partition_of(CONTRACTS["receiver"])
    [cand] = [x for x in candidates(c, part, types) if print_expr(x.pin) == "this.lo < 0"]
    assert not novel(cand.pin, [M({"this": Data("Box", (-38, 0))})], types)
    assert novel(cand.pin, [M({"this": Data("Box", (0, 0))})], types)


def test_a_datatype_two_modules_declare_differently_is_not_looked_into():
    text = """module A { datatype V = V(x: int) }
module B { datatype V = V(y: int, z: int) }
module C { import opened B
  method M(v: V) returns (r: int) ensures r == 0 }"""
    c, part, types = partition_of(text)
    assert candidates(c, part, types) == []
    alike = text.replace("V(y: int, z: int)", "V(x: int)")
    c, part, types = partition_of(alike)
    assert [print_expr(x.pin) for x in candidates(c, part, types)] == ["v.x < 0", "v.x > 0"]


@pytest.mark.parametrize("name, pin, raw, is_new", [
    ("record_fields", "v.value < 0", {"v": Data("Variables", (-1, 0)), "v'": Data("Variables", (0, 0))}, False),
    ("record_fields", "v.value < 0", {"v": Data("Variables", (3, 0)), "v'": Data("Variables", (-1, 0))}, True),
    ("record_fields", "0 < v.value < v'.value", {"v": Data("Variables", (1, 0)), "v'": Data("Variables", (2, 0))},
     False),
    ("constructors", "s.Rect? && s.h < 0", {"s": Data("Rect", (1, -2)), "k": 0}, False),
    ("constructors", "s.Rect? && s.h < 0", {"s": Data("Circle", (-2,)), "k": 0}, True),
    ("constructors", "s.Rect? && s.h < 0", {"s": Data("?", ()), "k": 0}, True),  # a value the solver could not read
    ("tuple", "p.0 > 0", {"p": (3, 97)}, False),
    ("tuple", "p.0 > 0", {"p": (0, 97)}, True),
])
def test_a_field_pin_some_earlier_input_already_has_is_not_new(name, pin, raw, is_new):
    c, part, types = partition_of(CONTRACTS[name])
    [cand] = [x for x in candidates(c, part, types) if print_expr(x.pin) == pin]
    assert novel(cand.pin, [M(raw)], types) is is_new


def test_without_the_types_a_field_of_a_datatype_value_cannot_be_read_and_the_pin_counts_as_new():
    c, part, types = partition_of(CONTRACTS["record_fields"])
    [cand] = [x for x in candidates(c, part, types) if print_expr(x.pin) == "v.value < 0"]
    assert novel(cand.pin, [M({"v": Data("Variables", (-1, 0))})])


def test_a_partition_that_rules_a_constructor_out_gets_no_pins_on_its_fields():
    rect = CONTRACTS["constructors"] + "\n  requires s.Rect?"
    got = pins_of(rect)
    # Rect's fields take the orderings Circle's had, with k: each of the six; no pin reads s.r
    assert sum(f == "order" for f, _ in got) == 6 and ("order", "s.Rect? && 0 < s.h < k < s.w") in got
    assert not any("s.r" in pin or "Circle" in pin for _, pin in got)
    assert not any("Circle" in pin for _, pin in pins_of(CONTRACTS["constructors"] + "\n  requires !s.Circle?"))
    assert any("Circle" in pin for _, pin in pins_of(CONTRACTS["constructors"] + "\n  requires !s.Rect?"))


def pins_of(text: str) -> list[tuple[str, str]]:
    c, part, types = partition_of(text)
    return [(x.family, print_expr(x.pin)) for x in candidates(c, part, types)]

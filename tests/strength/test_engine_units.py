"""The engine's choices that need no Dafny: which mutants within the cap, the line a finding shows, and
the clause hint."""

from dspec2test.dafny.parser import parse_program
from dspec2test.model.contracts import select
from dspec2test.strength.differ import Difference
from dspec2test.strength.engine import choose, mutated_line, ruling_clause, unmeasurable
from dspec2test.strength.mutate import Edit, Mutant


def mutant(i: int, start: int) -> Mutant:
    return Mutant(i, "ROR", 1, Edit(start, start + 1, "x"), "a", "x")


def test_the_cap_spreads_over_the_code() -> None:
    ms = [mutant(i + 1, (i // 3) * 10) for i in range(30)]  # 10 places, 3 mutants each
    chosen = choose(ms, 10)
    assert len(chosen) == 10
    assert len({m.edit.start for m in chosen}) == 10  # one per place before a second anywhere
    assert [m.id for m in chosen] == sorted(m.id for m in chosen)
    few = choose(ms, 4)
    starts = sorted(m.edit.start for m in few)
    assert len(set(starts)) == 4 and starts[0] == 0 and starts[-1] >= 50  # far apart
    assert choose(ms, 100) == ms
    assert len(choose(ms, 25)) == 25 and choose(ms, 25) == choose(ms, 25)


def test_the_mutated_line() -> None:
    text = "method M() {\n  r := a + b;  \n}\n"
    start = text.index("a + b")
    m = Mutant(1, "AOR", 2, Edit(start, start + 5, "a - b"), "a + b", "a - b")
    assert mutated_line(text, m) == ("r := a + b;", "r := a - b;")


def contract(text: str, name: str):
    return next(c for c in select(parse_program(text, "c.dfy")) if c.name == name)


def diff(original: dict, mutated: dict) -> Difference:
    return Difference(1, "t", {"a": "1"}, original, mutated)


def test_the_clause_hint() -> None:
    text = """
method NoEnsures(a: int) returns (r: int) requires a > 0 { r := a; }
method Loose(a: int) returns (r: int, s: int) ensures r >= a { r := a; s := 0; }
method Bound(a: int) returns (r: int) ensures r >= a && r < a + 10 { r := a; }
method Pinned(a: int) returns (r: int) ensures a > 0 ==> r == a { r := a; }
"""
    assert "has no ensures" in ruling_clause(contract(text, "NoEnsures"), diff({"r": "1"}, {"r": "2"}))
    assert ruling_clause(contract(text, "Loose"), diff({"r": "1", "s": "0"}, {"r": "1", "s": "1"})) == \
        "no ensures constrains s"
    bound = ruling_clause(contract(text, "Bound"), diff({"r": "1"}, {"r": "2"}))
    assert bound.startswith("the ensures only bound r") and "line 4" in bound
    assert ruling_clause(contract(text, "Pinned"), diff({"r": "1"}, {"r": "2"})) is None  # not plain
    assert ruling_clause(contract(text, "Bound"), diff({"r": "1"}, {"(end)": "crashed"})) is None


def test_what_is_not_measured() -> None:
    text = """
method NoContract(x: int) returns (r: int) { r := x; }
method {:extern} Ext(x: int) returns (r: int) ensures r > x
function Spec(x: int): int requires x >= 0 { x + 1 }
function WithEnsures(x: int): int ensures WithEnsures(x) > x { x + 1 }
lemma L(x: int) ensures x + 0 == x {}
method NoBody(x: int) returns (r: int) ensures r > x
method Fine(x: int) returns (r: int) ensures r > x { r := x + 1; }
"""
    program = parse_program(text, "u.dfy")
    why = {c.name: unmeasurable(c) for c in select(program, ("NoContract", "Ext", "Spec", "WithEnsures", "L",
                                                           "NoBody", "Fine"))}
    assert why["NoContract"] == "no contract" and "extern" in why["Ext"] and "body is its specification" in why["Spec"]
    assert why["L"].startswith("ghost") and why["NoBody"] == "no body"
    assert why["WithEnsures"] == "" and why["Fine"] == ""

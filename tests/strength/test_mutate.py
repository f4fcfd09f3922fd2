"""Mutants made on the AST: which code they touch, how a replacement is printed in place, and that every
mutated program still parses."""

from pathlib import Path

import pytest

from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.strength.copies import splice
from dspec2test.strength.mutate import Mutant, mutants

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = Path(__file__).parents[2] / "examples"


def member_mutants(text: str, name: str) -> list[Mutant]:
    program = parse_program(text, "m.dfy")
    member = dict(iter_members(program))[name]
    return mutants(member, program, text)


def changes(ms: list[Mutant]) -> set[tuple[str, str, str]]:
    return {(m.operator, m.before, m.after) for m in ms}


def test_each_operator_on_the_papers_example() -> None:
    ms = member_mutants((EXAMPLES / "conditional_get.dfy").read_text(), "ConditionalGet")
    got = changes(ms)
    assert ("NEG", "x < 0", "!(x < 0)") in got
    assert ("ROR", "x < 0", "x <= 0") in got and ("ROR", "x >= |s|", "x > |s|") in got
    assert ("CONST", "0", "1") in got and ("CONST", "0", "-1") in got
    assert ("SDL", "r := s[x];", "") in got
    assert ("RVR", "s[x]", "0") in got and ("RVR", "s[x]", "s[x] + 1") in got
    assert [m.id for m in ms] == list(range(1, len(ms) + 1))
    assert len({(m.edit.start, m.edit.end, m.edit.text) for m in ms}) == len(ms)  # no change twice


def test_arithmetic_and_logic() -> None:
    text = """method M(x: int, y: int, b: bool) returns (r: int, c: bool)
{
  r := x - y * 2;
  c := b && x / y > 0;
}"""
    got = changes(member_mutants(text, "M"))
    assert ("AOR", "x - y * 2", "x + y * 2") in got
    # a replacement that binds less tightly than its place gets parentheses: x - (y + 2), not x - y + 2
    assert ("AOR", "y * 2", "(y + 2)") in got and ("AOR", "y * 2", "(y / 2)") in got
    assert ("LOR", "b && x / y > 0", "b || x / y > 0") in got
    assert ("AOR", "x / y", "(x * y)") in got and ("AOR", "x / y", "(x % y)") in got
    assert ("RVR", "b && x / y > 0", "true") in got and ("RVR", "b && x / y > 0", "false") in got


def test_parentheses_in_the_source_are_kept() -> None:
    got = changes(member_mutants("method M(n: int) returns (r: int) { r := (n + 1) * 2; }", "M"))
    assert ("AOR", "(n + 1)", "(n - 1)") in got


def test_ghost_code_is_left_alone() -> None:
    text = (FIXTURES / "shapes.dfy").read_text()
    ms = member_mutants(text, "Counter.Bump")
    lines = text.splitlines()
    touched = {lines[m.line - 1].strip() for m in ms}
    assert not any(t.startswith(("Helper(", "assert", "ghost var")) for t in touched)
    fill = member_mutants(text, "Fill")
    assert not any("invariant" in lines[m.line - 1] for m in fill)
    assert member_mutants(text, "Helper") == []  # a lemma has no compiled code


def test_a_functions_returned_values() -> None:
    got = changes(member_mutants((FIXTURES / "shapes.dfy").read_text(), "Fact"))
    assert ("RVR", "n * Fact(n - 1)", "0") in got and ("RVR", "1", "0") in got
    assert ("AOR", "n * Fact(n - 1)", "n + Fact(n - 1)") in got
    assert ("NEG", "n == 0", "!(n == 0)") in got


def test_comparisons_of_non_numbers_only_flip_equality() -> None:
    got = changes(member_mutants("method M(s: seq<int>, t: seq<int>) returns (b: bool) { b := s == t; }", "M"))
    assert ("ROR", "s == t", "s != t") in got
    assert not any(op == "ROR" and after in ("s <= t", "s >= t") for op, _, after in got)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.dfy")) + [EXAMPLES / "conditional_get.dfy"],
                         ids=lambda p: p.name)
def test_every_mutated_program_parses(path: Path) -> None:
    text = path.read_text()
    program = parse_program(text, str(path))
    for _, member in iter_members(program):
        for m in mutants(member, program, text):
            parse_program(splice(text, [m.edit]), str(path))  # raises on a printing slip


def test_parentheses_right_after_a_keyword_stay() -> None:
    text = "method M(n: int) returns (r: int) { var i := 0; while(i < n) decreases n - i { i := i + 1; } return(i); }"
    ms = member_mutants(text, "M")
    assert ("ROR", "(i < n)", "(i <= n)") in changes(ms)
    assert ("RVR", "(i)", "(0)") in changes(ms)
    for m in ms:
        parse_program(splice(text, [m.edit]), "m.dfy")


def test_real_constants() -> None:
    got = changes(member_mutants("method M(x: real) returns (r: real) { r := x + 0.5; }", "M"))
    assert ("CONST", "0.5", "1.5") in got and ("CONST", "0.5", "-0.5") in got

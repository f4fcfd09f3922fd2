"""The program of copies: one renamed copy of the member per mutant, uses of itself renamed inside each."""

from pathlib import Path

from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.strength.copies import CONTROL, build, copy_name, member_copy
from dspec2test.strength.mutate import mutants

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_copy_renames_the_member_and_its_uses_of_itself() -> None:
    path = FIXTURES / "shapes.dfy"
    text = path.read_text()
    program = parse_program(text, str(path))
    fact = dict(iter_members(program))["Fact"]
    aor = next(m for m in mutants(fact, program, text) if m.after == "n + Fact(n - 1)")
    copy = member_copy(text, fact, "Fact_k", aor)
    assert copy.startswith("function Fact_k(n: nat): nat")
    assert "ensures Fact_k(n) >= 1" in copy  # the function's ensures about itself
    assert "n + Fact_k(n - 1)" in copy  # the recursive call inside the mutated code
    assert "Fact(" not in copy
    same = member_copy(text, fact, "Fact_k", None)
    assert same == text[fact.span.start:fact.span.end].replace("Fact", "Fact_k")


def test_the_copies_program_parses_and_maps_lines_to_copies(tmp_path: Path) -> None:
    path = FIXTURES / "shapes.dfy"
    text = path.read_text()
    program = parse_program(text, str(path))
    bump = dict(iter_members(program))["Counter.Bump"]
    chosen = mutants(bump, program, text)[:3]
    copies = build(program, bump, chosen)
    assert [p.key for p in copies.placed] == [CONTROL] + [m.id for m in chosen]
    parsed = parse_program(copies.text, str(tmp_path / "shapes.dfy"))
    names = dict(iter_members(parsed))
    for placed in copies.placed:
        member = names[f"Counter.{placed.name}"]
        assert (member.span.line, member.span.end_line) == (placed.line, placed.end_line)
        assert copies.owner(placed.line) == placed
        assert placed.name == copy_name("Bump", placed.key)
    assert copies.owner(1) is None
    # the file can be written elsewhere: its include is absolute now
    assert parsed.includes[0].path == str((FIXTURES / "weak.dfy").resolve())
    # the copies sit in the class, after the member; the text before it is unchanged but for the include
    assert copies.text.index("Bump_dspec2test_m0") > copies.text.index("method Bump(")

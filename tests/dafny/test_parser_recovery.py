"""Recovery at declaration level: a declaration the parser cannot read is skipped to the next declaration
of its module, class or file and kept as an `Unreadable` with its name, extent and error; every other
declaration is read, at its own place and span."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import ParseError, iter_members, iter_unreadable, parse_program
from parse_helpers import pos

# `~~~` is no Dafny at all: whatever the grammar learns, these declarations stay unreadable
MODULE = """module M {
  method Before(x: int) returns (r: int)
    ensures r == x
  { r := x; }

  ghost method {:axiom} Broken(x: int) returns (r: int)
    ensures r == x ~~~ 2
  {
    r := x;
  }

  function After(x: int): int { x + 1 }
}
"""


def read(src: str) -> A.Program:
    return parse_program(src, "a.dfy", recover=True)


def test_a_declaration_in_the_middle_of_a_module_is_skipped_and_the_others_read() -> None:
    prog = read(MODULE)
    (module,) = prog.decls
    before, broken, after = module.decls
    assert isinstance(before, A.Method) and isinstance(after, A.Function)
    assert isinstance(broken, A.Unreadable)
    assert (broken.kind, broken.name, broken.ghost) == ("method", "Broken", True)
    assert pos(broken) == (6, 3, 10, 4)  # from `ghost` to its closing brace
    assert (broken.error_line, broken.error_col) == (7, 20) and "'~'" in broken.message
    # the declarations after it keep their exact places
    assert pos(after) == (12, 3, 12, 40) and after.body == A.BinOp("+", A.Name("x"), A.IntLit(1, "1"))
    assert [n for n, _ in iter_members(prog)] == ["M.Before", "M.After"]
    assert [n for n, _ in iter_unreadable(prog)] == ["M.Broken"]


def test_without_recovery_the_file_is_still_one_error() -> None:
    with pytest.raises(ParseError) as info:
        parse_program(MODULE, "a.dfy")
    assert (info.value.line, info.value.col) == (7, 20)


def test_top_level_declarations_around_an_unreadable_one() -> None:
    prog = read("datatype D = A | B\nlemma Top() ensures ~~~ true\nmethod Last(n: nat) returns (m: nat)\n"
                "  ensures m == n\n{ m := n; }\n")
    d, top, last = prog.decls
    assert isinstance(d, A.Datatype) and isinstance(last, A.Method) and last.name == "Last"
    assert (top.kind, top.name, pos(top)) == ("lemma", "Top", (2, 1, 2, 29))


def test_a_class_member_is_skipped_and_its_class_kept() -> None:
    prog = read("class C {\n  var f: int\n  method Odd() modifies this { f := f ~~~ 2; }\n"
                "  method Fine(y: int) returns (z: int) ensures z == y { z := y; }\n}\n")
    (c,) = prog.decls
    assert isinstance(c, A.ClassDecl) and pos(c) == (1, 1, 5, 2)
    field, odd, fine = c.members
    assert isinstance(field, A.Field) and isinstance(fine, A.Method)
    assert (odd.kind, odd.name) == ("method", "Odd")
    assert [n for n, _ in iter_unreadable(prog)] == ["C.Odd"]


def test_an_unreadable_body_refuses_its_member_only() -> None:
    prog = read("method A(x: int) returns (r: int)\n  ensures r == x\n{\n  r := x;\n  frobnicate r;\n}\n"
                "method B() { }\n")
    a, b = prog.decls
    assert (a.kind, a.name, a.error_line) == ("method", "A", 5) and isinstance(b, A.Method)


def test_an_unreadable_clause_refuses_its_member_only() -> None:
    prog = read("function F(x: int): int\n  requires x ~~~ 0\n{ x }\nfunction G(x: int): int { x }\n")
    f, g = prog.decls
    assert (f.kind, f.name, f.error_line) == ("function", "F", 2) and isinstance(g, A.Function)


def test_a_declaration_that_does_not_end_is_the_one_skipped() -> None:
    """The parser stops at the next declaration's first word: the one before it did not end."""
    prog = read("method A()\n  ensures 1 <\nmethod B() { }\n")
    a, b = prog.decls
    assert (a.kind, a.name, pos(a)) == ("method", "A", (1, 1, 2, 14)) and isinstance(b, A.Method)
    assert (a.error_line, a.error_col) == (3, 8) and a.message.startswith("unexpected 'B'")


def test_a_class_whose_header_cannot_be_read_is_skipped_whole() -> None:
    prog = read("class Bad<T(~~~)> {\n  method M() { }\n}\nmethod N() { }\n")
    bad, n = prog.decls
    assert (bad.kind, bad.name, pos(bad)) == ("class", "Bad", (1, 1, 3, 2)) and isinstance(n, A.Method)


def test_attributes_and_modifiers_belong_to_the_declaration_skipped() -> None:
    prog = read("method A() { }\n@IsolateAssertions\nstatic ghost function {:opaque} F(): int { ~~~ }\n"
                "method B() { }\n")
    a, f, b = prog.decls
    assert (f.kind, f.name, f.ghost, pos(f)[:2]) == ("function", "F", True, (2, 1))
    assert isinstance(a, A.Method) and isinstance(b, A.Method) and not b.attributes


def test_several_unreadable_declarations_and_a_transform_error() -> None:
    prog = read("function F(): int { (1, 2) => 3 }\nmethod Ok() { }\nmethod Bad() { x := ~~~; }\n")
    f, ok, bad = prog.decls
    assert f.message == "lambda parameter must be a name" and (f.kind, f.name) == ("function", "F")
    assert isinstance(ok, A.Method) and bad.name == "Bad"


def test_strings_and_comments_do_not_move_the_boundaries() -> None:
    prog = read('method A() { print "method }{ B"; /* } method C() */ x := ~~~; }\nmethod D() { }\n')
    a, d = prog.decls
    assert a.name == "A" and pos(a) == (1, 1, 1, 65) and d.name == "D"


def test_what_cannot_be_blamed_on_a_declaration_is_the_file_error() -> None:
    with pytest.raises(ParseError):
        read("method A() { }\n}\n}\n")


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PROGRAMS = ["functions/parser.dfy", "model/trait_chain.dfy", "model/built_sets.dfy", "witness/machine.dfy",
            "model/qualified_constraints.dfy", "witness/views.dfy", "model/lambdas.dfy"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_any_member_made_unreadable_is_the_only_one_skipped(name: str) -> None:
    """Each member in turn gets something no grammar reads after its name: recovery skips that member and
    reads every other one as the intact file has it."""
    text = (FIXTURES / name).read_text()
    members = list(iter_members(parse_program(text, name)))
    assert len(members) > 2
    for qualified, member in members:
        at = member.name_span.end or text.index("(", member.span.start)  # an anonymous constructor's
        broken = parse_program(text[:at] + " ~~~ " + text[at:], name, recover=True)
        assert [n for n, _ in iter_unreadable(broken)] == [qualified]
        assert dict(iter_members(broken)) == {n: m for n, m in members if n != qualified}

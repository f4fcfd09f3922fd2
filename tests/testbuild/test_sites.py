"""Which ghost declarations the test build may lift, and the text it makes of them: found by the parser's
spans, edited so that every line and column stays where the user wrote it."""

from __future__ import annotations

from dataclasses import replace

from dspec2test.dafny.parser import parse_program
from dspec2test.model.refine import stamped
from dspec2test.testbuild.edits import edited
from dspec2test.testbuild.record import TestBuild
from dspec2test.testbuild.sites import SiteKind, sites_of
from dspec2test.testbuild.version import lifted_text
from dspec2test.testbuild.view import lifted_view

PROGRAM = """module M {
  datatype P = P(ghost start: int, len: nat)
  class C {
    var n: int
    ghost var Contents: seq<int>, Size: nat
    ghost const K: int := 3
    ghost predicate Valid() reads this { Size == |Contents| }
    ghost function Twice(x: int): int { 2 * x }
    ghost function NoBody(x: int): int
    twostate predicate Grew() reads this { old(n) <= n }
    lemma L() ensures true {}
    method Put(x: int) modifies this {
      ghost var before := Contents;
      ghost var steps := n;
      Contents := before + [x];
      n := n + 1;
    }
    ghost method G() modifies this { ghost var y := 1; }
  }
  trait T { ghost predicate Inv() reads this }
}
"""


def _sites(text: str, syntax: int = 4):
    program = parse_program(text, "p.dfy")
    return sites_of(replace(program, decls=stamped(program.decls, "p.dfy", syntax)), syntax)


def test_every_liftable_kind_is_found_and_nothing_else():
    found = {(s.names, s.kind) for s in _sites(PROGRAM)}
    assert found == {
        (("M.P.P.start",), SiteKind.CTOR_PARAM),
        (("M.C.Contents", "M.C.Size"), SiteKind.FIELD),  # one `ghost` word declares both
        (("M.C.K",), SiteKind.CONST),
        (("M.C.Valid",), SiteKind.FUNCTION),
        (("M.C.Twice",), SiteKind.FUNCTION),
        (("M.C.Put.before",), SiteKind.LOCAL),
        (("M.T.Inv",), SiteKind.FUNCTION),  # a trait's: its classes give the body
    }  # not NoBody (no body, not in a trait), Grew (twostate), L (lemma), G's local (a ghost method), nor
    # Put's steps, from which no ghost field is assigned: compiled, it would only cost run time


def test_the_edit_blanks_the_word_and_keeps_every_position():
    text = edited(PROGRAM, _sites(PROGRAM))
    assert len(text) == len(PROGRAM)
    assert text.splitlines()[4] == "          var Contents: seq<int>, Size: nat"
    assert "ghost function NoBody" in text and "ghost method G" in text and "ghost var y" in text
    assert [len(line) for line in text.splitlines()] == [len(line) for line in PROGRAM.splitlines()]


def test_function_syntax_3_makes_a_function_a_function_method():
    text = "function F(x: int): int { x + 1 }\nfunction method G(x: int): int { x }\npredicate P() { true }\n"
    sites = _sites(text, 3)
    assert [s.names for s in sites] == [("F",), ("P",)]
    assert edited(text, sites).splitlines() == ["function method F(x: int): int { x + 1 }",
                                               "function method G(x: int): int { x }",
                                               "predicate method P() { true }"]
    assert _sites(text, 4) == []  # Dafny 4: a plain function is compiled already


def test_a_modules_options_choose_its_function_syntax():
    text = 'module {:options "--function-syntax:3"} A { function F(): int { 1 } }\nmodule B { function G(): int { 2 } }\n'
    assert [s.names for s in _sites(text)] == [("A.F",)]


def test_the_view_marks_only_what_was_lifted():
    program = parse_program(PROGRAM, "p.dfy")
    sites = [s for s in sites_of(program) if s.names in (("M.C.Valid",), ("M.C.Contents", "M.C.Size"))]
    build = TestBuild(lifted=frozenset(n for s in sites for n in s.names), sites=frozenset(s.key for s in sites))
    view = lifted_view(program, build)
    cls = view.decls[0].decls[1]
    marked = {d.name: d.lifted for d in cls.members if hasattr(d, "lifted")}
    assert marked == {"n": False, "Contents": True, "Size": True, "K": False, "Valid": True, "Twice": False,
                      "NoBody": False, "Grew": False}
    assert all(d.ghost for d in cls.members if getattr(d, "lifted", False))  # still ghost as written
    valid = next(d for d in cls.members if getattr(d, "name", "") == "Valid")
    assert not valid.ghost_in_tests


def test_a_mutant_is_lifted_by_name_as_the_original_was():
    sites = [s for s in _sites(PROGRAM) if s.names == ("M.C.Valid",)]
    build = TestBuild(lifted=frozenset({"M.C.Valid"}), sites=frozenset(s.key for s in sites))
    mutant = PROGRAM.replace("n := n + 1;", "n := n + 2;").replace("module M {", "module M {\n  // a new line")
    got = lifted_text(mutant, "p.dfy", build)
    assert "          predicate Valid()" in got and "ghost var Contents" in got and "n := n + 2;" in got
    assert lifted_text("this is not Dafny", "p.dfy", build) == "this is not Dafny"

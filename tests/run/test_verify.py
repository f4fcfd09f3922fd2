from pathlib import Path

import pytest

from dspec2test.dafny import ast
from dspec2test.run.diagnostics import build_errors
from dspec2test.dafny.parser import parse_program
from dspec2test.run.verify import (
    MemberSpan, VerifyError, clause_texts, member_spans, source_facts, select_unverified, unverified_members, verification_failures,
)

FIX = Path(__file__).parent / "fixtures"


def span(line: int, end_line: int) -> ast.Span:
    return ast.Span(line, 1, end_line, 2)


def method(name: str, line: int, end_line: int, *attrs: str) -> ast.Method:
    return ast.Method("method", name, (), (), ast.Spec(), None,
                      attributes=tuple(ast.Attribute(a) for a in attrs), span=span(line, end_line))


def function(name: str, line: int, end_line: int) -> ast.Function:
    return ast.Function("function", name, (), None, ast.Spec(), None, span=span(line, end_line))


# The declarations of fixtures/unverified.dfy, as the parser gives them.
PROGRAM = ast.Program("unverified.dfy", (), (
    ast.Module("M", (
        method("Good", 2, 6), method("Bad", 8, 12),
        ast.ClassDecl("class", "C", (method("Entry", 15, 19, "testEntry"), function("Worse", 21, 25)),
                      span=span(14, 26)),
    ), span=span(1, 27)),
    method("Top", 29, 33),
))


def test_member_spans_are_qualified() -> None:
    assert list(member_spans(PROGRAM)) == [
        MemberSpan("M.Good", 2, 6, False), MemberSpan("M.Bad", 8, 12, False),
        MemberSpan("M.C.Entry", 15, 19, True), MemberSpan("M.C.Worse", 21, 25, False), MemberSpan("Top", 29, 33, False),
    ]


def test_failures_of_recorded_dafny_verify_select_members_and_test_entries() -> None:
    failures = list(build_errors((FIX / "verify_unverified.out").read_text()))
    assert len(failures) == 3  # `Related location` lines are not failures
    chosen = select_unverified(list(member_spans(PROGRAM)), failures, "unverified.dfy")
    assert chosen == ["Top", "M.Bad", "M.C.Worse", "M.C.Entry"]


def test_failures_in_other_files_are_ignored() -> None:
    failures = [d for d in build_errors((FIX / "verify_unverified.out").read_text())]
    assert select_unverified(list(member_spans(PROGRAM)), failures, "other.dfy") == ["M.C.Entry"]


@pytest.mark.dafny
def test_dafny_verify_failures_to_members(tmp_path: Path) -> None:
    (tmp_path / "unverified.dfy").write_text((FIX / "unverified.dfy").read_text())
    assert sorted(d.line for d in verification_failures(tmp_path / "unverified.dfy")) == [10, 24, 32]
    assert unverified_members(tmp_path / "unverified.dfy") == ["Top", "M.Bad", "M.C.Worse", "M.C.Entry"]


def test_member_spans_from_the_parser_match() -> None:
    parsed = parse_program((FIX / "unverified.dfy").read_text(), "unverified.dfy")
    assert list(member_spans(parsed)) == list(member_spans(PROGRAM))


def test_unparsable_program_is_a_verify_error(tmp_path: Path) -> None:
    (tmp_path / "bad.dfy").write_text("method M( {")
    with pytest.raises(VerifyError, match="bad.dfy:1"):
        unverified_members(tmp_path / "bad.dfy")


def test_clause_texts_by_line() -> None:
    texts = clause_texts(FIX / "prog.dfy")
    assert texts[3] == "n >= 0" and texts[16] == "x >= 0 ==> r == x"
    assert clause_texts(FIX / "missing.dfy") == {}


def test_source_facts_list_each_members_assume_statements(tmp_path: Path) -> None:
    (tmp_path / "p.dfy").write_text("""module M {
  method Bar(x: int) returns (r: int)
    ensures r == x
  {
    r := *;
    assume r == x;
    if x > 0 { assume {:axiom} r > 0; }
  }
  method Ok(x: int) returns (r: int) ensures r == x { assert true; r := x; }
}
""")
    facts = source_facts(tmp_path / "p.dfy")
    assert facts.assumes == {"M.Bar": (6, 7)}
    assert facts.clauses[3] == "r == x"

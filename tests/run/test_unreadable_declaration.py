"""A program with one declaration our parser cannot read: Dafny reads it, so the program builds, the other
members are tested and their planted bug is caught, and the unreadable declaration is one located
refusal (a not-tested verdict with the reason, one diagnostic), never the whole file's."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.dafny.parser import ParseError, iter_unreadable, parse_program
from dspec2test.errors import Severity
from dspec2test.generate import GenerateOptions
from dspec2test.pipeline import run_program
from dspec2test.records import Status
from dspec2test.run import RunOptions

# Compiled members in Dafny 4.11 syntax the parser did not read when this test was written. The test takes
# the first one it still cannot read: once the grammar learns them all, add another (the test says so).
CANDIDATES = [
    # a set display as an if-statement's guard (read as an alternative `if { case ... }`)
    "method Pick(b: bool) returns (r: int)\n  ensures r == 1\n{\n  if {1, 2} <= {1, 2, 3} { r := 1; } else { r := 0; }\n}\n",
    # a set display as a loop guard
    "method Pick(s0: set<int>) returns (r: int)\n  ensures r == 1\n{\n  var s := s0;\n  while {} != s\n"
    "    decreases s\n  {\n    var x :| x in s;\n    s := s - {x};\n  }\n  r := 1;\n}\n",
]

PROGRAM = """method Abs(x: int) returns (r: int)
  ensures r >= 0
  ensures r == x || r == -x
{
  if x < 0 { r := x; } else { r := x; }
}

{unreadable}
method Twice(x: int) returns (r: int)
  ensures r == 2 * x
{
  r := x + x;
}
"""


def _unreadable_member() -> str:
    for text in CANDIDATES:
        try:
            parse_program(text, "candidate.dfy")
        except ParseError:
            return text
    pytest.fail("the parser reads every candidate now: add a construct it cannot read to CANDIDATES")


@pytest.mark.dafny
def test_the_other_members_are_tested_and_the_unreadable_one_is_one_refusal(tmp_path: Path) -> None:
    program = tmp_path / "program.dfy"
    program.write_text(PROGRAM.replace("{unreadable}", _unreadable_member()))
    [(name, skipped)] = iter_unreadable(parse_program(program.read_text(), str(program), recover=True))
    assert name == "Pick" and skipped.span.line == 8

    tested = run_program(str(program), GenerateOptions(), RunOptions(target="py", timeout_s=120))
    verdicts = tested.result.verdicts
    by_member: dict[str, set[Status]] = {}
    for v in verdicts:
        by_member.setdefault(v.method, set()).add(v.status)
    assert Status.FAILED in by_member["Abs"]  # the planted bug is caught
    assert by_member["Twice"] == {Status.PASSED}
    [refusal] = [v for v in verdicts if v.method == "Pick"]
    assert refusal.status is Status.NOT_TESTED and refusal.member_line == 8
    assert "cannot read method Pick (lines 8-" in refusal.message
    [diagnostic] = [d for d in tested.diagnostics if "Pick" in d.message]
    assert diagnostic.severity is Severity.UNSUPPORTED and diagnostic.line == skipped.error_line
    assert not tested.parse_error

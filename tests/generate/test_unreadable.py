"""Declarations the parser skips (dafny/recover.py) in generation: each is one refusal, located; a member
that uses one is refused with the reason ("cannot read the declaration of X at file:line"), not with an
"unknown" name; every other member gets its tests."""

from __future__ import annotations

from pathlib import Path

from dspec2test.action.affected import affected_members
from dspec2test.action.diff import ChangeKind, FileChange
from dspec2test.action.members import read_members
from dspec2test.errors import Severity
from dspec2test.generate import GenerateOptions, generate
from dspec2test.pipeline import untested

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "unreadable" / "uses.dfy"


def test_each_unreadable_declaration_is_one_refusal_and_its_users_say_why():
    got = generate(str(FIXTURE), GenerateOptions())
    members = {m.name: m for m in got.members}
    # the skipped declarations, in the file's order among the members read
    assert [m.name for m in got.members] == ["Weight", "Shape", "Counter.Limit", "Counter._ctor", "Heavier", "Area",
                                             "Below", "Plain"]
    for name, line in (("Weight", 2), ("Shape", 6), ("Counter.Limit", 10)):
        [limitation] = members[name].unsupported
        assert limitation.construct == "unreadable declaration" and limitation.line == line
        assert f"cannot read {members[name].kind} {name.split('.')[-1]} (lines {line}-" in limitation.message
    refusals = [d for d in got.diagnostics if d.message.startswith("dspec2test cannot read")]
    assert [(d.line, d.severity) for d in refusals] == [(3, Severity.UNSUPPORTED), (6, Severity.UNSUPPORTED),
                                                        (10, Severity.UNSUPPORTED)]  # once each, where it stopped
    # what uses them: refused with the reason, at the use
    uses = {"Heavier": ("function Weight", 2), "Area": ("datatype Shape", 6), "Below": ("function Limit", 10)}
    for name, (what, line) in uses.items():
        [limitation] = members[name].unsupported
        assert limitation.message == f"cannot read the declaration of {what} at {FIXTURE}:{line}", limitation
    # the rest is tested: a clause over a function Dafny reads and we do not is still checked when the test
    # runs (its member is tested on inputs solved without it); an input of a type we cannot read is not
    assert {tc.method for tc in got.cases} == {"Counter._ctor", "Heavier", "Below", "Plain"}
    verdicts = {v.method: v for v in untested(got)}
    assert set(verdicts) == {"Weight", "Shape", "Counter.Limit", "Area"}
    assert "cannot read the declaration of datatype Shape" in verdicts["Area"].message
    assert not any("unknown" in d.message for d in got.diagnostics)


def test_a_change_of_an_unreadable_declaration_selects_it(tmp_path):
    text = FIXTURE.read_text()
    members, diagnostics = read_members("uses.dfy", text)
    assert not diagnostics
    found = {m.name: m for m in members}
    assert found["Shape"].kind == "datatype" and (found["Shape"].line, found["Shape"].end_line) == (6, 6)
    affected = affected_members([FileChange("uses.dfy", ChangeKind.MODIFIED, touched=frozenset({6, 10}))],
                                lambda path: members)
    # and what its change reaches: Below's contract calls Limit
    assert {a.member.name: a.reason for a in affected} == {
        "Shape": "changed line 6", "Counter.Limit": "changed line 10", "Below": "contract uses changed Limit"}

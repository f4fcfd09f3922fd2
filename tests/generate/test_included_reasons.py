"""A construct we cannot encode inside a function of an included file is reported at that file's line:
it was named with the including file and the included file's line (libraries' `Deserializer.dfy:48` was
`Utils/Parsers.dfy:48`), so a user looked in the wrong file."""

from __future__ import annotations

import os
from pathlib import Path

from dspec2test.generate import GenerateOptions, generate
from dspec2test.pipeline import _why

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "included_reason"


def test_an_unsupported_construct_in_an_included_body_names_its_own_file(monkeypatch):
    monkeypatch.chdir(FIXTURES)
    got = generate("a.dfy", GenerateOptions())
    [m] = [m for m in got.members if m.name == "A.M"]
    [u] = m.unsupported
    assert (u.file, u.line) == ("b.dfy", 4)
    assert "(b.dfy:4)" in _why(m)
    [d] = [d for d in got.diagnostics if d.severity.value == "unsupported"]
    assert (os.path.basename(d.file), d.line) == ("b.dfy", 4)
    assert got.manifest["methods"][0]["unsupported"][0]["file"] == "b.dfy"


def test_a_reason_says_its_construct_once_and_each_reason_once():
    from dspec2test.records import Limitation, MemberResult

    out_of_reach = "inputs out of the solver's reach: no value of their types found in 5 s"
    lam = "lambda passed to the recursive function ConcatBytes"
    m = MemberResult("JSON.Serializer.Item", "a.dfy", 3, "method", True, unsupported=(
        Limitation(out_of_reach, 3, f"JSON.Serializer.Item: {out_of_reach}"),
        Limitation(lam, 143, f"{lam} is not supported", "Spec.dfy"),
        Limitation(lam, 143, f"{lam} is not supported", "Spec.dfy"),
        Limitation("multiset display", 9, "Item: multiset display: write it as a sequence"),
    ))
    assert _why(m) == (f"unsupported: {out_of_reach} (line 3); unsupported: {lam} (Spec.dfy:143)")
    m = MemberResult("JSON.Serializer.Item", "a.dfy", 3, "method", True, unsupported=(
        Limitation("multiset display", 9, "Item: multiset display: write it as a sequence"),))
    assert _why(m) == "unsupported: multiset display (line 9): write it as a sequence"
    trait = "no class of the program implements trait Shape"
    m = MemberResult("Shapes.Scale", "a.dfy", 12, "method", True,
                     unsupported=(Limitation(trait, 12, f"cannot build this: {trait}"),))
    assert _why(m) == f"unsupported: {trait} (line 12): cannot build this"


def test_a_recursive_function_the_solver_cannot_define_is_named_at_its_own_line_and_file(monkeypatch):
    # the call of Count is at board.dfy:9 and Count at lanes.dfy:8: the reason was lanes.dfy:9
    monkeypatch.chdir(FIXTURES.parent / "recursive_reason")
    got = generate("board.dfy", GenerateOptions())
    [m] = got.members
    [u] = m.unsupported
    assert u.construct.startswith("quantifier over an unbounded range in the recursive function Count")
    assert (u.file, u.line) == ("lanes.dfy", 8)


def test_a_diagnostic_says_its_construct_once():
    from dspec2test.errors import Diagnostic, Severity

    extern = "extern Log.Write has no implementation for target py"
    d = Diagnostic("io/Log.dfy", 4, 3, f"Log.Audit: {extern}", Severity.UNSUPPORTED, extern)
    assert d.render() == f"io/Log.dfy:4:3: unsupported: Log.Audit: {extern}"
    d = Diagnostic("a.dfy", 9, 1, "write it as a sequence", Severity.UNSUPPORTED, "multiset display")
    assert d.render() == "a.dfy:9:1: unsupported: multiset display: write it as a sequence"

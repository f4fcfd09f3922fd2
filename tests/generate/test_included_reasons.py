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

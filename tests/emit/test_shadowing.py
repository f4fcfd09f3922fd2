"""A module that declares something of its own name is not opened in the tests file: its full paths
(`Stack.Stack.Stack(...)`) must keep resolving to the module."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.emit.tests_file import EmitContext, emit_file, shadowing
from tests.solve.runs import run_tests

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "modules" / "shadow.dfy"


def test_a_module_declaring_its_own_name_is_not_opened():
    extra = "\nmodule Other { const K := 1 }\nmodule Find { method Find() {} }\n"
    ctx = EmitContext.of(parse_program(FIXTURE.read_text() + extra, "shadow.dfy"))
    assert shadowing(["Find", "Other", "Stack"], ctx) == {"Stack"}  # a method of its name shadows nothing
    text = emit_file("shadow.dfy", ["Other", "Stack"], [], shadowing(["Other", "Stack"], ctx))
    assert "import opened Other" in text and "import opened Stack" not in text


@pytest.mark.dafny
@pytest.mark.parametrize("planted, failing", [(None, False), ("Stack([x] + s.items)", True)])
def test_its_members_tests_build_pass_and_catch_a_planted_bug(tmp_path, planted, failing):
    text = FIXTURE.read_text()
    prog = tmp_path / FIXTURE.name
    prog.write_text(text.replace("Stack([x] + s.items)", "Stack([x, x] + s.items)") if planted else text)
    statuses = {t["status"] for t in run_tests(prog, tmp_path, "--bva")}
    assert statuses and statuses <= {"passed", "failed"} and ("failed" in statuses) == failing

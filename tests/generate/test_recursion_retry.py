"""A member whose solver hangs on recursive functions (Z3 4.8.12 ignores its resource limit and
interrupts on some recursive definitions) is generated once more with those functions left open: it
gets tests, which still check every clause, instead of none."""

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests
from dspec2test.toolchain import find_toolchain

FIXTURE = Path(__file__).parent / "fixtures" / "recursive_hang.dfy"


@pytest.mark.dafny
def test_a_member_whose_solver_hangs_on_recursion_gets_tests_that_pass_and_catch_a_bug(tmp_path):
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    prog = tmp_path / FIXTURE.name
    prog.write_text(FIXTURE.read_text())
    # the solver's second try is the subject: the search alone would give this member its tests
    got = generate(str(prog), GenerateOptions(bva=100, member_timeout_s=12, search=False))
    [entry] = got.manifest["methods"][-1:]
    assert entry["name"] == "CountLeast" and entry.get("opaque_recursion") and not entry["unsupported"]
    assert any("left open" in d.message for d in got.diagnostics)
    mine = [tc for tc in got.cases if tc.method == "CountLeast"]
    assert mine
    verdicts = run_tests(prog, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert {v.status for v in verdicts if v.method == "CountLeast"} == {Status.PASSED}
    buggy = tmp_path / "buggy" / FIXTURE.name
    buggy.parent.mkdir()
    buggy.write_text(prog.read_text().replace("c := 1; m := s[i];", "m := s[i];"))  # keeps the old count
    verdicts = run_tests(buggy, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert Status.FAILED in {v.status for v in verdicts if v.method == "CountLeast"}

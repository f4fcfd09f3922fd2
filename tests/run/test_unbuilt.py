"""A program that does not build as a whole costs only the tests that reach the fault: a member whose body
calls a function without a body, a function whose body does, compiled code that calls a ghost function.
Through the pipeline `run`, `check` and the action share, and through the bench's runner."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.pipeline import run_program
from dspec2test.records import Status, Verdict
from dspec2test.run import RunOptions, Version, VersionsConfig, run_alone
from dspec2test.run.versions import our_suite
from dspec2test.toolchain import find_toolchain

pytestmark = pytest.mark.dafny

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "unbuilt"
BVA = GenerateOptions(bva=100)


def by_member(verdicts: tuple[Verdict, ...]) -> dict[str, list[Verdict]]:
    out: dict[str, list[Verdict]] = {}
    for v in verdicts:
        out.setdefault(v.method, []).append(v)
    return out


@pytest.mark.parametrize("program, member", [("method_calls_bodiless.dfy", "Branch"),
                                              ("function_calls_bodiless.dfy", "Shift")])
def test_a_call_of_a_bodiless_function_costs_only_the_tests_that_reach_it(monkeypatch, program, member):
    # the member calls F (directly, or through G's body) on negative inputs only: those tests are
    # no-implementation naming F, its other tests pass, and the planted bug of Inc is caught
    monkeypatch.chdir(FIXTURES)
    tested = run_program(program, BVA, RunOptions(target="py"))
    result = tested.result
    assert result.no_body == ("F",) and not result.build_errors and not result.program_broken
    members = by_member(result.verdicts)
    assert {v.status for v in members["Inc"]} == {Status.FAILED}
    reached = [v for v in members[member] if v.status is Status.NO_IMPLEMENTATION]
    others = [v for v in members[member] if v.status is not Status.NO_IMPLEMENTATION]
    assert reached and all(int(v.inputs["x"]) < 0 for v in reached)
    assert all(v.message == f"no implementation yet: {member} calls F, which has no body" for v in reached)
    assert others and {v.status for v in others} == {Status.PASSED}


def test_compiled_code_calling_a_ghost_function_costs_only_its_member(monkeypatch):
    # the program as written: the test build (testbuild/) would compile the ghost functions, and then it builds
    monkeypatch.chdir(FIXTURES)
    result = run_program("ghost_call.dfy", replace(BVA, test_build=False), RunOptions(target="py")).result
    assert not result.build_errors and not result.program_broken
    # both places Dafny refuses, located: Half's body and the function Size's body
    assert [(d.file, d.line, d.col) for d in result.unbuilt] == [("ghost_call.dfy", 8, 13), ("ghost_call.dfy", 13, 8)]
    members = by_member(result.verdicts)
    assert members["Half"] and all(
        v.status is Status.NOT_TESTED and v.message.startswith(
            "not tested: Half does not build for the target: ghost_call.dfy:8:13: error: a call to a ghost function")
        for v in members["Half"])
    assert {v.status for v in members["Inc"]} == {Status.FAILED}
    assert {v.status for v in members["Keep"]} == {Status.PASSED}
    # the user's file is never touched
    assert "Halved(x);" in (FIXTURES / "ghost_call.dfy").read_text()


def test_the_bench_routes_around_the_same_faults(monkeypatch, tmp_path):
    # the bench's safety run of an original (run_alone) takes the same decisions as run: the member at
    # fault is listed apart (not a false alarm), the others run
    monkeypatch.chdir(FIXTURES)
    generated = generate("ghost_call.dfy", BVA)
    text = (FIXTURES / "ghost_call.dfy").read_text()
    got = run_alone(Version("ghost_call", text), our_suite(generated.tests_text), VersionsConfig(RunOptions("py")),
                    find_toolchain(), tmp_path)
    assert got.build_error is None
    assert {f.member for f in got.stubbed} == {"Half", "Size"}
    half = [o for o in got.outcomes if o.name.startswith("Test_Half_")]
    assert half and all(o.status is Status.NOT_TESTED and o.unbuilt and "prog.dfy:8:13" in o.message for o in half)
    inc = [o for o in got.outcomes if o.name.startswith("Test_Inc_")]
    assert inc and {o.status for o in inc} == {Status.FAILED}


PROJECT = Path(__file__).resolve().parents[1] / "fixtures" / "unbuilt_project"


def test_a_project_whose_other_file_does_not_build_is_copied_in_its_layout_and_routed_around(monkeypatch):
    # the faults are in src/lib/b.dfy, which the project file's glob brings in: the copy keeps both files
    # and the project file where they were, relative to each other
    monkeypatch.chdir(PROJECT)
    result = run_program("src/a.dfy", GenerateOptions(), RunOptions(target="py")).result
    assert not result.build_errors and result.no_body == ("B.L",)
    assert [(Path(d.file).name, d.line) for d in result.unbuilt] == [("b.dfy", 10)]
    members = by_member(result.verdicts)
    assert {v.status for v in members["A.Use"]} == {Status.NO_IMPLEMENTATION}
    assert {v.status for v in members["A.Inc"]} == {Status.FAILED}
    assert {v.status for v in members["A.Keep"]} == {Status.PASSED}

"""The real pipeline's half that needs no Dafny: the local command it suggests, and an internal error."""

from __future__ import annotations

from pathlib import Path

from dspec2test.action import real
from dspec2test.action.pipeline import PipelineOptions, Target, reproduce_command
from dspec2test.generate import GenerateOptions


def test_reproduce_command_carries_the_flags(tmp_path):
    options = PipelineOptions(tmp_path, GenerateOptions(bva=7, fdnf=True, simplify=False), timeout=30, target="py")
    assert reproduce_command("src/a.dfy", "M.Find", options) == \
        "dspec2test run src/a.dfy --method M.Find --bva 7 --fdnf --no-simplify"
    # value checks are the default: a run with them needs no flag to say so
    options = PipelineOptions(tmp_path, GenerateOptions(bva=7), timeout=30, target="py")
    assert reproduce_command("src/a.dfy", "M.Find", options) == "dspec2test run src/a.dfy --method M.Find --bva 7"


def test_an_exception_in_one_program_is_its_internal_error_and_the_others_are_tested(tmp_path, monkeypatch):
    seen = []

    def fake(path, generate_options, run_options, progress=None, files=None):
        seen.append((Path(path).name, generate_options.methods, run_options.target))
        raise RuntimeError("boom")

    monkeypatch.setattr(real, "run_program", fake)
    options = PipelineOptions(tmp_path, GenerateOptions(), timeout=30, target="py")
    got = real.real_pipeline([Target("a.dfy", ("A",)), Target("b.dfy", ("B",))], options)
    assert seen == [("a.dfy", ("A",), "py"), ("b.dfy", ("B",), "py")]
    assert [(d.file, d.message) for d in got.diagnostics] == [("a.dfy", "internal error: RuntimeError: boom"),
                                                              ("b.dfy", "internal error: RuntimeError: boom")]


def test_targets_of_one_program_share_one_build_and_other_programs_have_their_own(tmp_path, monkeypatch):
    (tmp_path / "lib.dfy").write_text("function F(x: int): int { x }\n")
    (tmp_path / "main.dfy").write_text('include "lib.dfy"\nmethod M(x: int) returns (r: int) ensures r == F(x) { r := x; }\n')
    (tmp_path / "alone.dfy").write_text("method A(x: int) returns (r: int) ensures r == x { r := x; }\n")
    seen = []

    def fake(path, generate_options, run_options, progress=None, files=None):
        seen.append((Path(path).name, generate_options.methods, sorted(Path(f).name for f in files)))
        raise RuntimeError("boom")

    monkeypatch.setattr(real, "run_program", fake)
    options = PipelineOptions(tmp_path, GenerateOptions(), timeout=30, target="py")
    real.real_pipeline([Target("lib.dfy", ("F",)), Target("alone.dfy", ("A",)), Target("main.dfy", ("M",))], options)
    assert sorted(seen) == [("alone.dfy", ("A",), ["alone.dfy"]),
                            ("main.dfy", ("M", "F"), ["lib.dfy", "main.dfy"])]


def test_a_guest_of_a_program_that_does_not_build_is_tested_in_its_own_program(tmp_path, monkeypatch):
    from dspec2test.errors import Diagnostic
    from dspec2test.pipeline import TestedProgram
    from dspec2test.records import Status, Verdict
    from dspec2test.run import RunResult

    (tmp_path / "lib.dfy").write_text("method L(x: int) returns (r: int) ensures r == x { r := x; }\n")
    (tmp_path / "main.dfy").write_text('include "lib.dfy"\nmethod M(x: int) returns (r: int) ensures r == x { r := x; }\n')
    seen = []

    def fake(path, generate_options, run_options, progress=None, files=None):
        name = Path(path).name
        seen.append((name, generate_options.methods))
        status = Status.NOT_TESTED if name == "main.dfy" else Status.PASSED
        vs = tuple(Verdict(f"T_{m}", m, 1, 1, status, file=str(tmp_path / ("main.dfy" if m == "M" else "lib.dfy")))
                   for m in generate_options.methods)
        error = (Diagnostic("main.dfy", 1, 1, "module X does not exist"),) if name == "main.dfy" else ()
        return TestedProgram(RunResult(path, vs, build_errors=error, program_broken=bool(error)), ())

    monkeypatch.setattr(real, "run_program", fake)
    options = PipelineOptions(tmp_path, GenerateOptions(), timeout=30, target="py")
    got = real.real_pipeline([Target("main.dfy", ("M",)), Target("lib.dfy", ("L",))], options)
    assert seen == [("main.dfy", ("M", "L")), ("lib.dfy", ("L",))]
    assert {(v.method, v.status) for v in got.verdicts} == {("M", Status.NOT_TESTED), ("L", Status.PASSED)}

import io
import json
from pathlib import Path

import pytest
from tests.run.run_samples import ALL_PASSED, BUILD_ERROR, MIXED, NO_BODY

from dspec2test import cli, pipeline
from dspec2test import generate as generation
from dspec2test.commands import run as run_command
from dspec2test.emit.metadata import read_metadata
from dspec2test.run import RunResult

FIX = Path(__file__).parents[1] / "run" / "fixtures"  # the programs of the runner tests


def call(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(["run", *argv], out, err), out.getvalue(), err.getvalue()


@pytest.fixture
def fake_run(monkeypatch: pytest.MonkeyPatch):
    """Replace the dafny run by a canned result; remember what it was asked."""
    asked = {}

    def install(result: RunResult) -> dict:
        def fake(program, tests_text, cases, options, progress=None, tests_path=None, **_):
            asked.update(program=str(program), cases=list(cases), options=options)
            return result
        monkeypatch.setattr(run_command, "run_tests", fake)
        monkeypatch.setattr(pipeline, "run_tests", fake)
        return asked
    return install


@pytest.mark.parametrize("result, flags, code", [
    (ALL_PASSED, (), 0), (MIXED, (), 1), (MIXED, ("--fail-on", "never"), 0), (BUILD_ERROR, ("--fail-on", "never"), 2),
    # no body is not the implementation's failure: only `errors` trips on it
    (NO_BODY, (), 0), (NO_BODY, ("--fail-on", "errors"), 1), (BUILD_ERROR, (), 2)])
def test_exit_codes_follow_the_gate(fake_run, result: RunResult, flags: tuple[str, ...], code: int) -> None:
    fake_run(result)
    assert call(str(FIX / "prog.dfy"), "--tests", str(FIX / "crash_tests.dfy"), *flags)[0] == code


def test_tests_file_metadata_and_options_reach_the_runner(fake_run, tmp_path: Path) -> None:
    asked = fake_run(MIXED)
    code, out, _ = call(str(FIX / "prog.dfy"), "--tests", str(FIX / "crash_tests.dfy"), "--method", "Sum",
                        "--target", "py", "--timeout", "7", "--json", str(tmp_path / "r.json"),
                        "--junit", str(tmp_path / "r.xml"))
    assert code == 1
    assert [tc.name for tc in asked["cases"]] == ["Test_M_Sum_p1_s1", "Test_M_Sum_p2_s1"]
    assert (asked["options"].target, asked["options"].timeout_s) == ("py", 7.0)
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["failed"] == 1
    assert "<testsuites" in (tmp_path / "r.xml").read_text()
    assert out.splitlines()[-1].startswith("4 tests:")


def test_a_declaration_the_parser_skips_is_one_not_tested_verdict_and_exit_2(fake_run, tmp_path: Path) -> None:
    asked = fake_run(ALL_PASSED)
    program = tmp_path / "mixed.dfy"
    program.write_text("method AbsOr(x: int) returns (r: int)\n  ensures r == x || r == -x\n\n"
                       "method Broken(x: int) returns (y: int)\n  ensures y == )\n{\n}\n")
    code, out, err = call(str(program), "--no-search")
    # the rest is tested and reported, the skipped one is in the report where it is; the exit says the
    # program was not read whole, though the gate would pass
    assert code == 2 and {tc.method for tc in asked["cases"]} == {"AbsOr"}
    assert f"{program}:5:16: unsupported: unreadable declaration: dspec2test cannot read method Broken" in err
    assert "Broken  " in out and "not-tested: unsupported: unreadable declaration (line 4)" in out


def test_missing_files_are_bad_input() -> None:
    assert call("nope.dfy")[0] == 2
    code, _, err = call(str(FIX / "prog.dfy"), "--tests", "nope_tests.dfy")
    assert code == 2 and "nope_tests.dfy: error: no such file" in err


def test_generation_is_called_with_the_flags(fake_run, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (FIX / "pass_tests.dfy").read_text()
    seen = {}

    def fake_generate(path, options, **_):
        seen.update(path=path, options=options)
        return generation.Generated(path, text, tuple(read_metadata(text)), ())
    monkeypatch.setattr(pipeline, "generate", fake_generate)
    asked = fake_run(ALL_PASSED)
    code, _, _ = call(str(FIX / "prog.dfy"), "--bva", "--simplify", "--method", "M.Sum", "--max-partitions", "8")
    assert code == 0
    opts = seen["options"]
    assert (opts.bva, opts.simplify, opts.methods, opts.max_partitions) == (100, True, ("M.Sum",), 8)
    assert opts.unverified is None
    assert len(asked["cases"]) == 2


@pytest.mark.dafny
def test_real_run_of_the_cli(tmp_path: Path) -> None:
    for name in ("prog.dfy", "fail_tests.dfy"):
        (tmp_path / name).write_text((FIX / name).read_text())
    code, out, err = call(str(tmp_path / "prog.dfy"), "--tests", str(tmp_path / "fail_tests.dfy"), "--target", "py",
                          "--junit", str(tmp_path / "r.xml"))
    assert code == 1
    assert "failed on 1 input: broke r >= 0 at " in out and "prog.dfy:15\n" in out and "actual r = -3" in out
    assert err.startswith("compiling and running 4 tests of prog.dfy with dafny (py)...")


def test_unverified_selects_the_failing_members(fake_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_command, "unverified_members", lambda path: ["M.Abs"])
    asked = fake_run(ALL_PASSED)
    assert call(str(FIX / "prog.dfy"), "--tests", str(FIX / "fail_tests.dfy"), "--unverified")[0] == 0
    assert [tc.name for tc in asked["cases"]] == ["Test_M_Abs_p1_s1", "Test_M_Abs_p2_s1"]


def test_unverified_with_nothing_failing_runs_nothing(fake_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_command, "unverified_members", lambda path: [])
    asked = fake_run(MIXED)
    code, out, _ = call(str(FIX / "prog.dfy"), "--tests", str(FIX / "fail_tests.dfy"), "--unverified")
    assert code == 0 and "nothing to test" in out and not asked
    code, _, err = call(str(FIX / "prog.dfy"), "--tests", str(FIX / "fail_tests.dfy"), "--unverified", "--fail-on-empty")
    assert code == 1 and "no affected member got a test (fail_on_empty)" in err


def test_tests_file_without_metadata_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "t.dfy").write_text("method {:test} T() { expect true; }\n")
    code, _, err = call(str(FIX / "prog.dfy"), "--tests", str(tmp_path / "t.dfy"))
    assert code == 2 and "no // @dspec2test metadata" in err


@pytest.mark.dafny
def test_the_wrong_line_of_the_example_is_one_finding_with_every_input_expected_and_actual(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "conditional_get.dfy"
    code, out, err = call(str(example), "--bva", "--method", "LastOrDefault", "--json", str(tmp_path / "r.json"))
    assert code == 1
    failed = [t for t in json.loads((tmp_path / "r.json").read_text())["tests"] if t["status"] == "failed"]
    assert len(failed) >= 2 and {t["clause_line"] for t in failed} == {19}
    lines = out.splitlines()
    head = lines.index(f"  failed on {len(failed)} inputs: broke |s| > 0 ==> r == s[|s| - 1] at {example}:19")
    # every failing input once, smallest first (a shrunk one among them), each named by its partition and
    # scenario, `(p1 s6: |s| > 1)`
    shown = {x[x.rindex("(p") + 1:].rstrip(")").split(":")[0]: x for x in lines[head + 1:head + 1 + len(failed)]}
    assert set(shown) == {f"p{t['partition']} s{t['scenario']}" for t in failed}
    size = {f"p{t['partition']} s{t['scenario']}": sum(map(len, t["inputs"].values())) for t in failed}
    assert size[next(iter(shown))] == min(size.values())
    for t in failed:
        line = shown[f"p{t['partition']} s{t['scenario']}"]
        s = json.loads(t["inputs"]["s"])  # the clause pins r to the last element: the expected value shown
        assert t["expected_value"] == f"r = {s[-1]}" != t["actual"]
        assert f"expected r = {s[-1]}, actual {t['actual']}" in line and line.lstrip().startswith(f"s = {t['inputs']['s']}")
    recap = lines[lines.index(f"Not passing: 1 finding, {len(failed)} tests") + 1]
    assert recap.startswith(f"  {example}:19: LastOrDefault: failed: ")
    assert "generation " in lines[-1] and "execution " in lines[-1] and "total " in lines[-1]
    assert err.startswith("generating tests for 1 member\n  [1/1] LastOrDefault: ")

"""The CLI front door: version, doctor, usage errors."""

import io

from dspec2test import __version__, cli
from dspec2test.commands import doctor


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    try:
        code = cli.main(argv, out, err)
    except SystemExit as exc:  # argparse exits for --version and usage errors
        code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_version_prints_project_version(capsys):
    code, _, _ = run(["--version"])
    assert code == 0
    assert __version__ in capsys.readouterr().out


def test_unknown_command_is_usage_error(capsys):
    code, _, _ = run(["no-such-command"])
    assert code == 2


def test_doctor_reports_dafny_411_and_libraries():
    code, out, err = run(["doctor"])
    assert code == 0, err
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert "4.11" in lines["dafny"]
    for name in ("python", "lark", "PyGithub", "junit-xml", "pyyaml"):
        assert name in lines and line_ok(lines[name]), out


def line_ok(line):
    return line.rstrip().endswith("ok")


def test_doctor_flags_too_old_and_missing():
    old = doctor.Requirement("lark", "1.0.0", "1.1.5")
    missing = doctor.Requirement("dafny", None, "4.11.0", exact=True)
    wrong = doctor.Requirement("dafny", "4.10.1", "4.11.0", exact=True)
    good = doctor.Requirement("z3", "Z3 version 4.8.12 - 64 bit", "4.8.5")
    assert "need >= 1.1.5" in old.problem
    assert missing.problem == "missing"
    assert "need 4.11.0" in wrong.problem
    assert good.problem is None


def test_doctor_exit_code_names_missing_tool(monkeypatch):
    checks = [doctor.Requirement("dafny", None, "4.11.0", exact=True), doctor.Requirement("lark", "1.1.5", "1.1.5")]
    monkeypatch.setattr(doctor, "collect", lambda: checks)
    out, err = io.StringIO(), io.StringIO()
    assert doctor.main(None, out, err) == 1
    assert "dafny missing" in err.getvalue()


def test_bva_without_a_number_before_the_file(tmp_path):
    # argparse alone takes the file name as --bva's N
    from pathlib import Path
    program = Path(__file__).parent / "generate" / "fixtures" / "abs_or.dfy"
    manifest = tmp_path / "m.json"
    code, out, err = run(["generate", "--bva", str(program), "--json", str(manifest)])
    assert code == 0, err
    import json
    scenarios = [s for m in json.loads(manifest.read_text())["methods"] for p in m["partitions"] for s in p["scenarios"]]
    assert any(s["kind"] == "bva" for s in scenarios)
    assert cli._explicit_optional_values(["--bva", "7", "f.dfy"]) == ["--bva", "7", "f.dfy"]
    assert cli._explicit_optional_values(["f.dfy", "--bva"]) == ["f.dfy", "--bva=100"]


def test_doctor_names_the_z3_dafny_verifies_with_and_says_when_it_is_older_than_dafnys(monkeypatch):
    def checks(version):
        return lambda: [doctor.Requirement(doctor.Z3_FOR_DAFNY, f"{version} (/opt/z3)", "4.8.5")]
    for version, noted in (("4.8.12", True), ("4.12.1", False)):
        monkeypatch.setattr(doctor, "collect", checks(version))
        out, err = io.StringIO(), io.StringIO()
        assert doctor.main(None, out, err) == 0, err.getvalue()
        assert f"z3 (dafny verifies)  {version} (/opt/z3)" in out.getvalue()
        assert ("carry Z3 4.12.1" in out.getvalue()) is noted


def test_an_internal_error_is_one_line_and_exit_2_never_a_traceback(monkeypatch):
    from dspec2test.commands import parse as parse_command

    def broken(args, out, err):
        raise ValueError("boom")

    monkeypatch.setattr(parse_command, "main", broken)
    monkeypatch.delenv("DSPEC2TEST_DEBUG", raising=False)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["parse", "x.dfy"], out, err) == 2
    assert err.getvalue() == ("dspec2test: internal error: ValueError: boom "
                              "(a bug of dspec2test; DSPEC2TEST_DEBUG=1 shows where)\n")

"""Multi-file programs with the REAL Dafny: an include chain with newtypes and a generic member, and a
dfyconfig.toml project whose files do not include each other, with an extern that has no Python code.
On the correct tree every compiled member with a contract is tested and passes; in a pull request that
plants bugs across files, `check` selects the members they affect (through names of other modules),
finds each bug, and leaves untouched members alone."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.action.helpers import commit, git

pytestmark = pytest.mark.dafny

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "projects"
UNKNOWN = ("unknown type", "unknown name", "unknown function", "does not exist")


def dspec2test(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "dspec2test", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=900)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def verdicts(report: Path) -> dict[str, list[dict]]:
    by_member: dict[str, list[dict]] = {}
    for t in json.loads(report.read_text())["tests"]:
        by_member.setdefault(t["method"], []).append(t)
    return by_member


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("projects")
    repo = root / "repo"
    shutil.copytree(PROJECTS, repo)
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {}, "the correct tree")
    return repo


def test_every_compiled_member_with_a_contract_is_tested_and_passes_on_the_correct_tree(repo, tmp_path):
    code_of = {}
    got: dict[str, list[dict]] = {}
    for file in ("includes/main.dfy", "includes/lib/stats.dfy", "includes/lib/seqs.dfy", "config/src/App.dfy"):
        report = tmp_path / (Path(file).stem + ".json")
        proc = dspec2test(repo, "run", file, "--json", str(report))
        code_of[file] = proc.returncode
        got.update(verdicts(report))
    compiled = {"Main.Clamp", "Main.Top", "Main.Sum", "Main.Occurrences", "Stats.Largest", "Stats.Tally._ctor",
                "Seqs.Reverse", "Seqs.IndexOf", "App.Scale", "App.Vowels"}
    assert compiled <= set(got)
    for name in compiled:
        assert {t["status"] for t in got[name]} == {"passed"}, (name, got[name])
    (stamp,) = got["App.Stamp"]  # calls an extern with Java code only
    assert stamp["status"] == "not-tested" and "extern Clock.Now has no implementation for target py" in stamp["message"]
    assert not any(k in t["message"] for ts in got.values() for t in ts for k in UNKNOWN)
    generic = got["Seqs.IndexOf"][0]
    assert generic["instantiation"] == {"T": "int"}
    assert all(code == 0 for file, code in code_of.items() if file != "config/src/App.dfy")


def test_a_pull_request_planting_bugs_across_files_is_caught_member_by_member(repo, tmp_path):
    git(repo, "checkout", "-q", "-b", "bugs")
    seqs = (repo / "includes/lib/seqs.dfy").read_text()
    helper = (repo / "config/src/Helper.dfy").read_text()
    main = (repo / "includes/main.dfy").read_text()
    stats = (repo / "includes/lib/stats.dfy").read_text()
    commit(repo, {
        # a constructor forgets its argument
        "includes/lib/stats.dfy": stats.replace("      top := first;", "      top := 0;"),
        # the generic member builds the sequence the wrong way round: r == s
        "includes/lib/seqs.dfy": seqs.replace("r := r + [s[k]];", "r := [s[k]] + r;"),
        # a function of another module, used by App.Scale's contract only
        "config/src/Helper.dfy": helper.replace("    2 * x", "    3 * x"),
        # the newtype constant of another file through an alias: above 255 gives 0
        "includes/main.dfy": main.replace("      r := B.MAX;", "      r := 0;"),
    }, "plant bugs")
    report = tmp_path / "check.json"
    proc = dspec2test(repo, "check", "--base", "main", "--head", "bugs", "--json", str(report))
    got = verdicts(report)
    assert set(got) == {"Seqs.Reverse", "App.Scale", "Main.Clamp", "Stats.Tally._ctor"}, proc.stdout
    for name in got:
        assert any(t["status"] == "failed" for t in got[name]), (name, got[name])
    assert proc.returncode == 1


def test_python_code_of_an_extern_found_by_its_module_header_is_built_with_the_program(tmp_path):
    project = tmp_path / "config"
    shutil.copytree(PROJECTS / "config", project)
    (project / "interop").mkdir()
    # named after nothing Dafny knows: its first line says which module it is, as Dafny's own files do
    (project / "interop" / "ClockImpl.py").write_text("# Module: Clock\n\ndef Now():\n    return 7\n")
    report = tmp_path / "app.json"
    proc = dspec2test(project, "run", "src/App.dfy", "--json", str(report))
    got = verdicts(report)
    assert {t["status"] for t in got["App.Stamp"]} == {"passed"}, proc.stdout
    assert proc.returncode == 0

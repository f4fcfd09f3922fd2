"""`dspec2test check`: the action's selection on a local repository, with a fake pipeline."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from dspec2test import cli
from dspec2test.action.pipeline import PipelineResult
from dspec2test.action.results import verdict_from
from dspec2test.commands import check
from tests.action import fixtures
from tests.action.helpers import make_repo, member_reader


@pytest.fixture
def repo(tmp_path, monkeypatch):
    repo, base, head = make_repo(tmp_path, {"prog.dfy": fixtures.BASE_PROG, "other.dfy": fixtures.OTHER},
                                 {"prog.dfy": fixtures.HEAD_PROG, "new.dfy": fixtures.NEW})
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOME", str(tmp_path))
    return repo


def run_check(argv, asked=None):
    def fake(targets, options):
        wanted = {(t.file, m) for t in targets for m in t.methods}
        if asked is not None:
            asked.update(wanted)
        vs = [verdict_from(d) for d in fixtures.verdicts() if (d["file"], d["method"]) in wanted]
        return PipelineResult(tuple(v.__class__(**{**v.__dict__, "file": str(options.root / v.file)}) for v in vs))

    args = cli.build_parser().parse_args(["check", *argv])
    out, err = io.StringIO(), io.StringIO()
    code = check.main(args, out, err, pipeline=fake, read=member_reader())
    return code, out.getvalue(), err.getvalue()


def test_list_shows_affected_members_with_reasons(repo):
    code, out, err = run_check(["--base", "main", "--list"])
    assert code == 0, err
    assert "prog.dfy:6: Abs (changed line 13)" in out
    assert "prog.dfy:17: Max (changed line 19)" in out
    assert "other.dfy:3: UsesSmall (contract uses changed Small)" in out
    assert "new.dfy:1: Twice (new file)" in out
    assert "Untouched" not in out


def test_runs_only_affected_and_writes_reports(repo, tmp_path):
    asked = set()
    code, out, err = run_check(["--base", "main", "--json", str(tmp_path / "r.json"),
                                "--junit", str(tmp_path / "j.xml"), "--sarif", str(tmp_path / "s.sarif"),
                                "--summary", str(tmp_path / "out" / "summary.md")], asked)
    assert code == 1
    assert ("prog.dfy", "Untouched") not in asked and ("prog.dfy", "Abs") in asked
    # the recap: one line per broken clause, failures first, each with its first failing input
    assert "  prog.dfy:7: Abs: failed: r >= 0 (line 7) on 1 of 3 tests; first on x = 0: actual r = -1" in out
    assert "8 tests, 4 passed, 4 not passing" in out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["summary"]["tests"] == 8 and {m["name"] for m in data["members"]} >= {"Abs", "Max"}
    assert len(list(ET.parse(tmp_path / "j.xml").getroot().iter("testcase"))) == 8
    log = json.loads((tmp_path / "s.sarif").read_text())
    assert log["version"] == "2.1.0" and {r["ruleId"] for r in log["runs"][0]["results"]} >= {"DSPEC001"}
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert summary.startswith("## dspec2test") and "Gate: failure" in summary
    assert not list(repo.glob("dspec2test*"))  # nothing written that was not asked for


def test_paths_restrict_and_working_tree_default(repo):
    code, out, _ = run_check(["--base", "main", "--list", "other.dfy"])
    assert "UsesSmall" in out and "Abs" not in out
    code, out, _ = run_check(["--list"])  # clean working tree against HEAD: nothing
    assert code == 0 and "no affected member" in out
    (repo / "new.dfy").write_text(fixtures.NEW.replace("x + x", "2 * x"))
    code, out, _ = run_check(["--list"])
    assert "new.dfy:1: Twice (changed line 4)" in out


def test_head_ref_other_than_checkout_is_read_from_that_commit(repo):
    from tests.action.helpers import git
    git(repo, "checkout", "-q", "main")
    code, out, err = run_check(["--base", "main", "--head", "feature", "--list"])
    assert code == 0, err
    assert "Abs (changed line 13)" in out
    assert "worktree" not in git(repo, "worktree", "list").split("\n", 1)[-1]  # the temporary one is gone


def test_bad_ref_is_exit_2(repo):
    code, _, err = run_check(["--base", "no-such-ref"])
    assert code == 2 and "no-such-ref" in err


def test_the_gate_flags_and_the_configuration_file_decide_the_exit_code(repo):
    assert run_check(["--base", "main", "--fail-on", "never"])[0] == 0
    (repo / ".dspec2test.yml").write_text("fail_on: never\n")
    assert run_check(["--base", "main"])[0] == 0  # the file's fail_on applies locally too
    code, _, err = run_check(["--base", "main", "--fail-on", "failures"])  # the flag wins over the file
    assert code == 1 and "4 failed of 8 tests (fail_on: failures)" in err
    code, out, err = run_check(["--base", "HEAD", "--fail-on-empty"])  # a clean tree: nothing to test
    assert code == 1 and "no affected member got a test" in err

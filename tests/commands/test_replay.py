"""`dspec2test replay` on a real git history with a fake pipeline: which commits, what each row says,
a commit git cannot check out, a shallow clone, Ctrl-C, and that no scratch worktree is left behind."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import pytest

from dspec2test import cli
from dspec2test.action.diff import Git
from dspec2test.action.history import dafny_commits, scratch_worktree
from dspec2test.action.pipeline import PipelineResult
from dspec2test.action.select import selected
from dspec2test.commands import check, replay
from dspec2test.records import Status, Verdict
from tests.action.helpers import commit, git, member_reader
from tests.action.history_fixture import make_history


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """Where scratch worktrees go, so that a test can see none is left behind."""
    folder = tmp_path / "scratch"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("HOME", str(tmp_path))
    return folder


@pytest.fixture
def history(tmp_path, scratch, monkeypatch):
    h = make_history(tmp_path)
    monkeypatch.chdir(h.repo)
    return h


def fake_pipeline(targets, options):
    """Max fails (its planted bug), every other member passes; one verdict per member."""
    vs = [Verdict(f"Test_{m}", m, 1, 1, Status.FAILED if m == "Max" else Status.PASSED,
                  file=str(options.root / t.file)) for t in targets for m in t.methods]
    return PipelineResult(tuple(vs))


def run_replay(argv, pipeline=fake_pipeline, read=None):
    args = cli.build_parser().parse_args(["replay", *argv])
    out, err = io.StringIO(), io.StringIO()
    code = replay.main(args, out, err, pipeline=pipeline, read=read or member_reader())
    return code, out.getvalue(), err.getvalue()


def worktrees(repo: Path) -> list[str]:
    return [line for line in git(repo, "worktree", "list", "--porcelain").splitlines() if line.startswith("worktree ")]


# --- which commits -------------------------------------------------------------------------------------

def test_first_parent_commits_that_changed_dafny_files_newest_first(history):
    shas = [c.sha for c in dafny_commits(Git(history.repo), 10)]
    # the docs-only commit is left out; the feature branch's own commits are inside its merge
    assert shas == [history.last, history.merge, history.broken, history.max, history.root]
    merge = dafny_commits(Git(history.repo), 10)[1]
    assert merge.files == ("double.dfy",) and merge.subject == "Merge pull request #1 from feature"
    assert merge.first_parent == history.broken


def test_last_n_and_paths_limit_the_commits(history):
    assert [c.sha for c in dafny_commits(Git(history.repo), 2)] == [history.last, history.merge]
    only_max = dafny_commits(Git(history.repo), 10, lambda p: selected(p, ("max.dfy",)))
    assert [c.sha for c in only_max] == [history.max]
    code, out, _ = run_replay(["--last", "1", "max.dfy"])
    assert code == 0 and history.max[:9] in out and history.last[:9] not in out


def test_a_branch_without_dafny_changes_says_so(tmp_path, scratch, monkeypatch):
    repo = tmp_path / "plain"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"README.md": "nothing here\n"}, "docs")
    monkeypatch.chdir(repo)
    code, out, _ = run_replay([])
    assert code == 0 and "no commit of this branch changed a .dfy file" in out


# --- rows ------------------------------------------------------------------------------------------------

def test_rows_statuses_notes_errors_and_totals(history, tmp_path):
    code, out, err = run_replay(["--json", str(tmp_path / "r.json")])
    assert code == 0, err
    rows = {line.split()[0]: line for line in out.splitlines() if line[:9].strip()}
    cols = rows[history.max[:9]].split()
    # affected 1, ghost 0, proved 0, tested 1, passed 0, failed 1
    assert cols[-12:-6] == ["1", "0", "0", "1", "0", "1"]
    assert "error: the first commit: no parent to compare with" in out
    # the declaration the parser cannot read is what the commit that added it affects (it is refused, with
    # the reason, by the real pipeline), not a parse error that hides the file
    assert "note: broken.dfy" not in out
    assert "Traceback" not in out + err
    data = json.loads((tmp_path / "r.json").read_text())
    by_sha = {c["sha"]: c for c in data["commits"]}
    merge = by_sha[history.merge]
    # the lemma the merge added is proved by Dafny: counted, not a member to test
    assert {m["name"]: (m["kind"], m["ghost"]) for m in merge["members"]} == {"Twice": ("method", False)}
    assert merge["proved"] == ["DoubleIsEven"]
    assert all(m["has_contract"] and m["statuses"] == {"passed": 1} for m in merge["members"])
    assert by_sha[history.root]["error"] and not by_sha[history.root]["members"]
    assert by_sha[history.max]["members"][0]["statuses"] == {"failed": 1}
    assert [(m["name"], m["kind"], m["line"]) for m in by_sha[history.broken]["members"]] == [("Broken", "method", 1)]
    assert data["totals"]["commits"] == 5 and data["totals"]["checked"] == 4
    assert data["totals"]["affected"] == 4 and data["totals"]["ghost"] == 0 and data["totals"]["proved"] == 1
    assert data["totals"]["statuses"]["failed"] == 1 and data["totals"]["median_seconds"] is not None
    assert "median check per commit" in out.splitlines()[-1]


def test_members_left_untested_carry_their_reasons(history, tmp_path):
    def nothing(targets, options):
        return PipelineResult()

    run_replay(["--last", "1", "--json", str(tmp_path / "r.json")], pipeline=nothing)
    (member,) = json.loads((tmp_path / "r.json").read_text())["commits"][0]["members"]
    assert member["name"] == "Abs" and member["statuses"] == {"not-tested": 1}
    assert member["not_tested"] == ["no test was generated for it"]


def test_reasons_name_files_relative_to_the_checkout(history, tmp_path):
    def unbuilt(targets, options):
        return PipelineResult(tuple(
            Verdict("", m, 0, 0, Status.NOT_TESTED, message=f"build failed: {options.root}/{t.file}:3:1: error: x",
                    file=t.file) for t in targets for m in t.methods))

    run_replay(["--last", "1", "--json", str(tmp_path / "r.json")], pipeline=unbuilt)
    (member,) = json.loads((tmp_path / "r.json").read_text())["commits"][0]["members"]
    assert member["not_tested"] == ["build failed: prog.dfy:3:1: error: x"]


def test_replay_says_what_check_says_in_a_checkout_of_the_commit(history, monkeypatch, tmp_path):
    _, _, _ = run_replay(["--json", str(tmp_path / "r.json")])
    replayed = {c["sha"]: c for c in json.loads((tmp_path / "r.json").read_text())["commits"]}
    for sha in (history.merge, history.max, history.last):
        git(history.repo, "checkout", "-q", "--detach", sha)
        args = cli.build_parser().parse_args(["check", "--base", f"{sha}^", "--head", sha,
                                              "--json", str(tmp_path / "c.json")])
        check.main(args, io.StringIO(), io.StringIO(), pipeline=fake_pipeline, read=member_reader())
        checked = json.loads((tmp_path / "c.json").read_text())
        assert [(m["file"], m["name"], m["reason"]) for m in checked["members"]] == \
            [(m["file"], m["name"], m["reason"]) for m in replayed[sha]["members"]]
        assert {k: v for k, v in checked["summary"].items() if v and k not in ("tests", "methods")} == \
            replayed[sha]["statuses"]


def test_the_commits_own_configuration_file_applies(history, tmp_path):
    commit(history.repo, {".dspec2test.yml": "exclude: ['prog.dfy']\n",
                          "prog.dfy": (history.repo / "prog.dfy").read_text() + "\n"}, "exclude prog.dfy")
    code, out, _ = run_replay(["--last", "2", "--json", str(tmp_path / "r.json")])
    commits = json.loads((tmp_path / "r.json").read_text())["commits"]
    assert commits[0]["members"] == [] and commits[1]["members"][0]["name"] == "Abs"
    commit(history.repo, {".dspec2test.yml": "no_such_key: 1\n", "prog.dfy": "\n"}, "a bad configuration")
    code, out, _ = run_replay(["--last", "2"])
    assert code == 0 and "no_such_key" in out and out.count("error:") == 1


# --- commits that cannot be checked ----------------------------------------------------------------------

def test_a_missing_object_is_a_row_and_the_older_commits_are_still_replayed(history, scratch):
    added = commit(history.repo, {"data.txt": "a blob that goes missing\n", "prog.dfy": "// 1\n"}, "add data")
    blob = git(history.repo, "rev-parse", f"{added}:data.txt").strip()
    (history.repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    code, out, err = run_replay(["--last", "3"])
    assert code == 0 and "Traceback" not in out + err
    rows = [line for line in out.splitlines() if line.startswith((added[:9], history.last[:9], history.merge[:9]))]
    assert rows[0].startswith(added[:9]) and "error:" in out.split(added[:9])[1].splitlines()[1]
    assert rows[1].split()[-12] == "1"  # the next commit, Abs, affected as usual
    assert worktrees(history.repo) == [f"worktree {history.repo}"] and not any(scratch.iterdir())


def test_a_shallow_clone_says_the_parent_is_missing(history, tmp_path, monkeypatch):
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{history.repo}", str(shallow))
    monkeypatch.chdir(shallow)
    code, out, _ = run_replay([])
    assert code == 0 and "shallow clone" in out and history.last[:9] in out


def test_an_internal_error_on_one_commit_is_its_row(history, scratch):
    reader = member_reader()

    def read(path, text):
        if path == "max.dfy":
            raise RuntimeError("boom")
        return reader(path, text)

    code, out, err = run_replay([], read=read)
    assert code == 0 and "Traceback" not in out + err
    assert "error: internal error: RuntimeError: boom" in out
    assert history.root[:9] in out  # the older commits still ran
    assert worktrees(history.repo) == [f"worktree {history.repo}"] and not any(scratch.iterdir())


# --- the scratch worktrees -------------------------------------------------------------------------------

def test_scratch_worktrees_are_removed_after_each_commit(history, scratch):
    seen = []

    def watching(targets, options):
        seen.append((options.root, len(worktrees(history.repo))))
        return fake_pipeline(targets, options)

    run_replay([], pipeline=watching)
    assert seen and all(root.is_relative_to(scratch) and count == 2 for root, count in seen)
    assert not any(root.exists() for root, _ in seen)
    assert worktrees(history.repo) == [f"worktree {history.repo}"] and not any(scratch.iterdir())


def test_ctrl_c_removes_the_worktree_and_reports_what_was_found(history, scratch, tmp_path):
    calls = []

    def interrupted(targets, options):
        calls.append(options.root)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return fake_pipeline(targets, options)

    code, out, _ = run_replay(["--json", str(tmp_path / "r.json")], pipeline=interrupted)
    assert code == 130 and out.rstrip().endswith("interrupted")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["interrupted"] and [c["sha"] for c in data["commits"]] == [history.last]
    assert worktrees(history.repo) == [f"worktree {history.repo}"] and not any(scratch.iterdir())


def test_a_failed_checkout_leaves_nothing(history, scratch):
    with pytest.raises(Exception):
        with scratch_worktree(Git(history.repo), "0" * 40):
            pass
    assert worktrees(history.repo) == [f"worktree {history.repo}"] and not any(scratch.iterdir())


def test_a_submodule_is_checked_out_from_the_checkouts_own_copy(tmp_path, scratch):
    """A program that includes files of a submodule reads them in the scratch worktree too, without
    the network: git worktree add leaves the submodule empty."""
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    pinned = commit(lib, {"lib.dfy": "function One(): int { 1 }\n"}, "lib")
    commit(lib, {"lib.dfy": "function One(): int { 2 }\n"}, "lib moves on")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "deps/lib")
    git(repo / "deps" / "lib", "checkout", "-q", pinned)
    head = commit(repo, {"prog.dfy": 'include "deps/lib/lib.dfy"\n'}, "use lib")
    with scratch_worktree(Git(repo), head) as tree:
        assert (tree / "deps" / "lib" / "lib.dfy").read_text() == "function One(): int { 1 }\n"
    assert worktrees(repo) == [f"worktree {repo}"] and not any(scratch.iterdir())


def test_bad_usage(history):
    assert run_replay(["--last", "0"])[0] == 2

"""`dspec2test replay` end to end with the REAL pipeline on a small history: the planted bug is found in
the commit that planted it, the merge is one row, the commit that broke parsing says where."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.action.helpers import git
from tests.action.history_fixture import make_history

pytestmark = pytest.mark.dafny


def test_replay_finds_the_planted_bug_in_its_commit(tmp_path):
    h = make_history(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "dspec2test", "replay", "--json", str(tmp_path / "r.json")],
                          cwd=h.repo, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    commits = {c["sha"]: c for c in json.loads((tmp_path / "r.json").read_text())["commits"]}
    assert list(commits) == [h.last, h.merge, h.broken, h.max, h.root]
    members = {sha: {m["name"]: m for m in c["members"]} for sha, c in commits.items()}
    assert members[h.max]["Max"]["statuses"].get("failed", 0) >= 1  # m := a, whatever b is
    assert set(members[h.last]) == {"Abs"} and set(members[h.last]["Abs"]["statuses"]) == {"passed"}
    assert set(members[h.merge]["Twice"]["statuses"]) == {"passed"}
    # the declaration the parser cannot read is refused where it is, with the reason (not the file's error)
    broken = members[h.broken]["Broken"]
    assert broken["statuses"] == {"not-tested": 1} and "cannot read method Broken (lines 1-4)" in broken["not_tested"][0]
    assert commits[h.root]["error"] == "the first commit: no parent to compare with"
    assert git(h.repo, "worktree", "list").count("\n") == 1  # the scratch worktrees are gone

"""A small git history for the replay tests: Dafny changes, a commit without one, a planted bug, a commit
that breaks parsing, a feature branch merged with a merge commit, a lemma."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.action import fixtures
from tests.action.helpers import commit, git

MAX_BUGGY = """\
method Max(a: int, b: int) returns (m: int)
  ensures m >= a && m >= b
  ensures m == a || m == b
{
  m := a;
}
"""

BROKEN = """\
method Broken(x: int returns (r: int)
{
  r := x;
}
"""

DOUBLE = """\
function Double(x: int): int
{
  x + x
}

lemma DoubleIsEven(x: int)
  ensures Double(x) % 2 == 0
{
}
"""

TWICE = fixtures.NEW.replace("ensures r == 2 * x", "ensures r == Double(x)")


@dataclass(frozen=True)
class History:
    repo: Path
    root: str  # adds prog.dfy (Abs)
    readme: str  # changes no .dfy file
    max: str  # adds max.dfy: Max with a planted bug
    broken: str  # adds broken.dfy, which does not parse
    feature: tuple[str, str]  # the feature branch's commits (double.dfy, then Twice in it)
    merge: str  # merges the feature branch into main
    last: str  # touches Abs's contract


def make_history(tmp: Path) -> History:
    repo = tmp / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    root = commit(repo, {"prog.dfy": fixtures.ABS}, "add Abs")
    readme = commit(repo, {"README.md": "Abs and friends\n"}, "docs only")
    max_ = commit(repo, {"max.dfy": MAX_BUGGY}, "add Max (with a bug)")
    broken = commit(repo, {"broken.dfy": BROKEN}, "add Broken, which does not parse")
    git(repo, "checkout", "-q", "-b", "feature")
    f1 = commit(repo, {"double.dfy": DOUBLE}, "feature: Double and a lemma")
    f2 = commit(repo, {"double.dfy": DOUBLE + "\n" + TWICE}, "feature: Twice")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "feature", "-m", "Merge pull request #1 from feature")
    merge = git(repo, "rev-parse", "HEAD").strip()
    last = commit(repo, {"prog.dfy": fixtures.ABS.replace("ensures r >= 0", "ensures 0 <= r")}, "tidy Abs")
    return History(repo, root, readme, max_, broken, (f1, f2), merge, last)

"""A branch's history as `replay` walks it: the commits that changed Dafny files, and a scratch
checkout of one commit.

Only first parents are followed, so on a branch whose pull requests are merged (or squashed) each
merge is one commit whose change is the whole pull request, as the action saw it.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from dspec2test.action.diff import Git, GitError

# git log's fields and records, split on characters no subject or path holds
_RECORD, _FIELD = "\x1e", "\x1f"


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    parents: tuple[str, ...]  # as recorded; a shallow clone's oldest commits show none
    files: tuple[str, ...]  # the .dfy files it changed against its first parent

    @property
    def first_parent(self) -> str | None:
        return self.parents[0] if self.parents else None


def dafny_commits(git: Git, last: int, wanted: Callable[[str], bool] | None = None,
                  ref: str = "HEAD") -> list[Commit]:
    """The last `last` commits of ref's first-parent history that changed a .dfy file (one for which
    wanted(path) holds, when given), newest first. Raises GitError."""
    if last <= 0:
        return []
    limit = ["-n", str(last)] if wanted is None else []  # else the filter below decides what counts
    text = git.run("log", "--first-parent", "--diff-merges=first-parent", "--name-only", "-z", *limit,
                   f"--format={_RECORD}%H{_FIELD}%P{_FIELD}%s", ref, "--", "*.dfy")
    found = []
    for record in text.split(_RECORD)[1:]:
        header, _, names = record.partition("\0")
        sha, parents, subject = header.split(_FIELD, 2)
        files = tuple(p for p in names.lstrip("\n").split("\0") if p)
        if wanted is None or any(wanted(p) for p in files):
            found.append(Commit(sha, subject, tuple(parents.split()), files))
            if len(found) == last:
                break
    return found


def missing_parent(git: Git, commit: Commit) -> str | None:
    """Why the commit has no parent to compare with, or None when it has one."""
    if commit.parents:
        return None
    if commit.sha in _shallow_boundary(git):
        return "the parent is not in this shallow clone (git fetch --unshallow brings it)"
    return "the first commit: no parent to compare with"


def _shallow_boundary(git: Git) -> set[str]:
    """The commits a shallow clone has without their parents (git lists them in .git/shallow)."""
    try:
        path = Path(git.run("rev-parse", "--git-path", "shallow").strip())
        return set((path if path.is_absolute() else git.cwd / path).read_text(encoding="utf-8").split())
    except (GitError, OSError):
        return set()  # not shallow


@contextlib.contextmanager
def scratch_worktree(git: Git, ref: str, prefix: str = "dspec2test-") -> Iterator[Path]:
    """A temporary detached worktree at ref, removed afterwards however the block ends (an error,
    Ctrl-C). Raises GitError when git cannot check ref out (a missing object)."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    target = tmp / "tree"
    try:
        git.run("worktree", "add", "--detach", str(target), ref)
        _check_out_submodules(git, target)
        yield target
    finally:
        if target.exists():
            with contextlib.suppress(GitError):  # rmtree below frees the space; the prune forgets it
                git.run("worktree", "remove", "--force", str(target))
        shutil.rmtree(tmp, ignore_errors=True)
        if _registered(git, target):  # a checkout that failed halfway may have left its entry
            with contextlib.suppress(GitError):
                git.run("worktree", "prune")


def _check_out_submodules(git: Git, tree: Path) -> None:
    """The submodules the tree's commit pins, each cloned from the checkout's own copy of it (git
    worktree add leaves them empty, and an include of a file in one would not be found). Offline: a
    submodule the checkout has not populated, or whose copy lacks the pinned commit, stays empty."""
    try:
        listed = git.run("-C", str(tree), "ls-files", "-s", "-z")
        top = Path(git.run("rev-parse", "--show-toplevel").strip())
    except GitError:
        return
    for entry in listed.split("\0"):
        header, _, path = entry.partition("\t")
        fields = header.split()
        if len(fields) != 3 or fields[0] != "160000":  # a gitlink: mode, pinned commit, stage
            continue
        source, sha = top / path, fields[1]
        if not (source / ".git").exists():
            continue
        with contextlib.suppress(GitError):
            git.run("-C", str(source), "cat-file", "-e", f"{sha}^{{commit}}")
            git.run("clone", "-q", "--shared", "--no-checkout", str(source), str(tree / path))
            git.run("-C", str(tree / path), "checkout", "-q", "--detach", sha)


def _registered(git: Git, path: Path) -> bool:
    try:
        listed = git.run("worktree", "list", "--porcelain")
    except GitError:
        return False
    return f"worktree {path}" in listed.splitlines() or f"worktree {path.resolve()}" in listed.splitlines()

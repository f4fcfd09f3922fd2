"""Shared by the action tests: a real git repository with a base and a head commit, and the
GitHub-style patches computed from it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(repo.parent)}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def make_repo(root: Path, base_files: dict[str, str], head_files: dict[str, str | None]) -> tuple[Path, str, str]:
    """A repository whose main branch has base_files and whose `feature` branch changes them
    (None deletes a file). Returns (repo, base sha, head sha); the head is checked out."""
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for name, text in base_files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "feature")
    head = commit(repo, head_files, "head")
    return repo, base, head


def commit(repo: Path, files: dict[str, str | None], message: str) -> str:
    for name, text in files.items():
        if text is None:
            (repo / name).unlink()
        else:
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def pr_files(repo: Path, base: str, head: str) -> list[dict]:
    """What GET pulls/N/files returns: one entry per file with GitHub's status and `patch` (the
    unified diff with 3 lines of context, from the first hunk header on)."""
    out = []
    status_names = {"A": "added", "M": "modified", "D": "removed", "R": "renamed"}
    for line in git(repo, "diff", "--name-status", "-M", f"{base}...{head}").splitlines():
        parts = line.split("\t")
        code = parts[0][0]
        entry = {"filename": parts[-1], "status": status_names.get(code, "modified")}
        if code == "R":
            entry["previous_filename"] = parts[1]
        paths = [parts[1], parts[2]] if code == "R" else [parts[-1]]
        patch = git(repo, "diff", "-M", f"{base}...{head}", "--", *paths)
        entry["patch"] = patch[patch.index("@@"):] if "@@" in patch else ""
        out.append(entry)
    return out


def member_reader():
    """None: the files are read within their programs, as the real action does (tests pass a reader
    explicitly so that a fixture reader could stand in)."""
    return None

"""Shared by the action tests: a real git repository with a base and a head commit, GitHub-style
patches computed from it, and a member reader for fixtures while the Dafny parser is not built in."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from dspec2test.action import members as members_module
from dspec2test.action.members import MemberInfo

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


MEMBER = re.compile(r"^\s*(method|function|predicate|lemma)\s+([A-Za-z_][A-Za-z0-9_]*)")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def fixture_reader(path: str, text: str):
    """Members of the small fixture programs, by layout (a declaration line, clauses, a body closed
    by a `}` in column 0). Used only when the real parser is not available."""
    found, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        m = MEMBER.match(lines[i])
        if not m:
            i += 1
            continue
        start, kind, name = i + 1, m.group(1), m.group(2)
        contract, body, clause_lines, j = set(), set(), set(), i + 1
        while j < len(lines) and not lines[j].startswith("}"):
            stripped = lines[j].strip()
            if stripped.startswith(("requires", "ensures")):
                contract |= set(IDENT.findall(stripped.split(None, 1)[1]))
                clause_lines.add(j + 1)
            else:
                body |= set(IDENT.findall(stripped))
            j += 1
        found.append(MemberInfo(path, name, kind, start, j + 1, bool(contract),
                                bool(contract) and kind != "lemma", frozenset(contract), frozenset(body),
                                frozenset(clause_lines)))
        i = j + 1
    return found, []


def member_reader():
    """The real parser's reader (the fixture reader stays for tests of the selection logic alone)."""
    return members_module.read_members

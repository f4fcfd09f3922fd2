"""What a diff touched: `git diff` driven here, unified hunks parsed into per-file line sets.

Two readers of hunk text: `parse_unified_diff` for a whole `git diff` (local check and the action's
choice of members) and `commentable_lines` for one file's `patch` from GitHub's pulls/N/files (the
lines a review comment may anchor on, which GitHub alone decides).
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Iterator

from dspec2test.toolchain import untrusted_env

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class ChangeKind(str, Enum):
    ADDED = "added"
    DELETED = "deleted"
    RENAMED = "renamed"
    MODIFIED = "modified"


@dataclass(frozen=True)
class FileChange:
    path: str  # path on the new side (the old path for a deleted file)
    kind: ChangeKind
    old_path: str | None = None
    touched: frozenset[int] = field(default_factory=frozenset)  # new-side lines added, or next to a deletion


class GitError(RuntimeError):
    pass


@dataclass(frozen=True)
class Git:
    cwd: Path

    def run(self, *args: str) -> str:
        proc = subprocess.run(
            ["git", "-c", "core.quotePath=false", *args],
            cwd=self.cwd, capture_output=True, text=True, check=False, env=untrusted_env(os.environ),
        )
        if proc.returncode != 0:
            raise GitError(f"git {' '.join(args)}: {proc.stderr.strip() or f'exit {proc.returncode}'}")
        return proc.stdout

    def diff(self, base: str, head: str | None) -> list[FileChange]:
        """Changes from the merge base of base and head (as a pull request shows them) to head.

        head None compares with the working tree, uncommitted changes included.
        """
        if head is None:
            merge_base = self.run("merge-base", base, "HEAD").strip()
            text = self.run("diff", "--no-color", "--no-ext-diff", "-M", "-U0", merge_base)
        else:
            text = self.run("diff", "--no-color", "--no-ext-diff", "-M", "-U0", f"{base}...{head}")
        return parse_unified_diff(text)

    def rev_parse(self, ref: str) -> str:
        return self.run("rev-parse", "--verify", f"{ref}^{{commit}}").strip()


def trust_workspace(workspace: str) -> None:
    """`git config --global --add safe.directory WORKSPACE` once: the container's root does not own
    the checkout, and git refuses to work in it otherwise."""
    env = untrusted_env(os.environ)
    current = subprocess.run(
        ["git", "config", "--global", "--get-all", "safe.directory"], capture_output=True, text=True, check=False,
        env=env,
    ).stdout.split("\n")
    if workspace not in current and "*" not in current:
        subprocess.run(["git", "config", "--global", "--add", "safe.directory", workspace], check=False, env=env)


def parse_unified_diff(text: str) -> list[FileChange]:
    changes: list[FileChange] = []
    state: dict = {}

    def flush() -> None:
        if not state:
            return
        _deletion_point(state)
        old, new = state.get("old"), state.get("new")
        if state.get("deleted") or new is None:
            changes.append(FileChange(old or state["header_old"], ChangeKind.DELETED, old))
        elif state.get("added") or old is None:
            changes.append(FileChange(new, ChangeKind.ADDED, None, frozenset(state["touched"])))
        elif old != new:
            changes.append(FileChange(new, ChangeKind.RENAMED, old, frozenset(state["touched"])))
        else:
            changes.append(FileChange(new, ChangeKind.MODIFIED, old, frozenset(state["touched"])))
        state.clear()

    for line in text.splitlines():
        if line.startswith("diff --git "):
            flush()
            a, _, b = line[len("diff --git "):].partition(" b/")
            state.update(header_old=a[2:] if a.startswith("a/") else a, old=a[2:], new=b, touched=set())
        elif not state:
            continue
        elif line.startswith("new file mode"):
            state["added"] = True
        elif line.startswith("deleted file mode"):
            state["deleted"] = True
        elif line.startswith("rename from "):
            state["old"] = line[len("rename from "):]
        elif line.startswith("rename to "):
            state["new"] = line[len("rename to "):]
        elif line.startswith("--- "):
            path = line[4:]
            state["old"] = None if path == "/dev/null" else _strip_prefix(path, "a/")
        elif line.startswith("+++ "):
            path = line[4:]
            state["new"] = None if path == "/dev/null" else _strip_prefix(path, "b/")
        elif (match := HUNK.match(line)):
            _deletion_point(state)
            start, count = int(match.group(3)), int(match.group(4) or "1")
            # A pure deletion (count 0) sits after new line `start`; the "-" lines then touch both neighbours.
            state["new_line"] = start + 1 if count == 0 else start
        elif line.startswith("+") and "new_line" in state:
            state["touched"].add(state["new_line"])
            state["new_line"] += 1
            state["deleting"] = False  # "-" lines followed by "+" lines: a replacement, not a deletion
        elif line.startswith("-") and "new_line" in state:
            state["deleting"] = True
        elif line.startswith(" ") and "new_line" in state:
            _deletion_point(state)
            state["new_line"] += 1
    flush()
    return changes


def _deletion_point(state: dict) -> None:
    """Lines only deleted touch the new lines on both sides of the gap they leave."""
    if state.pop("deleting", False):
        state["touched"].update({max(state["new_line"] - 1, 1), state["new_line"]})


def _strip_prefix(path: str, prefix: str) -> str:
    path = path.split("\t", 1)[0]
    return path[len(prefix):] if path.startswith(prefix) else path


def _new_side_lines(patch: str | None) -> Iterator[tuple[int, str]]:
    """(new line, "+" or " ") for each new-side line inside the hunks of a GitHub `patch`.

    An empty context line (its leading space stripped by some producers) counts as context.
    """
    new_line = None
    for line in (patch or "").splitlines():
        match = HUNK.match(line)
        if match:
            new_line = int(match.group(3))
        elif new_line is not None and not line.startswith(("-", "\\")):  # "\ No newline at end of file"
            yield new_line, "+" if line.startswith("+") else " "
            new_line += 1


def commentable_lines(patch: str | None) -> frozenset[int]:
    """New-side (RIGHT) lines inside the hunks of a GitHub `patch`: added and context lines.

    GitHub accepts a line comment only on these; anything else fails the whole review with 422.
    """
    return frozenset(line for line, _ in _new_side_lines(patch))


def added_lines(patch: str | None) -> frozenset[int]:
    """New-side lines a GitHub `patch` adds (the `+` lines)."""
    return frozenset(line for line, kind in _new_side_lines(patch) if kind == "+")


def changes_from_pr_files(entries: list[dict]) -> list[FileChange]:
    """FileChanges from GitHub's pulls/N/files (when the checkout lacks the base commit)."""
    kinds = {"added": ChangeKind.ADDED, "removed": ChangeKind.DELETED, "renamed": ChangeKind.RENAMED,
             "copied": ChangeKind.ADDED}
    out = []
    for e in entries:
        kind = kinds.get(e.get("status", ""), ChangeKind.MODIFIED)
        old = e.get("previous_filename") or e["filename"]
        header = f"diff --git a/{old} b/{e['filename']}\n--- a/{old}\n+++ b/{e['filename']}\n"
        (parsed,) = parse_unified_diff(header + (e.get("patch") or "")) or (None,)
        touched = parsed.touched if parsed else frozenset()
        out.append(FileChange(e["filename"] if kind is not ChangeKind.DELETED else old, kind,
                              old if kind is not ChangeKind.ADDED else None, touched))
    return out

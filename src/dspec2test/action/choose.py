"""From a diff to the members to test: shared by `check` (local) and `action` (pull requests)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

from dspec2test.action.affected import Affected, change_scope
from dspec2test.action.diff import ChangeKind, FileChange, Git, GitError
from dspec2test.action.history import scratch_worktree
from dspec2test.action.members import MemberInfo, ProgramMembers
from dspec2test.action.pipeline import Target
from dspec2test.action.select import selected, shard
from dspec2test.errors import Diagnostic, Severity
from dspec2test.records import Status, Verdict
from dspec2test.report.findings import MEMBER

# (path, text) -> (members, diagnostics); the parser's reader unless a test substitutes one
MemberReader = Callable[[str, str], tuple[list[MemberInfo], list[Diagnostic]]]


# the reasons (action/affected.py) of members whose own text changed
OWN_CHANGE = ("changed line", "new file")


@dataclass(frozen=True)
class Selection:
    paths: Sequence[str] = ("**/*.dfy",)
    include: Sequence[str] = ()
    exclude: Sequence[str] = ()

    def __call__(self, path: str) -> bool:
        return selected(path, self.paths, self.include, self.exclude)


@dataclass
class Choice:
    affected: list[Affected] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)
    proved: list[MemberInfo] = field(default_factory=list)  # changed lemmas whose proofs Dafny checks

    def targets(self) -> list[Target]:
        by_file: dict[str, list[str]] = {}
        for a in self.affected:
            by_file.setdefault(a.member.file, []).append(a.member.name)
        return [Target(file, tuple(names)) for file, names in by_file.items()]

    def own_changes(self) -> frozenset[tuple[str, str]]:
        """(file, member) of the affected members whose own text changed, not those affected through what
        they call or use (contract strength measures these: a caller's contract and code are the same)."""
        return frozenset((a.member.file, a.member.name) for a in self.affected if a.reason.startswith(OWN_CHANGE))

    def ranges(self) -> dict[tuple[str, str], tuple[int, int]]:
        # a member inherited by refinement has its verdicts in the file its text is in
        spans = {(a.member.text_file, a.member.name): (a.member.line, a.member.end_line) for a in self.affected}
        return spans | {(a.member.file, a.member.name): (a.member.line, a.member.end_line) for a in self.affected}

    def member_records(self) -> list[dict]:
        """The affected members as the results file lists them: at the file their text is in, which their lines
        are of (a member a module inherits by `refines` is written in the refined module's file)."""
        return [{"file": a.member.text_file, "name": a.member.name, "line": a.member.line,
                 "end_line": a.member.end_line, "reason": a.reason, "kind": a.member.kind,
                 "ghost": a.member.ghost} for a in self.affected]

    def proved_sentence(self) -> str:
        """One line for the lemmas the change touched that Dafny proves: no test each, a count."""
        n = len(self.proved)
        return f"{n} lemma{'s' * (n != 1)}: proved by Dafny (not runtime code, not tested)" if n else ""

    def changed_errors(self) -> list[Diagnostic]:
        """Errors (parse errors) in the files the change touched: what `fail_on: errors` counts."""
        paths = {c.path for c in self.changes}
        return [d for d in self.diagnostics if d.file in paths and d.severity is Severity.ERROR]

    def touched(self) -> dict[str, frozenset[int]]:
        return {c.path: c.touched for c in self.changes}

    def complete(self, verdicts: Sequence[Verdict], diagnostics: Sequence[Diagnostic]) -> list[Verdict]:
        """The verdicts plus one `not-tested` verdict, with its reason, for each affected member that got
        none: our failure to test a member is never silent."""
        seen = {(v.file, v.method) for v in verdicts}
        out = list(verdicts)
        for a in self.affected:
            m = a.member
            if (m.file, m.name) in seen or (m.text_file, m.name) in seen:
                continue
            inside = [d for d in diagnostics if d.file == m.file and m.line <= d.line <= m.end_line]
            broken = [d for d in diagnostics if d.file == m.file and d.severity is Severity.ERROR]
            why = inside or broken[:1]
            reason = "; ".join(d.render() if d.line else d.message for d in why) or "no test was generated for it"
            out.append(Verdict("", m.name, MEMBER, 0, Status.NOT_TESTED, message=reason, file=m.file,
                               member_line=m.line))
        return out

    def normalise(self, v: Verdict, root: Path) -> Verdict:
        """A pipeline's verdict with its file relative to the root, and its member's line filled in."""
        file = relative(v.file, root)
        span = self.ranges().get((file, v.method))
        return replace(v, file=file, member_line=v.member_line or (span[0] if span else 0),
                       clause_file=relative(v.clause_file, root))


def relative(path: str, root: Path) -> str:
    if not path:
        return path
    p = Path(path)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return p.as_posix()
    return p.as_posix().removeprefix("./")


class _Reader:
    """Reads members of files under root once each, collecting parse diagnostics."""

    def __init__(self, root: Path, diagnostics: list[Diagnostic], read: MemberReader):
        self.root, self.diagnostics, self.read = root, diagnostics, read
        self.cache: dict[str, list[MemberInfo]] = {}
        self.texts: dict[str, str | None] = {}

    def __call__(self, path: str) -> list[MemberInfo]:
        if path not in self.cache:
            text = self.text(path)
            if text is None:
                self.cache[path] = []
                return []
            members, diags = self.read(path, text)
            self.diagnostics.extend(diags)
            self.cache[path] = members
        return self.cache[path]

    def text(self, path: str) -> str | None:
        if path not in self.texts:
            try:
                self.texts[path] = (self.root / path).read_text(encoding="utf-8")
            except OSError as exc:
                self.diagnostics.append(Diagnostic(path, 0, 0, f"cannot read: {exc.strerror or exc}"))
                self.texts[path] = None
        return self.texts[path]

    def mentions(self, path: str, names: set[str]) -> bool:
        text = self.text(path)
        return text is not None and any(name in text for name in names)


def choose_changed(root: Path, changes: Sequence[FileChange], selection: Selection, shard_k_n=(1, 1),
                   read: MemberReader | None = None) -> Choice:
    """Changes in any Dafny file count (a selected file may use a changed predicate of another one);
    only members of selected files are tested. Files are read within their programs unless `read`
    stands in."""
    diagnostics: list[Diagnostic] = []
    reader = _Reader(root, diagnostics, read or ProgramMembers(root))
    relevant = [c for c in changes if c.path.endswith(".dfy")]

    def others() -> list[str]:
        return [p for p in tracked_files(root) if p.endswith(".dfy")]

    scope = change_scope(relevant, reader, others, reader.mentions)
    found = [a for a in scope.affected if selection(a.member.file)]
    k, n = shard_k_n
    kept = [d for d in diagnostics if selection(d.file)]
    proved = [m for m in scope.proved if selection(m.file)] if k == 1 else []
    return Choice(shard(found, k, n, key=lambda a: a.key), kept, list(changes), proved)


def choose_all(root: Path, selection: Selection, shard_k_n=(1, 1), read: MemberReader | None = None) -> Choice:
    """Every testable member of every selected file (events without a pull request)."""
    files = [p for p in tracked_files(root) if selection(p)]
    changes = [FileChange(p, ChangeKind.ADDED) for p in files]
    return choose_changed(root, changes, selection, shard_k_n, read)


def tracked_files(root: Path) -> list[str]:
    try:
        listed = Git(root).run("ls-files", "--cached", "--others", "--exclude-standard")
        return sorted(set(line for line in listed.splitlines() if line))
    except (GitError, OSError):  # not a git checkout: walk the folder instead
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.dfy") if ".git" not in p.parts)


@contextlib.contextmanager
def checkout_of(git: Git, ref: str | None) -> Iterator[Path]:
    """The folder holding `ref`'s files: the work tree itself when it is at ref (or ref is None), else
    a temporary detached worktree, removed afterwards."""
    if ref is None or git.rev_parse(ref) == git.rev_parse("HEAD"):
        yield git.cwd
        return
    with scratch_worktree(git, ref, prefix="dspec2test-head-") as target:
        yield target

"""Which members a change affects.

A member is affected when the diff touches its lines (contract, signature or body), when its file is
new, or when its contract mentions a function, predicate or constant whose meaning changed (directly,
or through the bodies of other functions). Deleted files are ignored; renamed files are followed to
their new path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from dspec2test.action.diff import ChangeKind, FileChange
from dspec2test.action.members import MemberInfo


@dataclass(frozen=True)
class Affected:
    member: MemberInfo
    reason: str  # "changed lines 12-14", "new file", "contract uses changed IsSorted"

    @property
    def key(self) -> str:
        return f"{self.member.file}::{self.member.name}"


def touched_members(change: FileChange, members: Iterable[MemberInfo]) -> list[tuple[MemberInfo, str]]:
    found = []
    for m in members:
        if change.kind is ChangeKind.ADDED:
            found.append((m, "new file"))
            continue
        hit = sorted(line for line in change.touched if m.line <= line <= m.end_line)
        if hit:
            found.append((m, f"changed line{'s' if len(hit) > 1 else ''} {_ranges(hit)}"))
    return found


def affected_members(
    changes: Iterable[FileChange],
    members_of: Callable[[str], list[MemberInfo]],
    other_files: Callable[[], Iterable[str]] = lambda: (),
) -> list[Affected]:
    """members_of(path) reads a file's members at head; other_files() lists the unchanged files that
    may call a changed function (read only when some function changed)."""
    changes = [c for c in changes if c.kind is not ChangeKind.DELETED]
    by_file: dict[str, list[MemberInfo]] = {c.path: members_of(c.path) for c in changes}
    reasons: dict[tuple[str, str], str] = {}
    changed_names: set[str] = set()
    for change in changes:
        for member, reason in touched_members(change, by_file[change.path]):
            reasons[(member.file, member.name)] = reason
            if member.is_function or member.kind == "const":
                changed_names.add(member.short_name)
    if changed_names:
        for path in other_files():
            if path not in by_file:
                by_file[path] = members_of(path)
        everything = [m for ms in by_file.values() for m in ms]
        _close_over_functions(changed_names, everything)
        for member in everything:
            used = sorted(member.contract_names & changed_names - {member.short_name})
            if used and (member.file, member.name) not in reasons:
                reasons[(member.file, member.name)] = f"contract uses changed {', '.join(used)}"
    result = [
        Affected(m, reasons[(m.file, m.name)])
        for ms in by_file.values()
        for m in ms
        if (m.file, m.name) in reasons and m.testable
    ]
    return sorted(result, key=lambda a: (a.member.file, a.member.line, a.member.name))


def _close_over_functions(changed: set[str], members: list[MemberInfo]) -> None:
    """A function whose body or contract uses a changed name has changed meaning too."""
    grew = True
    while grew:
        grew = False
        for m in members:
            if m.is_function and m.short_name not in changed and (m.body_names | m.contract_names) & changed:
                changed.add(m.short_name)
                grew = True


def _ranges(lines: list[int]) -> str:
    parts, start, prev = [], lines[0], lines[0]
    for line in lines[1:] + [None]:
        if line is not None and line == prev + 1:
            prev = line
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if line is not None:
            start = prev = line
    return ", ".join(parts)

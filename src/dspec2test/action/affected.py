"""Which members a change affects.

A member is affected when the diff can change what its tests see: the diff touches its lines
(contract, signature or body), its file is new, its body uses a method, function or constant whose
behaviour changed (directly, or transitively through other bodies, in any file), or its contract uses
a function, predicate or constant whose meaning changed. Deleted files are ignored; renamed files are
followed to their new path. Names are resolved in each file's program (model/scope.py), and only
compiled code carries a change: a lemma or ghost function reaches no caller. A member called on a value
whose type is not known here is matched by its name among the program's compiled type members.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Callable, Iterable

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
        if m.text_file != change.path:
            continue  # inherited by refinement from another file: its lines are that file's
        if change.kind is ChangeKind.ADDED:
            found.append((m, "new file"))
            continue
        hit = sorted(line for line in change.touched if m.line <= line <= m.end_line)
        if hit:
            found.append((m, f"changed line{'s' if len(hit) > 1 else ''} {_ranges(hit)}"))
    return found


@dataclass(frozen=True)
class Reach:
    """What a change reaches: the members to test, and the lemmas whose changed proofs Dafny checks."""

    affected: list[Affected]
    proved: list[MemberInfo]  # lemmas the change touched whose proof is complete: not tested, counted


def affected_members(
    changes: Iterable[FileChange],
    members_of: Callable[[str], list[MemberInfo]],
    other_files: Callable[[], Iterable[str]] = lambda: (),
    mentions: Callable[[str, set[str]], bool] = lambda _path, _names: True,
) -> list[Affected]:
    return change_scope(changes, members_of, other_files, mentions).affected


def change_scope(
    changes: Iterable[FileChange],
    members_of: Callable[[str], list[MemberInfo]],
    other_files: Callable[[], Iterable[str]] = lambda: (),
    mentions: Callable[[str, set[str]], bool] = lambda _path, _names: True,
) -> Reach:
    """members_of(path) reads a file's members at head; other_files() lists the unchanged files that
    may use a changed member (read only when some member changed); mentions(path, names) says whether
    a file's text contains one of the names at all, so that a file that cannot use them is not parsed."""
    changes = [c for c in changes if c.kind is not ChangeKind.DELETED]
    by_file: dict[str, list[MemberInfo]] = {c.path: members_of(c.path) for c in changes}
    reasons: dict[str, str] = {}
    for change in changes:
        for member, reason in touched_members(change, by_file[change.path]):
            reasons[member.id] = reason
    everything = [m for ms in by_file.values() for m in ms]
    via: dict[str, str | None] = {}
    if reasons:
        touched = {m.id for m in everything if m.id in reasons}
        pending = [p for p in other_files() if p not in by_file]
        while True:  # read the other files that mention a changed name, until no new name appears
            everything = [m for ms in by_file.values() for m in ms]
            via = _behaviour_changed(touched, everything)
            # a file whose text does not contain a name cannot refer to it: the parser reads the rest
            abstract = {m.id for m in everything if m.abstract}
            wanted = [p for p in pending if mentions(p, _mentionable(via, abstract))]
            if not wanted:
                break
            for path in wanted:
                by_file[path] = members_of(path)
                pending.remove(path)
        consts = {m.id for m in everything if m.kind == "const"}
        for member in everything:
            if member.id in reasons:
                continue
            calls = sorted(member.body_names & via.keys() - {member.id})
            used = sorted(member.contract_names & via.keys() - {member.id})
            if calls:
                verb = "uses" if set(calls) <= consts else "calls"
                reasons[member.id] = f"{verb} " + ", ".join(_chain(n, via) for n in calls)
            elif used:
                reasons[member.id] = "contract uses " + ", ".join(_chain(n, via) for n in used)
    seen: set[str] = set()
    result, proved = [], []
    for m in everything:
        if m.id in reasons and m.id not in seen:
            seen.add(m.id)
            if m.testable:
                result.append(Affected(m, reasons[m.id]))
            elif m.proved:
                proved.append(m)
    return Reach(sorted(result, key=lambda a: (a.member.file, a.member.line, a.member.name)), proved)


def _mentionable(via: dict[str, str | None], abstract: AbstractSet[str] = frozenset()) -> set[str]:
    """The words a file must contain to use one of these members: its name, or (for what a module
    refining an abstract one inherits) the name of its module. Not the module name of every member: a
    library's module is imported by most files of a project, and reading them all made a one-line change
    cost the whole project's parse."""
    out = set()
    for key in via:
        qualified = key.rsplit("::", 1)[-1]
        parts = qualified.split(".")
        out.add(parts[-1])
        if len(parts) > 1 and key in abstract:
            out.add(parts[-2])
    return out


def _behaviour_changed(touched: set[str], members: list[MemberInfo]) -> dict[str, str | None]:
    """Members whose behaviour the change can alter, each with the one it changed through (None for one
    whose own text changed): a member whose compiled code uses such a member, transitively, and a
    function whose contract does (its meaning in other contracts changes with its precondition)."""
    via: dict[str, str | None] = {key: None for key in touched}
    grew = True
    while grew:
        grew = False
        for m in members:
            if m.id in via:
                continue
            uses = m.body_names | (m.contract_names if m.is_function else frozenset())
            hit = sorted(uses & via.keys())
            if hit:
                via[m.id] = hit[0]
                grew = True
    return via


def _short(key: str) -> str:
    return key.rsplit("::", 1)[-1].rsplit(".", 1)[-1]


def _chain(name: str, via: dict[str, str | None]) -> str:
    """`changed Helper`, or `Mid (which uses changed Helper)` for a name that changed through another."""
    steps, seen = [name], {name}
    while via.get(steps[-1]) is not None and via[steps[-1]] not in seen:
        steps.append(via[steps[-1]])  # type: ignore[arg-type]
        seen.add(steps[-1])
    shown = [_short(s) for s in steps]
    if len(steps) == 1:
        return f"changed {shown[0]}"
    return f"{shown[0]} (which uses {' -> '.join(shown[1:-1]) + ' -> ' if len(steps) > 2 else ''}changed {shown[-1]})"


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

"""Contract strength findings in the pull request review: a warning comment per mutant on its mutated
line, planned into the same review as the failing partitions (one review per run), with markers of their
own so re-runs update, skip or remove them like the others."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence

from dspec2test.report.review import MAX_COMMENTS, Existing, FileComment, LineComment, Plan, marker, retired_body
from dspec2test.report.strength import comment_body, finding_lines
from dspec2test.strength.records import WeakFinding

PREFIX = "weak::"


def weak_key(f: WeakFinding) -> str:
    """Stable over runs while the change the mutant makes is the same (mutant numbers may shift)."""
    digest = hashlib.sha1(f"{f.line}:{f.after}".encode()).hexdigest()[:12]
    return f"{PREFIX}{f.file}::{f.member}::{digest}"


def _owner(key: str) -> tuple[str, str] | None:
    parts = key[len(PREFIX):].rsplit("::", 2)
    return (parts[0], parts[1]) if key.startswith(PREFIX) and len(parts) == 3 else None


def _anchor(f: WeakFinding, commentable: Mapping[str, frozenset[int]], added: Mapping[str, frozenset[int]],
            member_range: tuple[int, int] | None) -> int | str | None:
    """The mutated line when the diff shows it, else a changed line of the member, else the file."""
    if f.file not in commentable:
        return None
    lines = commentable[f.file]
    if f.line in lines:
        return f.line
    lo, hi = member_range or (f.member_line, f.member_line)
    inside = sorted(n for n in lines if lo <= n <= hi)
    changed = [n for n in inside if n in added.get(f.file, frozenset())]
    return changed[0] if changed else inside[0] if inside else "file"


def add_weak(plan: Plan, weak: Sequence[WeakFinding], commentable: Mapping[str, frozenset[int]],
             added: Mapping[str, frozenset[int]], member_ranges: Mapping[tuple[str, str], tuple[int, int]],
             existing: Iterable[Existing], measured: set[tuple[str, str]], failing: bool) -> None:
    """Add the weak-contract comments to `plan` (already holding the failing partitions'). `measured`:
    (file, member) whose strength this run measured: their old comments that no finding repeats are
    removed. `failing`: the review also reports failing partitions (its body stays theirs)."""
    mine = {c.key: c for c in existing if c.key.startswith(PREFIX)}
    budget = MAX_COMMENTS - plan.created - len(plan.updates)
    live, unshown = set(), []
    for f in weak:
        key = weak_key(f)
        if key in live:
            continue
        live.add(key)
        body = marker(key) + "\n" + comment_body(f)
        old = mine.get(key)
        if old and not old.stale:
            if old.body.strip() == body.strip():
                plan.skipped.append(key)
            elif budget > 0:
                plan.updates.append((old.id, body))
                budget -= 1
            continue
        if old and old.stale:
            _retire(plan, old, "outdated: the code changed since; a newer comment reports this change.")
        where = _anchor(f, commentable, added, member_ranges.get((f.file, f.member)))
        if where is None or budget <= 0:
            unshown.append(f)
            continue
        budget -= 1
        if where == "file":
            plan.file_comments.append(FileComment(key, f.file, body))
        else:
            plan.line_comments.append(LineComment(key, f.file, int(where), body))
    for key, c in mine.items():
        if key not in live and _owner(key) in measured:
            _retire(plan, c, "the contract now rules this change out (or the code changed).")
    if not failing and plan.line_comments:
        plan.review_body = ("<!-- dspec2test:review -->\n**dspec2test**: every test passes; the comments below are "
                            "warnings about contracts that accept a changed implementation.")
    if unshown and plan.needs_review:
        plan.review_body += "\n\nContracts that accept a changed implementation, outside the diff:\n\n" + "\n".join(
            f"- `{f.file}:{f.line}` `{f.member}`: " + "; ".join(finding_lines(f)) for f in unshown[:50])


def _retire(plan: Plan, c: Existing, why: str) -> None:
    """A comment someone answered is edited to say why it is over; another is deleted."""
    if c.replies:
        plan.updates.append((c.id, retired_body(c, why)))
    else:
        plan.deletes.append(c.id)

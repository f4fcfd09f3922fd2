"""Planning a pull request review, with no I/O: which finding (a broken clause of a member) goes where.

Anchors follow GitHub's rule that a line comment must sit on a line of the PR's diff (else the whole
review is rejected with 422): the broken clause's line if it is in the diff, else a changed line of
the member, else a file-level comment when the file is part of the PR, else the review body.
Re-runs recognise their own comments (written by our identity, with a hidden marker per finding)
and update, skip or delete them instead of adding duplicates. A comment that someone answered is never
deleted (that would take the discussion with it): it is retired instead, edited to say it is fixed or
outdated, with its marker changed so that it is not taken for a live one again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from dspec2test.report.findings import Finding, extent, facts, headline, verb
from dspec2test.report.summary import cases_table, inline

MAX_COMMENTS = 30
MAX_BODY_ITEMS = 100  # a review body holds at most 65,536 characters
MARKER = re.compile(r"<!-- dspec2test:(.+?) -->")
PER_PARTITION = re.compile(r"::p\d+$")  # the keys of earlier versions, one comment per partition


def marker(key: str) -> str:
    return f"<!-- dspec2test:{key.replace('--', '-&#45;')} -->"


def key_of(body: str) -> str | None:
    match = MARKER.search(body or "")
    return match.group(1).replace("-&#45;", "--") if match else None


RETIRED = "retired:"


def is_special(key: str) -> bool:
    """The review body's marker, and retired comments': not a live finding's comment."""
    return key == "review" or key.startswith(RETIRED)


def retired_body(c: "Existing", why: str) -> str:
    """The text a retired comment gets: why, then what it said (its marker replaced)."""
    earlier = MARKER.sub("", c.body).strip()
    return "\n".join([marker(RETIRED + c.key), f"**dspec2test**: {why}", "", "<details><summary>Earlier report</summary>",
                      "", earlier, "", "</details>"])


def method_of_key(key: str) -> tuple[str, str] | None:
    parts = key.rsplit("::", 2)
    return (parts[0], parts[1]) if len(parts) == 3 else None


def comment_body(f: Finding, reproduce: str) -> str:
    """Deterministic (no time, no sha): an unchanged failure yields the same text and is skipped."""
    lines = [marker(f.key), f"**dspec2test**: {_headline(f)}", ""]
    if f.first.label and not f.clause and not f.whole_member:
        lines += [f"Partition: `{f.first.label}`", ""]
    if f.whole_member and f.first.message:
        lines += [f"Reason: {_code(f.first.message)}", ""]
    elif not f.clause and len({v.message for v in f.verdicts}) == 1 and f.first.message:
        lines += [_code(f.first.message), ""]
    table = cases_table(f)
    if table:
        lines += table + [""]
    told = dict(facts(f))
    if "assumes" in told:
        lines += [f"Note: `assume` at {told['assumes']}.", ""]
    lines += ["Reproduce locally:", "```sh", reproduce, "```"]
    return "\n".join(lines)


def _headline(f: Finding) -> str:
    """`LastOrDefault`: **failed**: `|s| > 0 ==> r == s[|s| - 1]` broken on 6 of 11 tests."""
    if f.whole_member:
        return f"`{f.method}`: **{verb(f)}**"
    on = extent(f)
    if f.clause:
        return f"`{f.method}`: **{verb(f)}**: {_code(f.clause)} (`{f.path}:{f.line}`) broken {on}"
    return f"`{f.method}`: **{verb(f)}** {on}"


def _code(text: str) -> str:
    return inline(text)


@dataclass(frozen=True)
class Existing:
    id: int
    key: str
    body: str
    stale: bool = False  # GitHub reports line null: the anchor is outdated after a push
    replies: int = 0  # comments in its thread after it: then it is retired, never deleted


@dataclass(frozen=True)
class LineComment:
    key: str
    path: str
    line: int
    body: str


@dataclass(frozen=True)
class FileComment:
    key: str
    path: str
    body: str


@dataclass
class Plan:
    line_comments: list[LineComment] = field(default_factory=list)
    file_comments: list[FileComment] = field(default_factory=list)
    updates: list[tuple[int, str]] = field(default_factory=list)  # (comment id, new body)
    skipped: list[str] = field(default_factory=list)  # keys already posted with the same text
    deletes: list[int] = field(default_factory=list)  # comments of findings that now pass
    in_body: list[Finding] = field(default_factory=list)  # no anchor, or over the comment cap
    review_body: str = ""

    @property
    def writes(self) -> int:
        return len(self.file_comments) + len(self.updates) + len(self.deletes) + (1 if self.needs_review else 0)

    @property
    def needs_review(self) -> bool:
        return bool(self.line_comments or self.in_body)

    @property
    def created(self) -> int:
        return len(self.line_comments) + len(self.file_comments)


def anchor(
    f: Finding,
    commentable: Mapping[str, frozenset[int]],
    added: Mapping[str, frozenset[int]],
    member_range: tuple[int, int] | None,
) -> int | str | None:
    """A line number, "file" for a file-level comment, or None (review body)."""
    if f.file not in commentable:
        return None
    lines = commentable[f.file]
    clause = f.first.clause_line
    if clause and not f.first.clause_file and clause in lines:  # (a clause of another file: the member's lines)
        return clause
    lo, hi = member_range or (f.first.member_line, f.first.member_line)
    if lo:
        inside = sorted(line for line in lines if lo <= line <= hi)
        changed = [line for line in inside if line in added.get(f.file, frozenset())]
        if changed or inside:
            return (changed or inside)[0]
    return "file"


def plan_review(
    findings: Iterable[Finding],
    bodies: Mapping[str, str],
    commentable: Mapping[str, frozenset[int]],
    added: Mapping[str, frozenset[int]],
    member_ranges: Mapping[tuple[str, str], tuple[int, int]],
    existing: Iterable[Existing],
    tested_methods: set[tuple[str, str]],
    max_comments: int = MAX_COMMENTS,
    review_bodies: Iterable[str] = (),
) -> Plan:
    plan = Plan()
    mine: dict[str, Existing] = {}

    def retire(c: Existing, why: str) -> None:
        if c.replies:
            plan.updates.append((c.id, retired_body(c, why)))
        else:
            plan.deletes.append(c.id)

    # a duplicate left by an earlier crash: keep one, the discussed one if any
    for c in sorted(existing, key=lambda c: (-c.replies, c.id)):
        if c.key in mine:
            retire(c, "this duplicate is outdated; see the other comment on this finding.")
        else:
            mine[c.key] = c
    failing = {f.key for f in findings}
    budget = max_comments
    for f in findings:
        body = bodies[f.key]
        old = mine.get(f.key)
        if old and not old.stale:
            if old.body.strip() == body.strip():
                plan.skipped.append(f.key)
            elif budget > 0:
                plan.updates.append((old.id, body))
                budget -= 1
            else:
                plan.skipped.append(f.key)  # still there, text a little behind; the body says more
            continue
        if old and old.stale:
            retire(old, "outdated: the code changed since; a newer comment reports this finding.")
        where = anchor(f, commentable, added, member_ranges.get((f.file, f.method)))
        if where is None or budget <= 0:
            plan.in_body.append(f)
            continue
        budget -= 1
        if where == "file":
            plan.file_comments.append(FileComment(f.key, f.file, body))
        else:
            plan.line_comments.append(LineComment(f.key, f.file, int(where), body))
    for key, c in mine.items():
        owner = method_of_key(key)
        if key not in failing and owner in tested_methods:
            retire(c, "superseded: dspec2test now reports each broken clause once; see the newer comment."
                   if PER_PARTITION.search(key) else "fixed: no test breaks this any more.")
    plan.review_body = review_body(findings, plan)
    if not plan.line_comments and plan.review_body.strip() in {b.strip() for b in review_bodies}:
        plan.in_body = []  # the same summary review is already there: say nothing twice
    return plan


def review_body(findings: Iterable[Finding], plan: Plan) -> str:
    """Only what the line comments do not say, so that an unchanged run produces the same text."""
    lines = ["<!-- dspec2test:review -->", "**dspec2test** found failures; details are in the comments below."]
    if plan.in_body:
        lines = ["<!-- dspec2test:review -->",
                 "**dspec2test**: failures not shown as line comments "
                 "(outside the diff, or over the limit of comments):", ""]
        for f in plan.in_body[:MAX_BODY_ITEMS]:
            detail = "; ".join(f"{n} {_code(v)}" for n, v in facts(f) if n in ("inputs", "expected", "actual", "clause"))
            lines.append(f"- `{f.path}:{f.line}` {headline(f)}" + (f": {detail}" if detail else ""))
        if len(plan.in_body) > MAX_BODY_ITEMS:
            lines.append(f"- ... and {len(plan.in_body) - MAX_BODY_ITEMS} more")
    lines += ["", "The job summary lists every finding and partition."]
    return "\n".join(lines)

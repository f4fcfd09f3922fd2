"""GitHub annotations: workflow commands (`::error file=F,line=L,title=T::message`, escaped as the
runner expects, within GitHub's budget of 10 errors and 10 warnings per step) and check-run annotations.

The implementation's failures (failed, crashed, timeout) are errors; a partition that could not be
judged (bad-input, no-implementation, not-tested) and a diagnostic are warnings. Failures on lines the
change touched come first, then those in members it touched, then the rest (callers); what does not fit
is counted in one notice (the job summary has them all).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from dspec2test.errors import Diagnostic, Severity
from dspec2test.report.findings import Finding, facts, headline

MAX_PER_LEVEL = 10  # GitHub shows at most 10 error and 10 warning annotations of a step
CHECK_MESSAGE_LIMIT = 64 * 1024  # a check-run annotation's message is at most 64 KB


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **properties: object) -> str:
    props = ",".join(f"{k}={escape_property(str(v))}" for k, v in properties.items() if v not in (None, ""))
    return f"::{kind}{' ' + props if props else ''}::{escape_data(message)}"


@dataclass(frozen=True)
class Annotation:
    level: str  # "error" | "warning" (workflow-command words; check runs say "failure" for "error")
    file: str
    line: int
    title: str
    message: str
    nearness: int = 2  # 0: on a line the change touched; 1: in a member it touched; 2: elsewhere (a caller)


def collect(findings: Iterable[Finding], diagnostics: Iterable[Diagnostic] = (),
            touched: Mapping[str, frozenset[int]] | None = None,
            ranges: Mapping[tuple[str, str], tuple[int, int]] | None = None) -> list[Annotation]:
    """Every annotation: the ones on touched lines first, then those in touched members (ranges:
    (file, member) -> lines), then the rest; errors before warnings within each."""
    touched_lines = touched or {}
    member_ranges = ranges or {}

    def nearness(file: str, line: int, member: str = "") -> int:
        lines = touched_lines.get(file, frozenset())
        lo, hi = member_ranges.get((file, member), (0, -1))
        return 0 if line in lines else 1 if any(lo <= n <= hi for n in lines) else 2

    out = [Annotation("error" if f.status.is_failure else "warning", f.path, f.line, f"dspec2test: {headline(f)}",
                      "\n".join(f"{name}: {value}" for name, value in facts(f)), nearness(f.path, f.line, f.method))
           for f in findings]
    out += [Annotation("error" if d.severity is Severity.ERROR else "warning", d.file, max(d.line, 1),
                       f"dspec2test: {d.severity.value}", d.message, nearness(d.file, d.line))
            for d in diagnostics]
    return sorted(out, key=lambda a: (a.nearness, a.level != "error"))


def workflow_commands(annotations: Iterable[Annotation], limit: int = MAX_PER_LEVEL) -> list[str]:
    """At most `limit` errors and `limit` warnings, then one notice counting the rest."""
    shown: dict[str, int] = {}
    lines, left = [], {"error": 0, "warning": 0}
    for a in annotations:
        if shown.get(a.level, 0) >= limit:
            left[a.level] += 1
            continue
        shown[a.level] = shown.get(a.level, 0) + 1
        lines.append(command(a.level, a.message, file=a.file, line=a.line, title=a.title))
    if any(left.values()):
        counted = " and ".join(f"{n} more {level}{'s' * (n != 1)}" for level, n in left.items() if n)
        lines.append(command("notice", f"{counted} than GitHub shows per step: the job summary lists them all.",
                             title="dspec2test"))
    return lines


def check_run_annotations(annotations: Iterable[Annotation]) -> list[dict]:
    """The Checks API's annotation objects, every one of them (they are sent 50 at a time)."""
    return [{"path": a.file, "start_line": a.line, "end_line": a.line,
             "annotation_level": "failure" if a.level == "error" else "warning",
             "title": a.title[:255], "message": a.message[:CHECK_MESSAGE_LIMIT] or a.title}
            for a in annotations]

"""The results file (`json_path`): verdicts plus the members tested, readable back for publishing.

A superset of `run --json` ({"tests": [...], "summary": {...}}), so tools that read one read the other;
the `results` input publishes such a file from a trusted workflow (the fork pattern).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from collections.abc import Sequence
from pathlib import Path

from dspec2test.report.coverage import coverage_of_members
from dspec2test.report.findings import Totals
from dspec2test.report.strength import document as strength_document, strength_from
from dspec2test.strength.records import MemberStrength
from dspec2test.errors import Diagnostic
from dspec2test.records import Status, Verdict


def verdict_dict(v: Verdict) -> dict:
    d = asdict(v)
    d["status"] = v.status.value
    d["name"] = v.test
    return d


def verdict_from(d: dict) -> Verdict:
    fields = {k: d[k] for k in Verdict.__dataclass_fields__ if k in d}
    fields.setdefault("test", d.get("name", ""))
    fields["status"] = Status(d["status"])
    fields["inputs"] = dict(d.get("inputs") or {})
    fields["assumes"] = tuple(d.get("assumes") or ())
    return Verdict(**fields)


def dumps(verdicts, members: list[dict], diagnostics: list[Diagnostic], coverage: Sequence[dict] = (),
          strength: Sequence[MemberStrength] = ()) -> str:
    totals = Totals.of(verdicts)
    doc = {
        "tests": [verdict_dict(v) for v in verdicts],
        "summary": {"tests": totals.tests, **totals.by_status(), "methods": totals.methods},
        "members": members,
        "diagnostics": [{"file": d.file, "line": d.line, "col": d.col, "message": d.message,
                         "severity": d.severity.value} for d in diagnostics],
    }
    if coverage:
        doc["coverage"] = coverage_of_members(coverage)
    if strength:
        doc["strength"] = strength_document(strength)
    return json.dumps(doc, indent=2) + "\n"


def load_extras(path: Path) -> tuple[list[dict], list[MemberStrength]]:
    """The clause coverage and contract strength a results file holds (empty when it holds none)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    coverage = list((data.get("coverage") or {}).get("members", []))
    return coverage, strength_from(data["strength"]) if data.get("strength") else []


def load(path: Path) -> tuple[list[Verdict], list[dict]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [verdict_from(t) for t in data.get("tests", [])], list(data.get("members", []))

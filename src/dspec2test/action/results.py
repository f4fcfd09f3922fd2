"""The results file (`json_path`): verdicts plus the members tested, readable back for publishing.

A superset of `run --json` ({"tests": [...], "summary": {...}}), so tools that read one read the other;
the `results` input publishes such a file from a trusted workflow (the fork pattern).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from dspec2test.report.findings import Totals
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


def dumps(verdicts, members: list[dict], diagnostics: list[Diagnostic]) -> str:
    totals = Totals.of(verdicts)
    return json.dumps({
        "tests": [verdict_dict(v) for v in verdicts],
        "summary": {"tests": totals.tests, **totals.by_status(), "methods": totals.methods},
        "members": members,
        "diagnostics": [{"file": d.file, "line": d.line, "col": d.col, "message": d.message,
                         "severity": d.severity.value} for d in diagnostics],
    }, indent=2) + "\n"


def load(path: Path) -> tuple[list[Verdict], list[dict]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [verdict_from(t) for t in data.get("tests", [])], list(data.get("members", []))

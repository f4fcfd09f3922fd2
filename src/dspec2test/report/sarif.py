"""SARIF 2.1.0: one result per failing partition, with stable rule ids for code-scanning upload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from dspec2test import __version__
from dspec2test.report.findings import Finding, facts, headline
from dspec2test.records import Status

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

# Stable ids: code scanning keys alerts on (rule id, fingerprint), so these must never be renumbered.
RULES = {
    Status.FAILED: ("DSPEC001", "partition-fails", "A generated test of a contract partition fails."),
    Status.TIMEOUT: ("DSPEC002", "partition-timeout", "A generated test of a contract partition timed out."),
    Status.NOT_TESTED: ("DSPEC003", "partition-not-tested", "A generated test could not run (build or internal error)."),
    Status.CRASHED: ("DSPEC004", "partition-crashes", "The implementation halted or threw on a partition's input."),
    Status.BAD_INPUT: ("DSPEC005", "partition-bad-input", "dspec2test generated an input that breaks the contract."),
    Status.NO_IMPLEMENTATION: ("DSPEC006", "member-no-implementation", "The member, or a method it calls, has no body."),
}


def automation_id(shard: int = 1, shards: int = 1) -> str:
    """The run's `automationDetails.id`: its category for code scanning is the part before the last
    slash, so each shard of a matrix keeps its own alerts (and `merge` may put them in one file)."""
    return "dspec2test/" if shards == 1 else f"dspec2test/shard-{shard}-of-{shards}/"


def sarif(findings: Iterable[Finding], automation: str = automation_id()) -> dict:
    results = []
    for f in findings:
        rule_id = RULES[f.status][0]
        results.append({
            "ruleId": rule_id,
            "level": "error" if f.status.is_failure else "warning",
            "message": {"text": headline(f) + "\n" + "\n".join(f"{n}: {v}" for n, v in facts(f))},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": f.file, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": f.line},
            }}],
            "partialFingerprints": {"dspec2test/partition/v1": f.key},
        })
    rules = [
        {"id": rid, "name": name, "shortDescription": {"text": text}, "defaultConfiguration": {"level": "error"}}
        for rid, name, text in RULES.values()
    ]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "dspec2test", "version": __version__, "rules": rules,
            }},
            "automationDetails": {"id": automation},
            "results": results,
        }],
    }


def dumps(findings: Iterable[Finding], automation: str = automation_id()) -> str:
    return json.dumps(sarif(findings, automation), indent=2) + "\n"


def merge_sarif(paths: Iterable[Path]) -> tuple[str, int]:
    """One SARIF log holding every run of the given files (each shard's run keeps its automation id),
    and the number of results."""
    runs = []
    seen: dict[tuple[str, str], Path] = {}
    for path in paths:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
            raise ValueError(f"{path}: not a SARIF log (no runs)")
        for run in doc["runs"]:
            key = (str(((run.get("tool") or {}).get("driver") or {}).get("name", "")), category(run))
            if key in seen:
                # code scanning rejects an upload with two runs of one tool and category
                raise ValueError(f"{path} and {seen[key]} both hold a run of category {key[1]!r}: give each shard "
                                 "its own `shard: k/n`, or upload them apart")
            seen[key] = path
        runs += doc["runs"]
    merged = {"$schema": SCHEMA, "version": "2.1.0", "runs": runs}
    return json.dumps(merged, indent=2) + "\n", sum(len(r.get("results") or []) for r in runs)


def category(run: dict) -> str:
    """A run's code-scanning category: its `automationDetails.id` up to the last slash."""
    ident = str((run.get("automationDetails") or {}).get("id") or "")
    return ident[: ident.rfind("/") + 1] if "/" in ident else ident

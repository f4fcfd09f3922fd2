"""SARIF 2.1.0: one result per broken clause and member (report/findings.py), with stable rule ids, help
text and levels (the implementation's failures are errors; what dspec2test could not test is a note)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from dspec2test import __version__
from dspec2test.report.findings import Finding, facts, headline
from dspec2test.records import Status

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

@dataclass(frozen=True)
class Rule:
    id: str  # stable: code scanning keys alerts on (rule id, fingerprint), so these are never renumbered
    name: str
    short: str
    help: str  # what it means and what to do, shown by code scanning beside each alert
    level: str  # SARIF's: error (the implementation's fault), warning, note (ours, or not yet testable)


RULES = {
    Status.FAILED: Rule(
        "DSPEC001", "partition-fails", "The implementation breaks a clause of its contract.",
        "A test generated from the member's requires/ensures called it on inputs that meet its requires, and "
        "the result broke the clause shown (with the value the clause expects next to the one returned, where "
        "the clause pins one). Fix the implementation, or the contract if it says something else than meant; "
        "the alert lists every input that broke this clause. Reproduce with `dspec2test run FILE --method M`.",
        "error"),
    Status.TIMEOUT: Rule(
        "DSPEC002", "partition-timeout", "The implementation did not return within the time limit.",
        "The member was called on inputs that meet its requires and had not returned when the per-test limit "
        "(`timeout`) ran out: a loop that does not end on these inputs, or a much slower algorithm than the "
        "inputs call for.", "error"),
    Status.NOT_TESTED: Rule(
        "DSPEC003", "partition-not-tested", "A member or test could not be tested.",
        "dspec2test could not test this (an unsupported construct, the solver found no input, the build "
        "failed, or its own internal error); the reason is in the message. Nothing is known about the code "
        "here either way.", "note"),
    Status.CRASHED: Rule(
        "DSPEC004", "partition-crashes", "The implementation halted or threw on an input its requires allows.",
        "The member was called on inputs that meet its requires and halted (an index out of range, a division "
        "by zero, an `expect` of its own) or threw. Its requires may be too weak, or the body wrong.", "error"),
    Status.BAD_INPUT: Rule(
        "DSPEC005", "partition-bad-input", "dspec2test generated an input that breaks the contract.",
        "A generated input broke a requires or a type constraint before the member was called: a bug of "
        "dspec2test, not of the code. The test was not counted against the implementation.", "note"),
    Status.NO_IMPLEMENTATION: Rule(
        "DSPEC006", "member-no-implementation", "The member, or a method it calls, has no body.",
        "Its tests cannot run until the body exists: the red state of writing the contract first.", "warning"),
}
FINGERPRINT = "dspec2test/finding/v2"  # per member and broken clause (v1 was per partition)


def automation_id(shard: int = 1, shards: int = 1) -> str:
    """The run's `automationDetails.id`: its category for code scanning is the part before the last
    slash, so each shard of a matrix keeps its own alerts (and `merge` may put them in one file)."""
    return "dspec2test/" if shards == 1 else f"dspec2test/shard-{shard}-of-{shards}/"


def sarif(findings: Iterable[Finding], automation: str = automation_id()) -> dict:
    results = []
    for f in findings:
        rule = RULES[f.status]
        results.append({
            "ruleId": rule.id,
            "level": rule.level,
            "message": {"text": headline(f) + "\n" + "\n".join(f"{n}: {v}" for n, v in facts(f))},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": f.line},
            }}],
            "partialFingerprints": {FINGERPRINT: f.key},
            "properties": {"failingTests": len(f.verdicts), "memberTests": f.tests},
        })
    rules = [
        {"id": r.id, "name": r.name, "shortDescription": {"text": r.short}, "fullDescription": {"text": r.help},
         "help": {"text": r.help, "markdown": r.help}, "defaultConfiguration": {"level": r.level},
         "properties": {"tags": ["correctness", "dafny"]}}
        for r in RULES.values()
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

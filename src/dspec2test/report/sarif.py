"""SARIF 2.1.0: one result per failing partition, with stable rule ids for code-scanning upload."""

from __future__ import annotations

import json
from typing import Iterable

from dspec2test import __version__
from dspec2test.action.findings import Finding, facts, headline
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


def sarif(findings: Iterable[Finding]) -> dict:
    results = []
    for f in findings:
        rule_id = RULES[f.status][0]
        results.append({
            "ruleId": rule_id,
            "level": "error",
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
            "results": results,
        }],
    }


def dumps(findings: Iterable[Finding]) -> str:
    return json.dumps(sarif(findings), indent=2) + "\n"

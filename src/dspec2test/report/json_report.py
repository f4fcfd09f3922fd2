"""The `run --json` document (DESIGN.md section 5), with a few extra fields per test."""

from __future__ import annotations

from collections import Counter

from dspec2test.records import Status, Verdict
from dspec2test.run.runner import RunResult


def summary(verdicts: tuple[Verdict, ...] | list[Verdict]) -> dict[str, int]:
    counts = Counter(v.status for v in verdicts)
    return {"tests": len(verdicts), **{s.value: counts.get(s, 0) for s in Status}}


def run_document(result: RunResult) -> dict:
    return {
        "program": result.program,
        "tests": [_test(v) for v in result.verdicts],
        "summary": summary(result.verdicts),
        "build_errors": [{"file": d.file, "line": d.line, "col": d.col, "message": d.message}
                         for d in result.build_errors],
        "no_body": list(result.no_body),
        "unbuilt": [{"file": d.file, "line": d.line, "col": d.col, "message": d.message} for d in result.unbuilt],
        "rounds": result.rounds,
        "wall_s": round(result.wall_s, 3),
    }


def _test(v: Verdict) -> dict:
    return {
        "name": v.test, "method": v.method, "partition": v.partition, "scenario": v.scenario,
        "status": v.status.value, "message": v.message,
        "file": v.file, "line": v.member_line, "label": v.label, "pin": v.pin, "inputs": v.inputs,
        "clause_line": v.clause_line, "clause_file": v.clause_file or None, "clause": v.clause,
        "expected": v.expected, "actual": v.actual,
        "test_line": v.line, "assumes": list(v.assumes), "instantiation": dict(v.instantiation),
        "expected_value": v.expected_value,
    }

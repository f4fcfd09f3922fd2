"""The `// @dspec2test {JSON}` line before each generated test: a TestCase as JSON, and back.

This is the only place that writes or reads it, so emit, run, check, action and bench agree on one format.
"""

from __future__ import annotations

import dataclasses
import json

from dspec2test.records import ScenarioKind, TestCase

MARKER = "// @dspec2test "


def write_metadata(tc: TestCase) -> str:
    """One comment line (no newline) holding `tc` as JSON; kind is written as its string value."""
    data = dataclasses.asdict(tc)
    data["kind"] = tc.kind.value
    data["clauses"] = list(tc.clauses)
    # ensure_ascii keeps the line one line whatever the literals hold (\n in a string literal, say).
    return MARKER + json.dumps(data, ensure_ascii=True, separators=(", ", ": "))


def read_metadata(text: str) -> list[TestCase]:
    """Every TestCase recorded in a tests file, in file order. Lines that are not ours are skipped."""
    cases = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(MARKER):
            cases.append(_from_dict(json.loads(stripped[len(MARKER):])))
    return cases


def _from_dict(data: dict) -> TestCase:
    known = {f.name for f in dataclasses.fields(TestCase)}
    values = {k: v for k, v in data.items() if k in known}  # tolerate fields added by newer writers
    values["kind"] = ScenarioKind(values["kind"])
    values["clauses"] = tuple(values.get("clauses", ()))
    values["inputs"] = dict(values.get("inputs", {}))
    values["outputs"] = dict(values.get("outputs", {}))
    return TestCase(**values)

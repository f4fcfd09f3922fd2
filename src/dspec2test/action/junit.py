"""JUnit XML for the action and `check` (junit-xml), and the merge of several shards' files.

One testsuite per program file, one testcase per generated test, with `file` and `line` of the member
so that test-report actions can link back to the source.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterable, Sequence

from junit_xml import TestCase, TestSuite, to_xml_report_string

from dspec2test.records import Status, Verdict


def junit_xml(verdicts: Sequence[Verdict]) -> str:
    suites: dict[str, list[TestCase]] = {}
    for v in verdicts:
        case = TestCase(
            name=f"partition {v.partition} scenario {v.scenario}" + (f": {v.label}" if v.label else ""),
            classname=f"{v.file}::{v.method}",
            file=v.file,
            line=v.clause_line or v.member_line or None,
        )
        text = _failure_text(v)
        if v.status is Status.FAILED:
            case.add_failure_info(message=v.message or "failed", output=text, failure_type="failed")
        elif v.status is Status.TIMEOUT:
            case.add_failure_info(message=v.message or "timed out", output=text, failure_type="timeout")
        elif v.status is Status.ERROR:
            case.add_error_info(message=v.message or "error", output=text, error_type="error")
        suites.setdefault(v.file, []).append(case)
    return to_xml_report_string([TestSuite(f"dspec2test {file}", cases) for file, cases in suites.items()])


def _failure_text(v: Verdict) -> str:
    lines = [f"test: {v.test}"]
    if v.inputs:
        lines.append("inputs: " + ", ".join(f"{k} = {x}" for k, x in v.inputs.items()))
    if v.expected:
        lines.append(f"expected: {v.expected}")
    if v.actual:
        lines.append(f"actual: {v.actual}")
    if v.clause:
        lines.append(f"clause (line {v.clause_line}): {v.clause}")
    return "\n".join(lines)


def merge_junit(paths: Iterable[Path]) -> tuple[str, dict[str, int]]:
    """One <testsuites> with every suite of the given files, and totals (tests, failures, errors)."""
    root = ET.Element("testsuites")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for path in paths:
        tree = ET.parse(path)
        top = tree.getroot()
        suites = [top] if top.tag == "testsuite" else list(top.iter("testsuite"))
        for suite in suites:
            root.append(suite)
            for key in totals:
                totals[key] += int(suite.get(key, "0") or 0)
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n", totals

"""JUnit XML: one testcase per generated test, with the member's file and line.

classname is file and member (`prog.dfy.M.Sum`), name is partition and scenario (`p1 s2: x == 0`), so
test reporters group by method and show which class failed. `failed` and `timeout` are failures, every
other status but passed an error; the type is always the status (`failed`, `crashed`, `bad-input`, ...).
A member that got no test at all is one testcase `not-tested: no test`, its reason the error message.
A matrix of shards writes one file each; `merge_junit` joins them into one for the upload step.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path
from typing import Iterable

from junit_xml import TestCase as JUnitCase
from junit_xml import TestSuite, to_xml_report_string

from dspec2test.records import Status, Verdict
from dspec2test.report.findings import MEMBER, expected_of


def test_name(v: Verdict) -> str:
    if v.partition == MEMBER:
        return f"{v.status.value}: no test"  # a member that got none, with the reason as the error
    return f"p{v.partition} s{v.scenario}: {v.pin or v.label or 'true'}"


def detail(v: Verdict) -> str:
    """The failure text: inputs, the broken clause and expected versus actual."""
    lines = [f"test: {v.test}"] if v.test else []
    if v.inputs:
        lines.append("inputs: " + ", ".join(f"{k} = {val}" for k, val in v.inputs.items()))
    if v.label:
        lines.append(f"partition: {v.label}")
    if v.clause_line:
        where = f"{Path(v.clause_path).name}:{v.clause_line}" if v.clause_path else f"line {v.clause_line}"
        lines.append(f"clause: {where}" + (f": {v.clause}" if v.clause else ""))
    if expected_of(v):
        lines.append(f"expected: {expected_of(v)}")
    if v.actual is not None:
        lines.append(f"actual: {v.actual}")
    if v.message:
        lines.append(f"message: {v.message}")
    return "\n".join(lines)


def junit_xml(verdicts: list[Verdict] | tuple[Verdict, ...], suite_name: str = "dspec2test") -> str:
    by_file: dict[str, list[JUnitCase]] = defaultdict(list)
    for v in verdicts:
        case = JUnitCase(test_name(v), classname=f"{Path(v.file).name}.{v.method}", file=v.file,
                         line=v.member_line or None)
        if v.status in (Status.FAILED, Status.TIMEOUT):  # the type is the status, as in every report
            case.add_failure_info(message=v.message, output=detail(v), failure_type=v.status.value)
        elif v.status is not Status.PASSED:  # crashed, or not a verdict on the code: never shown as passing
            case.add_error_info(message=v.message, output=detail(v), error_type=v.status.value)
        by_file[v.file].append(case)
    suites = [TestSuite(f"{suite_name}: {Path(f).name}", cases, file=f) for f, cases in by_file.items()]
    return to_xml_report_string(suites or [TestSuite(suite_name, [])])


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

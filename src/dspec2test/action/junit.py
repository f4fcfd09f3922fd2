"""The merge of several shards' JUnit files (the files themselves come from report.junit)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterable


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

"""The `// @dspec2test {JSON}` line before each generated test: a TestCase as JSON, and back.

This is the only place that writes or reads it, so emit, run, check, action and bench agree on one format.
"""

from __future__ import annotations

import dataclasses
import json

from dspec2test.records import Check, CheckKind, ScenarioKind, TestCase

MARKER = "// @dspec2test "
# a tests file's header line saying its tests read ghost state that only the program's test build compiles
BUILD_MARKER = "// @dspec2test-build lifted"


def write_metadata(tc: TestCase) -> str:
    """One comment line (no newline) holding `tc` as JSON; kind is written as its string value."""
    data = dataclasses.asdict(tc)
    data["kind"] = tc.kind.value
    data["clauses"] = list(tc.clauses)
    # a check's file only where it has one (a clause inherited by refines): other lines stay as they were
    data["checks"] = [{k: v for k, v in dict(dataclasses.asdict(c), kind=c.kind.value).items()
                       if k not in ("file", "source") or v} for c in tc.checks]
    data["also"] = [list(a) for a in tc.also]
    if not tc.instantiation:  # most members are not generic: their lines stay as they were
        del data["instantiation"]
    if not tc.diverges:  # nor declared `decreases *`
        del data["diverges"]
    if not tc.axioms:  # nor have their values from trusted lemmas
        del data["axioms"]
    else:
        data["axioms"] = list(tc.axioms)
    if not tc.unchecked:  # nor without a clause to check
        del data["unchecked"], data["unchecked_first"]
    if not tc.unchecked_requires:  # nor with a requires the test cannot check
        del data["unchecked_requires"]
    # ensure_ascii keeps the line one line whatever the literals hold (\n in a string literal, say).
    return MARKER + json.dumps(data, ensure_ascii=True, separators=(", ", ": "))


def needs_test_build(text: str) -> bool:
    """Do the tests of this file compile only against the program's test build (testbuild/)?"""
    return any(line.strip() == BUILD_MARKER for line in text.splitlines()[:8])


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
    values["checks"] = tuple(Check(c["id"], CheckKind(c["kind"]), int(c["line"]), c["text"], c.get("file", ""),
                                   c.get("source", "")) for c in values.get("checks", ()))
    values["axioms"] = tuple(values.get("axioms", ()))
    values["also"] = tuple((int(s), pin) for s, pin in values.get("also", ()))
    values["instantiation"] = dict(values.get("instantiation", {}))
    return TestCase(**values)


def test_blocks(text: str) -> list[tuple[str, int, int]]:
    """(test name, first line, last line) of each test: from its metadata line to the line before the next
    one (or the end). 1-based, so Dafny's error lines in the tests file map to the test they are in."""
    lines = text.splitlines()
    starts = [(i + 1, read_metadata(line)[0].name) for i, line in enumerate(lines)
              if line.strip().startswith(MARKER)]
    ends = [start - 1 for start, _ in starts[1:]] + [len(lines)]
    return [(name, start, end) for (start, name), end in zip(starts, ends)]


def without_tests(text: str, names: set[str]) -> str:
    """The tests text with the blocks of `names` removed (the header before the first test is kept)."""
    lines = text.splitlines(keepends=True)
    drop = {n for name, start, end in test_blocks(text) if name in names for n in range(start, end + 1)}
    return "".join(line for i, line in enumerate(lines, 1) if i not in drop)

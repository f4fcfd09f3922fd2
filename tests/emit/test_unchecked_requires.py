"""A test records the first requires it cannot check at run time (its verdicts read it: run/verdicts.py)."""

from __future__ import annotations

from pathlib import Path

from dspec2test.emit.metadata import read_metadata
from dspec2test.generate import GenerateOptions, generate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "unchecked_requires" / "rooted.dfy"


def test_a_ghost_requires_is_recorded_with_its_line_and_survives_the_tests_file():
    got = generate(str(FIXTURE), GenerateOptions())
    step = [tc for tc in got.cases if tc.method == "Step"]
    plain = [tc for tc in got.cases if tc.method == "Plain"]
    assert step and plain
    assert all(tc.unchecked_requires == "requires (line 9) Rooted(s)" for tc in step)
    assert all(tc.unchecked_requires == "" for tc in plain)
    read = {tc.name: tc.unchecked_requires for tc in read_metadata(got.tests_text)}
    assert read == {tc.name: tc.unchecked_requires for tc in got.cases}

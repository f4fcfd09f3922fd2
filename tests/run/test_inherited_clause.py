"""A clause a member inherits by `refines` is reported at the file it is written in: a member declared
again with a body in the refining file keeps the refined module's ensures, and reports (terminal, JSON,
SARIF, annotations) put its failure at the refining file with the spec file's line."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status
from dspec2test.report.findings import group
from dspec2test.report.sarif import sarif
from dspec2test.report.terminal import recap_lines
from dspec2test.run import RunOptions, run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "refines_clause"


@pytest.mark.dafny
def test_a_broken_inherited_clause_is_placed_in_its_own_file(monkeypatch):
    monkeypatch.chdir(FIXTURES)
    got = generate("Impl.dfy", GenerateOptions())
    checks = {(c.file, c.line) for tc in got.cases for c in tc.checks if c.kind.value == "ensures"}
    assert checks == {("Spec.dfy", 4)}
    verdicts = run_tests(Path("Impl.dfy"), got.tests_text, got.cases, RunOptions(target="py")).verdicts
    failed = [v for v in verdicts if v.status is Status.FAILED]
    assert failed and {(v.file, v.member_line, v.clause_file, v.clause_line) for v in failed} == {
        ("Impl.dfy", 4, "Spec.dfy", 4)}
    findings, _ = group(verdicts)
    [f] = [f for f in findings if f.status is Status.FAILED]
    assert (f.path, f.line) == ("Spec.dfy", 4)
    location = sarif([f])["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert (location["artifactLocation"]["uri"], location["region"]["startLine"]) == ("Spec.dfy", 4)
    assert any(line.startswith("  Spec.dfy:4: Impl.Inc: failed") for line in recap_lines(verdicts))

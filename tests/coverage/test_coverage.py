"""Clause coverage (issue 30 item 3): per clause and partition, the tests that exercised it, the
unsatisfiable combinations and the clauses no test can check, in JSON and text."""

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from dspec2test.cli import main
from dspec2test.generate import GenerateOptions, generate
from dspec2test.records import Status, Verdict
from dspec2test.report.coverage import coverage_document, member_coverage, summary_section, terminal

FIXTURE = Path(__file__).parents[1] / "strength" / "fixtures" / "coverage.dfy"
EXAMPLE = Path(__file__).parents[2] / "examples" / "conditional_get.dfy"


@pytest.fixture(scope="module")
def clamp() -> dict:
    # the solver's inputs alone, one test per partition (the search adds tests of other shapes, which would
    # change the counts this module reads), and no expected values (a test whose output is unique checks the
    # quantifier of line 7 by its value: then no clause is left that no test can evaluate)
    options = GenerateOptions(isolate=False, probe=False, search=False, simplify=False)
    return generate(str(FIXTURE), options).manifest["methods"][0]


def test_clauses_branches_and_unsatisfiable_combinations(clamp: dict) -> None:
    cov = member_coverage(clamp)
    by_line = {c["line"]: c for c in cov["clauses"]}
    assert [c["line"] for c in cov["clauses"]] == [3, 4, 5, 6, 7]
    assert by_line[3]["status"] == "exercised" and by_line[3]["tests"] == len(cov["partitions"])
    five = by_line[5]
    assert five["status"] == "exercised" and five["tests"] == 1 and five["vacuous_tests"] == 2
    assert [b.get("vacuous", False) for b in five["branches"]] == [True, False]
    assert by_line[7]["status"] == "unchecked" and "unbounded quantifier" in by_line[7]["reason"]
    # below lo and above hi at once: no input (lo <= hi)
    assert any("x < lo" in u and "x > hi" in u for u in cov["unsatisfiable"])
    assert all(p["status"] == "tested" for p in cov["partitions"])


def test_only_tests_that_ran_count(clamp: dict) -> None:
    tests = [s["test"] for p in clamp["partitions"] for s in p["scenarios"] if s["test"]]
    first = next(p for p in clamp["partitions"])
    ran = [Verdict(t, "Clamp", 0, 0, Status.PASSED) for t in tests]
    not_run = {s["test"] for s in first["scenarios"]}
    verdicts = [replace(v, status=Status.NOT_TESTED) if v.test in not_run else v for v in ran]
    cov = member_coverage(clamp, verdicts)
    assert cov["partitions"][0]["status"] == "no-test" and cov["partitions"][0]["tests"] == 0
    assert sum(p["tests"] for p in cov["partitions"]) == len(tests) - len(not_run)
    doc = coverage_document([clamp], verdicts)
    assert doc["totals"]["partitions no-test"] == 1 and doc["totals"]["unchecked"] == 1


def test_text_reports_name_what_is_missing(clamp: dict) -> None:
    doc = coverage_document([clamp])
    text = terminal(doc)
    assert "not checked at run time: unbounded quantifier over k" in text
    assert "unsatisfiable: " in text and "Clamp (line 2): 3 of 3 partitions tested" in text
    md = summary_section(doc)
    assert md.startswith("### Clause coverage") and "| `Clamp` | `ensures x < lo ==> r == lo` | 5 | 1 |" in md
    assert "unchecked: unbounded quantifier" in md and "- unsatisfiable: `" in md


@pytest.mark.dafny
def test_run_reports_coverage_of_the_papers_example(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["run", str(EXAMPLE), "--json", str(tmp_path / "r.json")], out, err)
    assert code == 1  # LastOrDefault's bug
    doc = json.loads((tmp_path / "r.json").read_text())["coverage"]
    members = {m["name"]: m for m in doc["members"]}
    get = members["ConditionalGet"]
    assert [c["line"] for c in get["clauses"]] == [3, 4, 5]
    assert all(c["status"] == "exercised" and c["tests"] >= 1 for c in get["clauses"])
    assert "!(x < 0) && !(x >= |s|) && !(0 <= x < |s|)" in get["unsatisfiable"]
    text = out.getvalue()
    assert "clause coverage:" in text and "unsatisfiable: x < 0 && r == -1 && x >= |s| && r == 1" in text
    assert "unchecked clauses: none" in text


def test_a_member_whose_tests_checked_nothing_says_which_clause_and_why(clamp: dict) -> None:
    tests = [s["test"] for p in clamp["partitions"] for s in p["scenarios"] if s["test"]]
    why = "ran; none of its 1 clause can be checked at run time: ensures (line 7) ...: unbounded quantifier over k"
    verdicts = [Verdict(t, "Clamp", 0, 0, Status.NOT_TESTED, message=why) for t in tests]
    cov = member_coverage(clamp, verdicts)
    assert cov["nothing_checked"] == why.removeprefix("ran; ")
    assert sum(p["tests"] for p in cov["partitions"]) == len(tests)  # they ran: they exercised their branches
    assert "its tests are not-tested: none of its 1 clause" in terminal(coverage_document([clamp], verdicts))
    assert "nothing_checked" not in member_coverage(clamp, [replace(v, message="") for v in verdicts])

"""Annotations, job summary, SARIF, JUnit, results JSON and the merge of shards."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from argparse import Namespace
from dataclasses import replace

from dspec2test.action import results
from dspec2test.report.findings import facts, group
from dspec2test.commands import merge
from dspec2test.errors import Diagnostic, Severity
from dspec2test.records import Status, Verdict
from dspec2test.report import annotations, sarif, summary
from dspec2test.report.junit import junit_xml, merge_junit


def verdicts():
    return [
        Verdict("T1", "Last", 1, 1, Status.PASSED, file="a.dfy", member_line=3, label="|s| == 0"),
        Verdict("T2", "Last", 2, 1, Status.FAILED, message="ensures violated", clause_line=5,
                clause="r == s[|s| - 1]", inputs={"s": "[1, 2, 3]"}, actual="r = 2", file="a.dfy",
                member_line=3, label="|s| > 0"),
        Verdict("T3", "Hang", 1, 1, Status.TIMEOUT, message="timed out", file="b, c.dfy", member_line=9),
    ]


def test_annotation_escaping():
    assert annotations.escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert annotations.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = annotations.command("error", "x: 1,\ny", file="b, c.dfy", line=9, title="t: u")
    assert line == "::error file=b%2C c.dfy,line=9,title=t%3A u::x: 1,%0Ay"


def test_annotations_one_per_broken_clause():
    findings, _ = group(verdicts())
    lines = annotations.workflow_commands(annotations.collect(findings))
    assert len(lines) == 2
    assert lines[0].startswith("::error file=a.dfy,line=5,title=dspec2test%3A Last%3A failed%3A r == s[|s| - 1] "
                               "(line 5) on 1 of 2 tests::")
    assert "\n" not in lines[0] and "s = [1, 2, 3]" in lines[0]


def test_annotation_budget_changed_lines_first_then_one_notice():
    vs = [Verdict(f"T{i}", f"M{i:02}", 1, 1, Status.FAILED, clause_line=100 + i, file="a.dfy") for i in range(15)]
    vs += [Verdict(f"B{i}", f"B{i:02}", 1, 1, Status.BAD_INPUT, clause_line=200 + i, file="a.dfy") for i in range(12)]
    findings, _ = group(vs)
    touched = {"a.dfy": frozenset({113, 114, 300})}  # two failures sit on changed lines
    ranges = {("a.dfy", "M12"): (290, 310)}  # and M12's member was touched elsewhere
    diag = Diagnostic("b.dfy", 3, 1, "unsupported: multiset display", Severity.UNSUPPORTED)
    lines = annotations.workflow_commands(annotations.collect(findings, [diag], touched, ranges))
    errors = [x for x in lines if x.startswith("::error")]
    warnings = [x for x in lines if x.startswith("::warning")]
    assert len(errors) == 10 and len(warnings) == 10
    # changed lines first, then touched members, then the rest
    assert ["line=113" in errors[0], "line=114" in errors[1], "line=112" in errors[2]] == [True] * 3
    assert lines[-1].startswith("::notice") and "5 more errors and 3 more warnings" in lines[-1]
    checks = annotations.check_run_annotations(annotations.collect(findings, [diag]))
    assert len(checks) == 28 and {c["annotation_level"] for c in checks} == {"failure", "warning"}


def test_summary_table_rows_escape_pipes():
    text = summary.render(verdicts())
    assert "**2 of 3 tests not passing** (1 failed, 1 timeout) in 2 members; 1 passed." in text
    assert "| a.dfy:3 | `Last` | 2: `\\|s\\| > 0` | ❌ failed | 0/1 |" in text
    assert "⏱️ timeout" in text
    for row in [r for r in text.splitlines() if r.startswith("| a.dfy")]:
        assert row.replace("\\|", "").count("|") == 7  # six cells


def test_sarif_has_stable_rule_ids_and_locations():
    findings, _ = group(verdicts())
    doc = sarif.sarif(findings)
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [f"DSPEC00{n}" for n in range(1, 7)]
    ids = {r["ruleId"] for r in run["results"]}
    assert ids == {"DSPEC001", "DSPEC002"}
    first = run["results"][0]
    assert first["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    # keyed by member and clause text, not by line: adding lines above the clause keeps the alert
    key = first["partialFingerprints"][sarif.FINGERPRINT]
    assert key.startswith("a.dfy::Last::failed-")
    moved = [replace(v, clause_line=v.clause_line + 3) if v.clause_line else v for v in verdicts()]
    assert sarif.sarif(group(moved)[0])["runs"][0]["results"][0]["partialFingerprints"][sarif.FINGERPRINT] == key


def test_sarif_rules_carry_help_and_levels_failures_errors_and_not_tested_notes():
    vs = verdicts() + [Verdict("", "Odd", 0, 0, Status.NOT_TESTED, message="unsupported: iset", file="a.dfy"),
                       Verdict("T9", "Stub", 1, 1, Status.NO_IMPLEMENTATION, file="a.dfy")]
    run = sarif.sarif(group(vs)[0])["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert all(r["help"]["text"] and r["fullDescription"]["text"] for r in rules.values())
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"DSPEC001": "error", "DSPEC002": "error", "DSPEC003": "note", "DSPEC006": "warning"}
    assert {rid: rules[rid]["defaultConfiguration"]["level"] for rid in levels} == levels


def test_junit_has_file_and_line_and_merge_combines_shards(tmp_path):
    a, b = tmp_path / "a.xml", tmp_path / "b.xml"
    a.write_text(junit_xml(verdicts()[:2]))
    b.write_text(junit_xml(verdicts()[2:]))
    cases = list(ET.parse(a).getroot().iter("testcase"))
    assert [(c.get("file"), c.get("line")) for c in cases] == [("a.dfy", "3"), ("a.dfy", "3")]
    text, totals = merge_junit([a, b])
    assert totals == {"tests": 3, "failures": 2, "errors": 0, "skipped": 0}
    root = ET.fromstring(text.split("?>", 1)[1])
    assert root.get("tests") == "3" and len(list(root.iter("testcase"))) == 3


def test_results_round_trip_and_merge_command(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    vs = verdicts()
    one, two = tmp_path / "r1.json", tmp_path / "r2.json"
    one.write_text(results.dumps(vs[:2], [{"file": "a.dfy", "name": "Last", "line": 3, "end_line": 8}], []))
    two.write_text(results.dumps(vs[2:], [], []))
    loaded, members = results.load(one)
    assert loaded == vs[:2] and members[0]["name"] == "Last"
    assert json.loads(one.read_text())["summary"] == {"tests": 2, "passed": 1, "failed": 1, "crashed": 0,
                                                      "timeout": 0, "bad-input": 0, "no-implementation": 0,
                                                      "not-tested": 0, "methods": 1}
    out, err = io.StringIO(), io.StringIO()
    merged = tmp_path / "all.json"
    code = merge.main(Namespace(files=[str(one), str(two)], output=str(merged), summary=True), out, err)
    assert code == 0, err.getvalue()
    assert len(results.load(merged)[0]) == 3
    assert "dspec2test (all shards)" in out.getvalue()
    assert merge.main(Namespace(files=[str(tmp_path / "nope.xml")], output="x", summary=False), out, err) == 2


def test_summary_keeps_failing_rows_when_capped(monkeypatch):
    monkeypatch.setattr(summary, "MAX_ROWS", 2)
    vs = [Verdict(f"T{i}", "M", i, 1, Status.PASSED, file="a.dfy") for i in range(1, 5)]
    vs.append(Verdict("T9", "M", 9, 1, Status.FAILED, file="a.dfy"))
    text = summary.render(vs)
    rows = [r for r in text.splitlines() if r.startswith("| a.dfy")]
    assert len(rows) == 2 and "❌ failed" in text
    assert "3 more passing partitions" in text


def test_a_finding_in_a_member_that_assumes_says_so_and_the_lines_survive_the_results_file(tmp_path):
    vs = verdicts()
    vs[1] = replace(vs[1], assumes=(7,))
    findings, _ = group(vs)
    told = dict(fact for f in findings for fact in facts(f))
    assert told["assumes"] == "line 7 of Last: its proof takes that on trust"
    path = tmp_path / "r.json"
    path.write_text(results.dumps(vs, [], []))
    assert [v.assumes for v in results.load(path)[0]] == [(), (7,), ()]


def test_summary_notes_end_before_the_table_and_the_toolchain_closes_it():
    text = summary.render(verdicts(), notes=["Gate: failure", "a | note"], footer=["Dafny verifies with Z3 4.12.1 (/z3)."])
    lines = text.splitlines()
    quote_end = lines.index("> a \\| note")
    # without the blank line GitHub reads what follows as more of the quote
    assert lines[quote_end + 1] == "" and lines[quote_end + 2] == "### Not passing: 2 findings"
    assert lines[-1] == "<sub>Dafny verifies with Z3 4.12.1 (/z3).</sub>"


def test_sarif_merge_keeps_each_shards_run_and_refuses_two_runs_of_one_category(tmp_path):
    findings, _ = group(verdicts())
    one, two, again = tmp_path / "1.sarif", tmp_path / "2.sarif", tmp_path / "again.sarif"
    one.write_text(sarif.dumps(findings[:1], sarif.automation_id(1, 2)))
    two.write_text(sarif.dumps(findings[1:], sarif.automation_id(2, 2)))
    again.write_text(sarif.dumps(findings, sarif.automation_id(1, 2)))
    text, results = sarif.merge_sarif([one, two])
    runs = json.loads(text)["runs"]
    assert [r["automationDetails"]["id"] for r in runs] == ["dspec2test/shard-1-of-2/", "dspec2test/shard-2-of-2/"]
    assert results == len(findings) == 2
    out, err = io.StringIO(), io.StringIO()
    assert merge.main(Namespace(files=[str(one), str(again)], output=str(tmp_path / "m.sarif"), summary=False),
                      out, err) == 2
    assert "both hold a run of category 'dspec2test/shard-1-of-2/'" in err.getvalue()
    assert sarif.category({"automationDetails": {"id": "dspec2test/shard-1-of-2/"}}) == "dspec2test/shard-1-of-2/"
    assert sarif.category({"automationDetails": {"id": "my/cat/run-42"}}) == "my/cat/"


def test_summary_leads_with_the_failures_linked_to_their_lines_then_every_partition():
    vs = verdicts() + [replace(verdicts()[1], test="T4", scenario=2, inputs={"s": "[5, 6]"}, actual="r = 5",
                               expected_value="r = 6")]
    link = summary.blob_link("https://github.com", "octo/widgets", "abc123")
    text = summary.render(vs, link=link)
    lines = text.splitlines()
    failures, table = lines.index("### Not passing: 2 findings"), lines.index("### Every partition")
    assert failures < table
    # one section per broken clause, failures before timeouts, each linked to the clause's line
    heads = [x for x in lines if x.startswith("#### ")]
    assert heads == ["#### ❌ failed: `Last` at [a.dfy:5](https://github.com/octo/widgets/blob/abc123/a.dfy#L5)",
                     "#### ⏱️ timeout: `Hang` at [b, c.dfy:9](https://github.com/octo/widgets/blob/abc123/b, c.dfy#L9)"]
    section = lines[lines.index(heads[0]):lines.index(heads[1])]
    assert "`r == s[|s| - 1]` broken on 2 of 3 tests." in section  # no backslash before | outside a table
    assert "| `s = [5, 6]` | `r = 6` | `r = 5` | p2 s2 |" in section and "| `s = [1, 2, 3]` | — | `r = 2` | p2 s1 |" in section
    assert summary.blob_link("", "octo/widgets", "abc") is None and "[a.dfy:5]" not in summary.render(vs)

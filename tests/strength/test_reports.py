"""Contract strength in the reports: terminal, JSON (and back), SARIF rule, job summary, gate, review."""

import json

from dspec2test.action import results as results_file
from dspec2test.action.affected import Affected
from dspec2test.action.choose import Choice
from dspec2test.action.members import MemberInfo
from dspec2test.report import sarif
from dspec2test.report.gate import FailOn, Gate, decide
from dspec2test.report.review import Existing, Plan, marker
from dspec2test.report.strength import (
    RULE_ID, comment_body, document, sarif_with_strength, strength_from, summary_section, terminal, weak_annotations,
)
from dspec2test.report.weak_review import add_weak, weak_key
from dspec2test.records import Status, Verdict
from dspec2test.strength.records import Measured, MemberStrength, WeakFinding

FINDING = WeakFinding("Max", "p.dfy", 4, 6, "RVR", 8, "r := a;", "r := a + 1;", "`a` -> `a + 1`", {"a": "2", "b": "1"},
                      {"r": "2"}, {"r": "3"}, "Test_Max_p1_s1", 1, "r >= a && r >= b",
                      "the ensures only bound r (r >= a && r >= b (line 5)): none says which value it takes", 2)
WEAK = MemberStrength("Max", "p.dfy", 4, Measured.MEASURED, mutants=11, chosen=11, killed=8, survived=3,
                      equivalent=2, findings=(FINDING,), inputs=9, seconds={"verify": 2.0, "total": 6.5})
STRONG = MemberStrength("Twice", "p.dfy", 15, Measured.MEASURED, mutants=6, chosen=6, killed=6)
SKIPPED = MemberStrength("L", "p.dfy", 20, Measured.SKIPPED, reason="ghost: no compiled code to mutate")


def test_terminal_names_the_line_the_input_and_both_outputs() -> None:
    text = terminal([WEAK, STRONG, SKIPPED])
    assert "p.dfy:4: Max: weak contract: 1 of 11 mutants verify and compute something else" in text
    assert "line 8: `r := a;` -> `r := a + 1;` (RVR)" in text
    assert "on a = 2, b = 1: Max gives r = 2, the mutant r = 3" in text
    assert "p.dfy:15: Twice: no weakness found" in text and "p.dfy:20: L: not measured: ghost" in text
    assert "1 with a weak contract, 1 findings" in text and "(2 equivalent)" in text


def test_json_round_trip_through_the_results_file(tmp_path) -> None:
    doc = document([WEAK, STRONG])
    assert doc["totals"]["weak"] == 1 and doc["totals"]["equivalent"] == 2
    member = doc["members"][0]
    assert member["name"] == "Max" and member["status"] == "measured"
    assert member["findings"][0]["inputs"] == {"a": "2", "b": "1"} and member["findings"][0]["line"] == 8
    path = tmp_path / "r.json"
    coverage = [{"name": "Max", "file": "p.dfy", "line": 4, "clauses": [], "partitions": [], "unsatisfiable": [],
                 "unsatisfiable_more": 0, "capped": False}]
    path.write_text(results_file.dumps([], [], [], coverage, [WEAK, STRONG]))
    assert json.loads(path.read_text())["coverage"]["totals"]["members"] == 1
    got_coverage, got_strength = results_file.load_extras(path)
    assert got_coverage == coverage and got_strength == [WEAK, STRONG]
    assert strength_from(doc) == [WEAK, STRONG]


def test_sarif_has_its_own_rule_at_warning_level() -> None:
    text = sarif_with_strength(sarif.dumps([]), [WEAK, STRONG])
    run = json.loads(text)["runs"][0]
    assert RULE_ID in {r["id"] for r in run["tool"]["driver"]["rules"]}
    (result,) = run["results"]
    assert result["ruleId"] == RULE_ID and result["level"] == "warning"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 8
    assert "a = 2, b = 1" in result["message"]["text"]
    assert sarif_with_strength(sarif.dumps([]), []) == sarif.dumps([])


def test_summary_section_and_annotations() -> None:
    md = summary_section([WEAK, STRONG])
    assert md.startswith("### Contract strength")
    assert "| `Max` (p.dfy:4) | 11 | 8 | 3 | 2 | 1 |" in md and "`r := a;` -> `r := a + 1;`" in md
    (a,) = weak_annotations([WEAK])
    assert (a.level, a.file, a.line) == ("warning", "p.dfy", 8)


def test_the_gate_fails_on_weak_contracts_only_when_asked() -> None:
    passed = [Verdict("t", "Max", 1, 1, Status.PASSED)]
    assert not decide(Gate(FailOn.FAILURES), passed, weak=1).tripped
    tripped = decide(Gate(FailOn.WEAK), passed, weak=1)
    assert tripped.tripped and "fail_on: weak" in tripped.reasons[0]
    assert not decide(Gate(FailOn.WEAK), passed, weak=0).tripped
    assert decide(Gate(FailOn.WEAK), [Verdict("t", "M", 1, 1, Status.FAILED)]).tripped  # and failures still


def test_review_comments_on_the_mutated_line_and_rerun() -> None:
    plan = Plan()
    add_weak(plan, [FINDING], {"p.dfy": frozenset({7, 8, 9})}, {"p.dfy": frozenset({7})}, {("p.dfy", "Max"): (4, 12)},
             [], {("p.dfy", "Max")}, failing=False)
    (c,) = plan.line_comments
    assert (c.path, c.line) == ("p.dfy", 8) and "Warning" in c.body and "a = 2, b = 1" in c.body
    assert c.body.startswith(marker(weak_key(FINDING)))
    assert "every test passes" in plan.review_body
    # the same finding again: skipped; an old one of a member measured again and no longer weak: removed;
    # an old one of a member not measured in this run: kept
    gone = "weak::p.dfy::Max::0123456789ab"
    other = "weak::q.dfy::Other::0123456789ab"
    existing = [Existing(1, weak_key(FINDING), c.body), Existing(2, gone, marker(gone)),
                Existing(3, other, marker(other))]
    again = Plan()
    add_weak(again, [FINDING], {"p.dfy": frozenset({8})}, {}, {}, existing, {("p.dfy", "Max")}, failing=False)
    assert again.skipped == [weak_key(FINDING)] and again.deletes == [2] and not again.line_comments
    body = comment_body(FINDING)
    assert "fail_on: weak" in body and "What the contract could say" in body


def test_strength_is_measured_for_the_members_whose_own_text_changed() -> None:
    def affected(name: str, reason: str) -> Affected:
        return Affected(MemberInfo("p.dfy", name, "method", 1, 5, True, True, frozenset(), frozenset()), reason)

    choice = Choice([affected("Changed", "changed lines 3-4"), affected("Added", "new file"),
                     affected("Caller", "calls Changed"), affected("User", "contract uses changed IsSorted")])
    assert choice.own_changes() == {("p.dfy", "Changed"), ("p.dfy", "Added")}

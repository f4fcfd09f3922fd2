"""Planning a review: anchors never outside the diff, the comment cap, re-runs and markers."""

from __future__ import annotations

from dspec2test.report.findings import group
from dspec2test.report.review import MAX_COMMENTS, Existing, comment_body, key_of, marker, plan_review
from dspec2test.records import Status, Verdict


def failing(method, partition, clause_line=None, member_line=10, file="p.dfy", scenario=1):
    return Verdict(f"T_{method}_{partition}_{scenario}", method, partition, scenario, Status.FAILED,
                   message="boom", clause_line=clause_line, file=file, member_line=member_line, label="x > 0")


def plan(verdicts, commentable, added=None, ranges=None, existing=(), tested=None, **kw):
    findings, _ = group(verdicts)
    bodies = {f.key: comment_body(f, f"dspec2test run {f.file} --method {f.method}") for f in findings}
    tested = tested if tested is not None else {(v.file, v.method) for v in verdicts}
    return plan_review(findings, bodies, commentable, added or {}, ranges or {}, existing, tested, **kw)


def test_anchor_prefers_clause_then_changed_member_line_then_file_then_body():
    verdicts = [
        failing("OnClause", 1, clause_line=12, member_line=10),
        failing("OnMember", 1, clause_line=3, member_line=30),
        failing("FileLevel", 1, clause_line=50, member_line=50),
        failing("Elsewhere", 1, clause_line=2, member_line=1, file="q.dfy"),
    ]
    p = plan(verdicts, commentable={"p.dfy": frozenset({11, 12, 13, 31, 32, 33})},
             added={"p.dfy": frozenset({32})},
             ranges={("p.dfy", "OnMember"): (30, 40), ("p.dfy", "FileLevel"): (50, 55)})
    assert {(c.key.split("::")[1], c.line) for c in p.line_comments} == {("OnClause", 12), ("OnMember", 32)}
    assert [c.key.split("::")[1] for c in p.file_comments] == ["FileLevel"]
    assert [f.method for f in p.in_body] == ["Elsewhere"]
    assert "Elsewhere" in p.review_body and "q.dfy:2" in p.review_body


def test_at_most_30_comments_rest_in_body():
    verdicts = [failing(f"M{i:02}", 1, clause_line=100 + i) for i in range(40)]
    p = plan(verdicts, commentable={"p.dfy": frozenset(range(100, 200))})
    assert len(p.line_comments) == MAX_COMMENTS == 30
    assert len(p.in_body) == 10
    assert all(f.method in p.review_body for f in p.in_body)


def test_rerun_skips_same_text_updates_changed_deletes_passing_keeps_untested():
    verdicts = [failing("Same", 1, 12), failing("Changed", 1, 13)]
    findings, _ = group(verdicts)
    bodies = {f.key: comment_body(f, "cmd") for f in findings}
    same_key, changed_key = findings[1].key, findings[0].key  # sorted by method name
    assert "Same" in same_key
    existing = [
        Existing(1, same_key, bodies[same_key]),
        Existing(2, changed_key, "old text " + marker(changed_key)),
        Existing(3, "p.dfy::Fixed::p1", marker("p.dfy::Fixed::p1")),  # tested now and passing
        Existing(4, "p.dfy::Other::p2", marker("p.dfy::Other::p2")),  # not tested in this run (another shard)
    ]
    p = plan_review(findings, bodies, {"p.dfy": frozenset({12, 13})}, {}, {}, existing,
                    {("p.dfy", "Same"), ("p.dfy", "Changed"), ("p.dfy", "Fixed")})
    assert p.skipped == [same_key]
    assert p.updates == [(2, bodies[changed_key])]
    assert p.deletes == [3]
    assert p.line_comments == [] and p.file_comments == [] and not p.needs_review


def test_outdated_comment_is_replaced_and_duplicates_removed():
    verdicts = [failing("M", 1, 12)]
    findings, _ = group(verdicts)
    bodies = {f.key: comment_body(f, "cmd") for f in findings}
    key = findings[0].key
    existing = [Existing(1, key, bodies[key], stale=True), Existing(2, "p.dfy::N::p1", "x"),
                Existing(3, "p.dfy::N::p1", "x")]
    p = plan_review(findings, bodies, {"p.dfy": frozenset({12})}, {}, {}, existing, {("p.dfy", "M")})
    assert [c.line for c in p.line_comments] == [12]
    assert sorted(p.deletes) == [1, 3]


def test_same_body_only_review_is_not_posted_twice():
    verdicts = [failing("M", 1, 12, file="q.dfy")]
    first = plan(verdicts, commentable={})
    assert first.needs_review and first.in_body
    again = plan(verdicts, commentable={}, review_bodies=[first.review_body])
    assert not again.needs_review


def test_marker_round_trip_and_body_contents():
    key = "dir--x/p.dfy::M.C.Find::p3"
    assert key_of("text\n" + marker(key) + "\nmore") == key
    assert "--" not in marker(key)[4:-3]  # an HTML comment must not contain "--"
    v = Verdict("T", "Find", 2, 1, Status.FAILED, clause_line=7, clause="r == s[|s| - 1]", inputs={"s": "[1, 2]"},
                expected="r == 2", actual="r = 1", file="p.dfy", member_line=5, label="|s| > 1")
    body = comment_body(group([v])[0][0], "dspec2test run p.dfy --method Find --bva")
    for text in ("<!-- dspec2test:p.dfy::Find::failed-", "s = [1, 2]", "r == 2", "r = 1", "r == s[|s| - 1]",
                 "p.dfy:7", "dspec2test run p.dfy --method Find --bva"):
        assert text in body


def test_one_comment_per_broken_clause_with_every_input_that_broke_it():
    vs = [Verdict(f"T{k}", "Find", p, k, Status.FAILED, clause_line=7, clause="r == s[|s| - 1]",
                  inputs={"s": f"[{k}, 0]"}, actual=f"r = {k}", expected_value="r = 0", file="p.dfy", member_line=5)
          for k, p in ((1, 1), (2, 1), (3, 2))]
    vs.append(Verdict("T4", "Find", 2, 4, Status.PASSED, file="p.dfy", member_line=5))
    findings, _ = group(vs)
    assert len(findings) == 1 and findings[0].partitions == (1, 2) and findings[0].tests == 4
    body = comment_body(findings[0], "cmd")
    assert "broken on 3 of 4 tests" in body
    assert all(f"| `s = [{k}, 0]` | `r = 0` | `r = {k}` |" in body for k in (1, 2, 3))


def test_discussed_comments_are_retired_never_deleted():
    verdicts = [failing("M", 1, 12)]
    findings, _ = group(verdicts)
    bodies = {f.key: comment_body(f, "cmd") for f in findings}
    key = findings[0].key
    gone, other = "p.dfy::N::failed-0a1b2c3d", "p.dfy::N::crashed"
    existing = [Existing(1, key, bodies[key], stale=True, replies=2),  # outdated, discussed
                Existing(2, gone, marker(gone) + " old", replies=1),  # now passing, discussed
                Existing(3, other, marker(other)),  # now passing, nobody answered
                Existing(4, other, marker(other), replies=1),  # its discussed duplicate
                Existing(5, "p.dfy::N::p2", marker("p.dfy::N::p2") + " old", replies=1)]  # an earlier version's
    p = plan_review(findings, bodies, {"p.dfy": frozenset({12})}, {}, {}, existing, {("p.dfy", "M"), ("p.dfy", "N")})
    assert [c.line for c in p.line_comments] == [12]  # a fresh comment for the outdated one
    assert p.deletes == [3]
    retired = dict(p.updates)
    assert sorted(retired) == [1, 2, 4, 5]
    assert "outdated" in retired[1] and "fixed" in retired[2] and "fixed" in retired[4]
    assert "superseded" in retired[5]  # one comment per partition then: this one is not "fixed"
    assert all(key_of(body).startswith("retired:") for body in retired.values())
    assert "old" in retired[2]  # what it said stays readable under the note

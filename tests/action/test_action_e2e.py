"""`dspec2test action` end to end as a subprocess: real git repository, GitHub stand-in, fake verdicts."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from argparse import Namespace

from dspec2test.commands import merge

from tests.action import fixtures
from tests.action.conftest import TOKEN
from tests.action.github_standin import diff_lines


def line_comments(standin):
    return sorted((c for c in standin.comments.values() if c["subject_type"] == "line"), key=lambda c: c["line"])


def test_first_run_posts_one_review_anchored_on_diff_lines(world, standin):
    run = world.run(standin.url)
    assert run.code == 1, run.err  # fail_on: failures and partitions failed
    assert TOKEN not in run.out + run.err
    assert str(world.repo) in (world.tmp / ".gitconfig").read_text()  # safe.directory, set before git ran
    # the log ends with what did not pass, failures first, then the totals with the time they took
    log = run.out.splitlines()
    assert "Not passing: 4 findings, 4 tests" in log and log[-1].endswith("(generation 0.0 s, execution 0.0 s)")

    # only the affected members were tested: touched ones, the added file, users of the changed predicate
    asked = {tuple(x) for x in run.targets[0]}
    assert ("prog.dfy", "Untouched") not in asked
    assert {("prog.dfy", "Abs"), ("prog.dfy", "Max"), ("prog.dfy", "Clamp"), ("other.dfy", "UsesSmall"),
            ("new.dfy", "Twice")} <= asked

    reviews = [r for r in standin.requests if r.method == "POST" and r.path.endswith("/pulls/7/reviews")]
    assert len(reviews) == 1
    review = reviews[0].body
    assert review["commit_id"] == world.head and review["event"] == "COMMENT"
    patch = {f["filename"]: f["patch"] for f in standin.pull.files}
    right, _ = diff_lines(patch["prog.dfy"])
    by_line = {c["line"]: c for c in review["comments"]}
    for c in review["comments"]:
        assert c["path"] == "prog.dfy" and c["side"] == "RIGHT" and c["line"] in right
    # Max's broken clause is a changed line: the comment sits on it; Abs's clause is not in the diff,
    # so its comment sits on the changed line of its body
    assert fixtures.MAX_CLAUSE_LINE in by_line and "Max" in by_line[fixtures.MAX_CLAUSE_LINE]["body"]
    assert fixtures.ABS_BUG_LINE in by_line and "Abs" in by_line[fixtures.ABS_BUG_LINE]["body"]
    abs_body = by_line[fixtures.ABS_BUG_LINE]["body"]
    assert f"<!-- dspec2test:{fixtures.abs_key()} -->" in abs_body
    assert "x = 0" in abs_body and "r = -1" in abs_body and "r >= 0" in abs_body
    assert "dspec2test run prog.dfy --method Abs\n" in abs_body
    # Clamp's lines are outside every hunk: a file-level comment; UsesSmall's file is not in the PR: the body
    file_level = [c for c in standin.comments.values() if c["subject_type"] == "file"]
    assert [c["path"] for c in file_level] == ["prog.dfy"] and "Clamp" in file_level[0]["body"]
    assert "UsesSmall" in review["body"] and "other.dfy" in review["body"]
    assert "Untouched" not in review["body"]

    review_url = standin.reviews[0]["html_url"]
    assert run.outputs == {"tests": "8", "passed": "4", "failed": "4", "not_passing": "4", "methods": "5",
                           "affected": "5", "conclusion": "failure", "junit_path": "dspec2test-junit.xml",
                           "sarif_path": "dspec2test.sarif", "json_path": "dspec2test-results.json",
                           "summary_path": "dspec2test-summary.md", "summary_file": "dspec2test-summary.md", "review_url": review_url, "check_url": ""}
    assert (world.repo / "dspec2test-summary.md").read_text() == run.summary
    suites = ET.parse(world.repo / "dspec2test-junit.xml").getroot()
    cases = list(suites.iter("testcase"))
    assert len(cases) == 8 and all(c.get("file") and c.get("line") for c in cases)
    failing = [c for c in cases if c.find("failure") is not None]
    assert {c.get("classname") for c in failing} == {"prog.dfy.Abs", "prog.dfy.Max", "prog.dfy.Clamp",
                                                    "other.dfy.UsesSmall"}
    assert "| prog.dfy:6 | `Abs` | 2: `x >= 0` | ❌ failed | 1/2 |" in run.summary
    assert "s1 failed, s2 passed" in run.summary  # every scenario's status, the worst as the headline
    assert (world.repo / "dspec2test.sarif").exists()


def test_rerun_duplicates_nothing_and_removes_fixed_partitions(world, standin):
    first = world.run(standin.url)
    assert first.code == 1
    comments_after_first = dict(standin.comments)
    writes_after_first = len(standin.writes())

    again = world.run(standin.url)
    assert again.code == 1
    assert len(standin.writes()) == writes_after_first, [(r.method, r.path) for r in standin.writes()]
    assert standin.comments == comments_after_first

    # a push fixes Abs (its body still differs from base, so it is tested again and passes)
    world.push({"prog.dfy": fixtures.FIXED_PROG}, standin)
    world.verdicts = fixtures.verdicts(abs_fixed=True)
    third = world.run(standin.url)
    assert third.code == 1
    abs_ids = [cid for cid, c in comments_after_first.items() if fixtures.abs_key() in c["body"]]
    deletes = [r for r in standin.writes() if r.method == "DELETE"]
    assert [r.path.rsplit("/", 1)[-1] for r in deletes] == [str(abs_ids[0])]
    assert not [r for r in standin.writes()[writes_after_first:] if r.method == "POST"]
    remaining = "\n".join(c["body"] for c in standin.comments.values())
    assert "Abs" not in remaining and "Max" in remaining and "Clamp" in remaining


def test_fork_makes_no_write_requests(world, tmp_path):
    from tests.action.github_standin import GitHubStandIn
    from tests.action.conftest import REPO

    with GitHubStandIn(REPO, TOKEN, world.pull(head_repo="contributor/widgets")) as server:
        run = world.run(server.url, head_repo="contributor/widgets")
        assert server.writes() == []
    assert run.code == 1
    assert "::error file=prog.dfy,line=19,title=dspec2test%3A Max%3A failed%3A b <= m (line 19) on 1 of 2 tests::" in run.out
    assert "fork" in run.summary and "workflow_run" in run.summary
    assert run.outputs["failed"] == "4"


def test_gate_never_and_summary_reporter(world, standin):
    run = world.run(standin.url, fail_on="never", reporter="summary")
    assert run.code == 0
    assert standin.requests == []  # the summary reporter talks to nobody
    assert "❌ failed" in run.summary


def test_rate_limit_is_retried_after_retry_after(world, standin):
    standin.faults.once[("POST", "/pulls/7/reviews")] = (429, {"Retry-After": "1"})
    run = world.run(standin.url)
    posts = [r for r in standin.requests if r.method == "POST" and r.path.endswith("/reviews")]
    assert len(posts) == 2 and len(standin.reviews) == 1
    assert "retrying in 1 s" in run.err
    assert "::error" not in run.out  # the review went through: no fallback annotations


def test_server_errors_degrade_to_annotations_and_summary(world, standin):
    standin.faults.server_error_on_writes = True
    run = world.run(standin.url)
    assert run.code == 1 and run.outputs["conclusion"] == "failure"  # the gate still decides; no crash
    assert "Traceback" not in run.err
    assert "::error file=prog.dfy" in run.out and "::error file=other.dfy" in run.out
    assert "Posting to the pull request failed" in run.summary
    assert standin.comments == {}
    assert TOKEN not in run.out + run.err + run.summary


def test_bad_input_is_exit_2_naming_it(world, standin):
    run = world.run(standin.url, fail_on="sometimes")
    assert run.code == 2 and "fail_on" in run.err
    assert standin.requests == []


def test_shallow_clone_without_base_commit_uses_the_api_diff(world, standin):
    world.event_base = "0123456789" * 4  # not in the clone, as with fetch-depth: 1
    run = world.run(standin.url)
    assert run.code == 1, run.err
    assert "using the pull request's diff from the GitHub API" in run.err
    asked = {tuple(x) for x in run.targets[0]}
    assert {("prog.dfy", "Abs"), ("prog.dfy", "Max"), ("new.dfy", "Twice"), ("other.dfy", "UsesSmall")} <= asked
    assert ("prog.dfy", "Untouched") not in asked
    assert len(standin.reviews) == 1


def test_shard_splits_members_across_jobs(world, standin):
    asked = []
    for k in (1, 2):
        run = world.run(standin.url, shard=f"{k}/2", reporter="summary", fail_on="never",
                        sarif_path=f"shard-{k}.sarif")
        assert run.code == 0
        asked.append({tuple(x) for x in run.targets[0]})
    assert asked[0] and asked[1] and not asked[0] & asked[1]
    assert len(asked[0] | asked[1]) == 5
    # each shard's SARIF run has its own category; merge puts both runs in one file
    sarifs = [world.repo / f"shard-{k}.sarif" for k in (1, 2)]
    ids = [json.loads(p.read_text())["runs"][0]["automationDetails"]["id"] for p in sarifs]
    assert ids == ["dspec2test/shard-1-of-2/", "dspec2test/shard-2-of-2/"]
    out, err = io.StringIO(), io.StringIO()
    merged = world.tmp / "all.sarif"
    assert merge.main(Namespace(files=[str(p) for p in sarifs], output=str(merged), summary=False), out, err) == 0
    runs = json.loads(merged.read_text())["runs"]
    assert [r["automationDetails"]["id"] for r in runs] == ids
    assert sum(len(r["results"]) for r in runs) == 4 and "4 results" in out.getvalue()


def test_config_file_excludes_and_rejects_unknown_keys(world, standin):
    from tests.action.helpers import commit

    world.head = commit(world.repo, {".dspec2test.yml": "exclude: [other.dfy]\nfail_on: never\n"}, "config")
    standin.set_head(world.head, standin.pull.files)
    run = world.run(standin.url)
    asked = {tuple(x) for x in run.targets[0]}
    assert ("other.dfy", "UsesSmall") not in asked and ("prog.dfy", "Abs") in asked
    assert run.code == 0  # fail_on: never from the file

    world.head = commit(world.repo, {".dspec2test.yml": "bva: true\nreporters: review\n"}, "typo")
    run = world.run(standin.url)
    assert run.code == 2 and "'reporters'" in run.err and ".dspec2test.yml" in run.err

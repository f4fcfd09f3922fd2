"""`dspec2test action` end to end against the GitHub stand-in over real HTTP: comment ownership, check
runs, trusted publishing of results (fake verdicts)."""

from __future__ import annotations

import json

from dspec2test.report.checks import publish_check_run
from dspec2test.report.gate import Conclusion
from dspec2test.report.github import GitHub
from dspec2test.report.review import marker
from tests.action import fixtures
from tests.action.conftest import REPO, TOKEN
from tests.action.github_standin import GitHubStandIn

ABS_KEY = fixtures.abs_key()


def test_a_foreign_comment_with_our_marker_is_left_alone(world, standin):
    foreign = standin.add_comment(marker(ABS_KEY) + "\nnot really dspec2test", "mallory", "prog.dfy",
                                  fixtures.ABS_BUG_LINE)
    before = dict(standin.comments[foreign])
    run = world.run(standin.url)
    assert run.code == 1, run.err
    assert standin.comments[foreign] == before
    assert not [r for r in standin.writes() if r.path.endswith(f"/comments/{foreign}")]
    ours = [c for c in standin.comments.values() if c["user"]["login"] == "github-actions[bot]"
            and marker(ABS_KEY) in c["body"]]
    assert len(ours) == 1  # our own comment on the partition is posted all the same


def test_a_discussed_comment_is_edited_to_say_fixed_never_deleted(world, standin):
    assert world.run(standin.url).code == 1
    (abs_id,) = [cid for cid, c in standin.comments.items() if marker(ABS_KEY) in c["body"]]
    reply = standin.add_comment("Is this right?", "alice", "prog.dfy", fixtures.ABS_BUG_LINE, in_reply_to=abs_id)
    world.push({"prog.dfy": fixtures.FIXED_PROG}, standin)
    world.verdicts = fixtures.verdicts(abs_fixed=True)
    run = world.run(standin.url)
    assert run.code == 1
    assert abs_id in standin.comments and reply in standin.comments
    assert not [r for r in standin.writes() if r.method == "DELETE"]
    body = standin.comments[abs_id]["body"]
    assert "fixed: no test breaks this any more" in body and marker(ABS_KEY) not in body
    writes = len(standin.writes())
    assert world.run(standin.url).code == 1 and len(standin.writes()) == writes  # retired: left alone from now on


def test_reporter_check_creates_one_completed_check_run_with_annotations(world, standin):
    run = world.run(standin.url, reporter="check", check_name="contracts")
    assert run.code == 1, run.err
    (check,) = standin.check_runs.values()
    assert (check["name"], check["head_sha"], check["status"], check["conclusion"]) == \
        ("contracts", world.head, "completed", "failure")
    assert run.outputs["check_url"] == check["html_url"] and run.outputs["review_url"] == ""
    broken = [a for a in check["annotations"] if a["path"] == "prog.dfy" and a["annotation_level"] == "failure"]
    assert {a["start_line"] for a in broken} >= {fixtures.MAX_CLAUSE_LINE, fixtures.ABS_CLAUSE_LINE}
    assert "4 of 8 tests not passing" in check["output"]["title"] and "| File |" in check["output"]["summary"]
    assert not [r for r in standin.requests if "/pulls/" in r.path and r.method != "GET"]
    assert "::error" not in run.out  # the findings are in the check run


def test_check_run_on_a_push_and_403_falls_back_to_annotations(world, standin):
    push = {"ref": "refs/heads/feature", "before": world.base, "after": world.head}
    ok = world.run(standin.url, event=push, event_name="push", reporter="check", fail_on="never")
    assert ok.code == 0 and [c["head_sha"] for c in standin.check_runs.values()] == [world.head]
    assert next(iter(standin.check_runs.values()))["conclusion"] == "success"  # fail_on: never
    standin.faults.forbid_checks = True
    denied = world.run(standin.url, reporter="check")
    assert denied.code == 1
    assert "::error file=prog.dfy,line=19" in denied.out
    assert "The check run could not be written (the token may not write check runs" in denied.summary
    assert denied.outputs["check_url"] == ""


def test_more_than_50_annotations_go_in_chunks_and_the_run_completes(standin):
    gh = GitHub(TOKEN, REPO, api_url=standin.url, write_delay=0)
    notes = [{"path": "a.dfy", "start_line": i, "end_line": i, "annotation_level": "failure", "message": f"m{i}"}
             for i in range(1, 121)]
    out = publish_check_run(gh, "dspec2test", "a" * 40, Conclusion.FAILURE, "t", "s", notes)
    assert not out.degraded and out.annotations == 120
    run = standin.check_runs[out.id]
    assert len(run["annotations"]) == 120 and (run["status"], run["conclusion"]) == ("completed", "failure")
    sizes = [len(r.body["output"]["annotations"]) for r in standin.writes()]
    assert sizes == [50, 50, 20]


def workflow_run(head_sha: str, head_repo: str, numbers=()) -> dict:
    return {"action": "completed", "workflow_run": {
        "event": "pull_request", "head_sha": head_sha, "head_repository": {"full_name": head_repo},
        "pull_requests": [{"number": n} for n in numbers]}}


def test_results_are_published_only_on_the_pull_request_they_are_about(world):
    fork = "contributor/widgets"
    with GitHubStandIn(REPO, TOKEN, world.pull(head_repo=fork)) as server:
        untrusted = world.run(server.url, head_repo=fork, reporter="summary")
        assert untrusted.code == 1 and server.requests == []
        artifact = json.loads(world.event(fork).read_text())
        (world.repo / "event.json").write_text(json.dumps(artifact))
        publish = dict(results="dspec2test-results.json", event_path="event.json", fail_on="never")

        # the artifact claims another commit than the workflow run that produced it: refused
        forged = dict(artifact, pull_request=dict(artifact["pull_request"], head={"sha": "e" * 40,
                                                                                 "repo": {"full_name": fork}}))
        (world.repo / "forged.json").write_text(json.dumps(forged))
        run = world.run(server.url, event=workflow_run(world.head, fork), event_name="workflow_run",
                        **dict(publish, event_path="forged.json"))
        assert run.code == 2 and server.writes() == [] and "nothing posted" in run.err
        assert "::error file=prog.dfy" in run.out  # the step's log still shows the findings

        # the artifact and the workflow run agree, but pull request 7 is not theirs: refused
        run = world.run(server.url, event=workflow_run(world.head, "mallory/widgets"), event_name="workflow_run",
                        **publish)
        assert run.code == 2 and server.writes() == []
        (world.repo / "event.json").write_text(json.dumps(dict(artifact, pull_request=dict(
            artifact["pull_request"], head={"sha": world.head, "repo": {"full_name": "mallory/widgets"}}))))
        run = world.run(server.url, event=workflow_run(world.head, "mallory/widgets"), event_name="workflow_run",
                        **publish)
        assert run.code == 2 and server.writes() == [] and "comes from contributor/widgets" in run.err
        (world.repo / "event.json").write_text(json.dumps(artifact))

        # everything agrees: posted, and nothing tested again
        good = world.run(server.url, event=workflow_run(world.head, fork), event_name="workflow_run", **publish)
        assert good.code == 0, good.err
        assert good.targets == [] and len(server.reviews) == 1 and len(server.comments) == 3
        assert [r.path for r in server.requests if r.method == "GET"][0] == f"/repos/{REPO}/pulls/7"

        # the pull request moved on since: nothing posted, and no error
        writes = len(server.writes())
        server.set_head("d" * 40, server.pull.files)
        stale = world.run(server.url, event=workflow_run(world.head, fork), event_name="workflow_run", **publish)
        assert stale.code == 0 and len(server.writes()) == writes
        assert "has moved on to dddddddddddd" in stale.summary

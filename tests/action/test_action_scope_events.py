"""`dspec2test action` end to end: which members each event tests (callers of a changed helper, push,
merge_group, workflow_dispatch), against the GitHub stand-in over real HTTP, with fake verdicts."""

from __future__ import annotations

import json

from tests.action import fixtures
from tests.action.conftest import REPO, TOKEN, PullRequestWorld
from tests.action.github_standin import GitHubStandIn

HELPER = """\
method Helper(x: int) returns (r: int)
{
  r := x + 1;
}

method Caller(x: int) returns (r: int)
  ensures r == x + 1
{
  r := Helper(x);
}

method Unrelated(x: int) returns (r: int)
  ensures r == x
{
  r := x;
}
"""

USES = """\
include "helper.dfy"

method Far(x: int) returns (r: int)
  ensures r == x + 1
{
  r := Caller(x);
}

method Alone(x: int) returns (r: int)
  ensures r == 2 * x
{
  r := x + x;
}
"""

PR_AFFECTED = {("prog.dfy", "Abs"), ("prog.dfy", "Max"), ("prog.dfy", "Clamp"), ("other.dfy", "UsesSmall"),
               ("new.dfy", "Twice")}


def asked(run) -> set[tuple[str, str]]:
    return {tuple(x) for x in run.targets[0]} if run.targets else set()


def test_a_helper_only_change_tests_its_callers_transitively_and_nothing_else(tmp_path):
    world = PullRequestWorld(tmp_path, {"helper.dfy": HELPER, "uses.dfy": USES},
                             {"helper.dfy": HELPER.replace("r := x + 1;", "r := x + 2;")})
    world.verdicts = [fixtures.v("helper.dfy", "Caller", 1, 1, "failed", 6, 7, "r == x + 1", inputs={"x": "0"}),
                      fixtures.v("uses.dfy", "Far", 1, 1, "failed", 3, 4, "r == x + 1", inputs={"x": "0"})]
    with GitHubStandIn(REPO, TOKEN, world.pull()) as server:
        run = world.run(server.url)
    assert asked(run) == {("helper.dfy", "Caller"), ("uses.dfy", "Far")}, run.out
    assert "helper.dfy: Caller (calls changed Helper)" in run.out
    assert "uses.dfy: Far (calls Caller (which uses changed Helper))" in run.out
    assert run.code == 1 and run.outputs["affected"] == "2" and run.outputs["conclusion"] == "failure"


def test_push_and_merge_group_test_only_their_own_diff(world, standin):
    push = world.run(standin.url, event={"ref": "refs/heads/feature", "before": world.base, "after": world.head},
                     event_name="push")
    assert asked(push) == PR_AFFECTED, push.err
    assert standin.requests == []  # no pull request: annotations and the summary
    assert "::error file=prog.dfy,line=19" in push.out and "Untouched" not in push.out
    group = world.run(standin.url, event={"merge_group": {"base_sha": world.base, "head_sha": world.head,
                                                          "head_ref": "refs/heads/gh-readonly-queue/main/pr-7"}},
                      event_name="merge_group")
    assert asked(group) == PR_AFFECTED, group.err
    assert group.code == 1 and group.outputs["conclusion"] == "failure"


def test_dispatch_and_a_branch_creating_push_test_every_member(world, standin):
    dispatch = world.run(standin.url, event={"inputs": {}, "ref": "refs/heads/main"}, event_name="workflow_dispatch")
    assert ("prog.dfy", "Untouched") in asked(dispatch) and PR_AFFECTED <= asked(dispatch)
    assert "A workflow_dispatch event has no diff: every selected member was tested." in dispatch.summary
    created = world.run(standin.url, event={"ref": "refs/heads/new", "before": "0" * 40, "after": world.head},
                        event_name="push")
    assert ("prog.dfy", "Untouched") in asked(created)
    assert "This push creates the branch" in created.summary


def test_push_without_its_start_commit_tests_everything_and_says_why(world, standin):
    run = world.run(standin.url, event={"ref": "refs/heads/feature", "before": "1234567890" * 4,
                                        "after": world.head}, event_name="push")
    assert ("prog.dfy", "Untouched") in asked(run)
    assert "lacks 123456789012" in run.err and "fetch-depth: 0" in run.err


def test_pull_request_target_refuses_to_run_a_forks_code(world):
    fork = "contributor/widgets"
    with GitHubStandIn(REPO, TOKEN, world.pull(head_repo=fork)) as server:
        run = world.run(server.url, head_repo=fork, event_name="pull_request_target")
        assert server.requests == []
    assert run.code == 2 and run.targets == []
    assert "refusing to build or run the code of contributor/widgets on pull_request_target" in run.err
    same_repo = world.run("http://127.0.0.1:9", event_name="pull_request_target", reporter="summary")
    assert asked(same_repo) == PR_AFFECTED  # the base repository's own branch is trusted


def test_fail_on_errors_trips_on_a_member_that_got_no_test_and_on_parse_errors(world, standin):
    world.verdicts = [d for d in fixtures.verdicts() if d["method"] != "Twice"]  # Twice gets no verdict
    world.verdicts = [dict(d, status="passed") for d in world.verdicts]
    lenient = world.run(standin.url, reporter="summary")
    assert lenient.code == 0 and lenient.outputs["conclusion"] == "success"
    assert "| new.dfy:1 | `Twice` | — | ⚠️ not-tested | — | no test was generated for it |" in lenient.summary
    strict = world.run(standin.url, reporter="summary", fail_on="errors")
    assert strict.code == 1 and "1 not-tested of" in strict.err
    # a declaration that does not parse is skipped and selected as one member (the real pipeline refuses it with
    # the parser's reason): not-tested, which trips `errors`, and not an error that hides the rest of its file
    world.push({"new.dfy": "method Twice(x: int) returns (r: int\n"}, standin)
    broken = world.run(standin.url, reporter="summary", fail_on="errors")
    assert broken.code == 1 and "1 not-tested of" in broken.err and ["new.dfy", "Twice"] in broken.targets[-1]
    empty = world.run(standin.url, reporter="summary", paths="nothing/**", fail_on_empty="true")
    assert empty.code == 1 and empty.outputs["conclusion"] == "failure"
    assert "no affected member got a test (fail_on_empty)" in empty.err


def test_an_internal_error_is_not_tested_with_its_reason_everywhere_and_trips_errors(world, standin):
    run = world.run(standin.url, reporter="annotations", fail_on="errors", extra_env={"FAKE_RAISE": "solver exploded"})
    assert run.code == 1 and "Traceback" not in run.err
    assert "5 not-tested of 5 tests (fail_on: errors)" in run.err
    assert "| prog.dfy:6 | `Abs` | — | ⚠️ not-tested | — | internal error: RuntimeError: solver exploded |" in run.summary
    results = json.loads((world.repo / "dspec2test-results.json").read_text())
    assert {t["status"] for t in results["tests"]} == {"not-tested"} and len(results["tests"]) == 5
    assert "internal error: RuntimeError: solver exploded" in (world.repo / "dspec2test-junit.xml").read_text()
    assert "::warning file=prog.dfy,line=6,title=dspec2test%3A Abs%3A not-tested::reason: internal error" in run.out
    assert "  prog.dfy:6: Abs: not-tested: internal error: RuntimeError: solver exploded" in run.out  # the recap


def test_push_and_merge_group_test_their_own_commits_not_the_branchs_whole_change(world, standin):
    first = world.head
    world.push({"prog.dfy": fixtures.FIXED_PROG})  # a second commit that only touches Abs's body
    push = world.run(standin.url, event={"ref": "refs/heads/feature", "before": first, "after": world.head},
                     event_name="push", fail_on="never")
    assert asked(push) == {("prog.dfy", "Abs")}, push.out + push.err
    assert push.outputs["affected"] == "1"
    group = world.run(standin.url, event={"merge_group": {"base_sha": first, "head_sha": world.head,
                                                          "head_ref": "refs/heads/gh-readonly-queue/main/pr-8"}},
                      event_name="merge_group", fail_on="never")
    assert asked(group) == {("prog.dfy", "Abs")}, group.out + group.err
    assert standin.requests == []  # neither event has a pull request to post to

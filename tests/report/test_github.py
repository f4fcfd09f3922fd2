"""The publisher against the stand-in, in process: retries, spacing, pagination, degradation."""

from __future__ import annotations

import pytest

from dspec2test.report.review import LineComment, Plan, marker
from dspec2test.report.github import GitHub, Publisher, _retry_wait
from tests.action.github_standin import GitHubStandIn, PullState

TOKEN = "ghs_secret_for_tests"
PATCH = "@@ -1,3 +1,4 @@\n a\n+b\n c\n d"


@pytest.fixture
def server():
    pull = PullState(3, "h" * 40, "b" * 40, "o/r", "o/r", [{"filename": "p.dfy", "status": "modified", "patch": PATCH}])
    with GitHubStandIn("o/r", TOKEN, pull, max_per_page=2) as s:
        yield s


def publisher(server, sleeps, token=TOKEN, delay=0.5):
    return Publisher(GitHub(token, "o/r", api_url=server.url, write_delay=delay, sleep=sleeps.append,
                            log=lambda _m: None), 3)


def one_comment_plan(line=2):
    return Plan(line_comments=[LineComment("p.dfy::M::p1", "p.dfy", line, marker("p.dfy::M::p1") + " x")],
                review_body="body")


def test_reads_files_and_all_pages_of_our_own_comments_only(server):
    ours = [server.add_comment(marker(f"p.dfy::M::p{i}"), "github-actions[bot]", "p.dfy", 2) for i in range(5)]
    server.add_comment("a human's comment", "alice", "p.dfy", 2)
    server.add_comment(marker("p.dfy::M::p1") + " pasted by someone else", "mallory", "p.dfy", 2)
    server.add_comment("thanks, looking", "alice", "p.dfy", 2, in_reply_to=ours[1])
    pub = publisher(server, [])
    assert pub.files() == {"p.dfy": PATCH}
    mine = pub.my_comments()
    # four pages of two; the humans' are not ours even with our marker; GET /user is refused for the bot
    assert sorted(c.id for c in mine) == ours
    assert {c.id: c.replies for c in mine}[ours[1]] == 1
    assert sum(r.path.endswith("/comments") for r in server.requests) == 4
    assert [r.path for r in server.requests].count("/user") == 1


def test_a_personal_token_is_identified_by_get_user(server):
    server.user = "octocat"
    mine_then_bot = [server.add_comment(marker("p.dfy::M::p1"), "octocat"),
                     server.add_comment(marker("p.dfy::M::p2"), "github-actions[bot]")]
    assert [c.id for c in publisher(server, []).my_comments()] == mine_then_bot[:1]


def test_429_waits_retry_after_then_succeeds(server):
    server.faults.once[("POST", "/reviews")] = (429, {"Retry-After": "7"})
    sleeps = []
    out = publisher(server, sleeps).apply(one_comment_plan(), "h" * 40)
    assert not out.degraded and out.created == 1
    assert 7.0 in sleeps
    assert len(server.reviews) == 1


def test_403_secondary_rate_limit_with_retry_after_is_retried_plain_403_is_not(server):
    server.faults.once[("POST", "/reviews")] = (403, {"Retry-After": "2"})
    sleeps = []
    assert not publisher(server, sleeps).apply(one_comment_plan(), "h" * 40).degraded
    assert 2.0 in sleeps
    server.faults.once[("POST", "/reviews")] = (403, {})
    out = publisher(server, []).apply(one_comment_plan(), "h" * 40)
    assert out.degraded and "HTTP 403" in out.errors[0]


def test_retry_after_is_bounded():
    assert _retry_wait(429, {"Retry-After": "5"}, 0) == 5.0
    assert _retry_wait(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "0"}, 0) == 0.0
    assert _retry_wait(422, {"Retry-After": "5"}, 0) is None
    assert _retry_wait(429, {}, 2) == 4.0


def test_rejected_anchor_falls_back_to_one_unanchored_review_and_5xx_is_recorded(server):
    out = publisher(server, []).apply(one_comment_plan(line=40), "h" * 40)  # line 40 is not in the diff
    assert not out.degraded and "422" in out.notes[0]
    assert server.comments == {} and len(server.reviews) == 1
    assert "p.dfy:40" in server.reviews[0]["body"] and "dspec2test:p.dfy::M::p1" in server.reviews[0]["body"]
    server.faults.server_error_on_writes = True
    out = publisher(server, []).apply(one_comment_plan(), "h" * 40)
    assert out.degraded and "502" in out.errors[0]
    assert all(TOKEN not in e for e in out.errors)


def test_writes_are_spaced(server):
    server.comments[1] = {"id": 1, "body": "x", "path": "p.dfy", "line": 2, "subject_type": "line"}
    server.comments[2] = {"id": 2, "body": "y", "path": "p.dfy", "line": 2, "subject_type": "line"}
    sleeps = []
    plan = one_comment_plan()
    plan.updates, plan.deletes = [(1, "new")], [2]
    out = publisher(server, sleeps, delay=0.5).apply(plan, "h" * 40)
    assert (out.updated, out.deleted, out.created) == (1, 1, 1)
    assert len([s for s in sleeps if 0 < s <= 0.5]) == 2  # before the 2nd and the 3rd write


def test_unreachable_server_degrades():
    pub = Publisher(GitHub(TOKEN, "o/r", api_url="http://127.0.0.1:9", write_delay=0, sleep=lambda s: None), 3)
    out = pub.apply(one_comment_plan(), "h" * 40)
    assert out.degraded and TOKEN not in out.errors[0]

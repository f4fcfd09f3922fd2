"""Reading the event file: each event's own diff, and what a workflow_run is about."""

from __future__ import annotations

import json

import pytest

from dspec2test.action.event import EventError, EventKind, read_event

A, B = "a" * 40, "b" * 40


def event(tmp_path, data, name=""):
    path = tmp_path / "event.json"
    path.write_text(json.dumps(data))
    return read_event(str(path), name)


def test_each_event_kind_gives_its_own_diff(tmp_path):
    pr = event(tmp_path, {"number": 3, "pull_request": {"number": 3, "head": {"sha": B, "repo": {"full_name": "f/r"}},
                                                        "base": {"sha": A, "repo": {"full_name": "o/r"}}}},
               "pull_request_target")
    assert (pr.kind, pr.base, pr.head, pr.pr.number, pr.privileged) == (EventKind.PULL_REQUEST, A, B, 3, True)
    assert pr.pr.is_fork("o/r") and not pr.pr.is_fork("F/R")
    push = event(tmp_path, {"ref": "refs/heads/main", "before": A, "after": B}, "push")
    assert (push.kind, push.base, push.head) == (EventKind.PUSH, A, B)
    assert event(tmp_path, {"before": "0" * 40, "after": B}, "push").base is None  # a new branch: everything
    group = event(tmp_path, {"merge_group": {"base_sha": A, "head_sha": B}}, "merge_group")
    assert (group.kind, group.base, group.head) == (EventKind.MERGE_GROUP, A, B)
    for name in ("workflow_dispatch", "schedule"):
        other = event(tmp_path, {"inputs": {}} if name == "workflow_dispatch" else {"schedule": "0 3 * * *"}, name)
        assert (other.kind, other.base, other.name) == (EventKind.OTHER, None, name)
    assert read_event("", "schedule").kind is EventKind.OTHER


def test_workflow_run_payload_says_what_the_run_was_about(tmp_path):
    run = event(tmp_path, {"workflow_run": {"event": "pull_request", "head_sha": B,
                                            "head_repository": {"full_name": "f/r"},
                                            "pull_requests": [{"number": 3}]}}, "workflow_run")
    assert run.kind is EventKind.WORKFLOW_RUN and run.pr is None
    assert (run.run.head_sha, run.run.head_repo, run.run.pull_numbers) == (B, "f/r", (3,))


def test_bad_event_files_are_errors_with_the_path(tmp_path):
    with pytest.raises(EventError, match="not found"):
        read_event(str(tmp_path / "none.json"))
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(EventError, match=r"bad\.json:1:2: not valid JSON"):
        read_event(str(tmp_path / "bad.json"))
    with pytest.raises(EventError, match="lacks 'head_sha'"):
        event(tmp_path, {"merge_group": {"base_sha": A}}, "merge_group")

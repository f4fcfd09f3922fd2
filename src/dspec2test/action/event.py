"""What the run is about, read from the event file GitHub writes (GITHUB_EVENT_PATH).

Each event that has a diff tests its own: a pull request base.sha..head.sha, a push before..after, a
merge group base_sha..head_sha. workflow_dispatch, schedule and the rest test every selected member.
The payload's shape decides (an event file handed over by event_path may differ from the workflow's
own event name); GITHUB_EVENT_NAME only names it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path


class EventError(ValueError):
    pass


class EventKind(str, Enum):
    PULL_REQUEST = "pull_request"  # and pull_request_target
    PUSH = "push"
    MERGE_GROUP = "merge_group"
    WORKFLOW_RUN = "workflow_run"
    OTHER = "other"  # workflow_dispatch, schedule, ...


NO_COMMIT = "0" * 40  # a push that creates a branch has no `before`


@dataclass(frozen=True)
class PullRequest:
    number: int
    head_sha: str  # comment on this commit, not GITHUB_SHA (a merge commit)
    base_sha: str
    head_repo: str  # owner/name the head branch lives in
    base_repo: str

    def is_fork(self, repository: str) -> bool:
        # A deleted fork leaves head.repo null: treat it as a fork (no writes), the safe side.
        return not self.head_repo or self.head_repo.lower() != repository.lower()


@dataclass(frozen=True)
class WorkflowRun:
    """The run a `workflow_run` event is about: what a results artifact must agree with."""

    head_sha: str
    head_repo: str
    event: str
    pull_numbers: tuple[int, ...]  # GitHub leaves this empty for pull requests from forks


@dataclass(frozen=True)
class Event:
    name: str  # GITHUB_EVENT_NAME, or the kind when that is unset
    kind: EventKind
    pr: PullRequest | None = None
    base: str | None = None  # the diff is base...head; None: test every selected member
    head: str | None = None  # the commit the reports are about (None: the checkout's)
    run: WorkflowRun | None = None

    @property
    def privileged(self) -> bool:
        """pull_request_target: the workflow runs with the base repository's secrets."""
        return self.name == "pull_request_target"


def read_event(path: str, name: str = "") -> Event:
    """The event of the file at `path` ({} when there is none: every member is tested)."""
    if not path:
        return Event(name or EventKind.OTHER.value, EventKind.OTHER)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EventError(f"{path}: event file not found") from None
    except json.JSONDecodeError as exc:
        raise EventError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise EventError(f"{path}: expected a JSON object")
    try:
        return _event(data, name)
    except (KeyError, TypeError, ValueError) as exc:
        raise EventError(f"{path}: {name or 'event'} payload lacks {exc}") from None


def _event(data: dict, name: str) -> Event:
    if isinstance(data.get("pull_request"), dict):
        pr = _pull_request(data)
        return Event(name or "pull_request", EventKind.PULL_REQUEST, pr, pr.base_sha, pr.head_sha)
    if isinstance(data.get("merge_group"), dict):
        group = data["merge_group"]
        return Event(name or "merge_group", EventKind.MERGE_GROUP, None, str(group["base_sha"]), str(group["head_sha"]))
    if isinstance(data.get("workflow_run"), dict):
        run = data["workflow_run"]
        numbers = tuple(int(p["number"]) for p in run.get("pull_requests") or () if isinstance(p, dict))
        head_repo = str(((run.get("head_repository") or {}).get("full_name")) or "")
        return Event(name or "workflow_run", EventKind.WORKFLOW_RUN, None, None, str(run["head_sha"]),
                     WorkflowRun(str(run["head_sha"]), head_repo, str(run.get("event") or ""), numbers))
    if "before" in data and "after" in data and name in ("", "push"):
        before, after = str(data["before"]), str(data["after"])
        return Event(name or "push", EventKind.PUSH, None, None if before == NO_COMMIT else before, after)
    return Event(name or EventKind.OTHER.value, EventKind.OTHER)


def _pull_request(data: dict) -> PullRequest:
    pr = data["pull_request"]
    head, base = pr["head"], pr["base"]
    number = pr.get("number") or data.get("number")
    if number is None:
        raise KeyError("number")
    return PullRequest(
        number=int(number),
        head_sha=str(head["sha"]),
        base_sha=str(base["sha"]),
        head_repo=str(((head.get("repo") or {}).get("full_name")) or ""),
        base_repo=str(((base.get("repo") or {}).get("full_name")) or ""),
    )

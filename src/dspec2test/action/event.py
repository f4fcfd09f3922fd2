"""The pull request the run is about, read from the event file GitHub writes (GITHUB_EVENT_PATH)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


class EventError(ValueError):
    pass


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


def read_event(path: str) -> PullRequest | None:
    """The pull request of a pull_request(_target) event; None for other events (push, schedule...)."""
    if not path:
        return None
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EventError(f"{path}: event file not found") from None
    except json.JSONDecodeError as exc:
        raise EventError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    pr = data.get("pull_request") if isinstance(data, dict) else None
    if not isinstance(pr, dict):
        return None
    try:
        head, base = pr["head"], pr["base"]
        return PullRequest(
            number=int(pr.get("number") or data.get("number")),
            head_sha=str(head["sha"]),
            base_sha=str(base["sha"]),
            head_repo=str(((head.get("repo") or {}).get("full_name")) or ""),
            base_repo=str(((base.get("repo") or {}).get("full_name")) or ""),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise EventError(f"{path}: pull_request event lacks {exc}") from None

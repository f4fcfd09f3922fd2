"""Trusted publishing: results from an untrusted run are posted only on the pull request they are about.

In `results` mode the artifact (results file and the event copied beside it) comes from a run of the
pull request's own code, so it may say anything. Its pull request number, head sha and head repository
must agree with the trusted event of the publishing run (the `workflow_run` payload GitHub wrote, or the
pull request event itself) and with the pull request as GitHub reports it now (`GET /pulls/N`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from dspec2test.action.event import Event, EventKind


@dataclass(frozen=True)
class Refusal:
    reason: str
    forged: bool  # the artifact contradicts the trusted event or GitHub: exit 2; else it is only stale


def verify_subject(artifact: Event, trusted: Event, repository: str, live: Callable[[int], dict]) -> Refusal | None:
    """None when results about `artifact` may be posted; else why not. `live(n)` is GET /pulls/n."""
    pr = artifact.pr
    if pr is None:
        return Refusal("the results' event (event_path) is not a pull request event", True)
    if trusted.kind is EventKind.WORKFLOW_RUN and trusted.run:
        run = trusted.run
        if pr.head_sha != run.head_sha:
            return Refusal(f"the results are about {pr.head_sha[:12]}, the workflow run about {run.head_sha[:12]}", True)
        if run.head_repo and pr.head_repo.lower() != run.head_repo.lower():
            return Refusal(f"the results are about {pr.head_repo or 'no repository'}, the workflow run about "
                           f"{run.head_repo}", True)
        if run.pull_numbers and pr.number not in run.pull_numbers:
            return Refusal(f"the results are about #{pr.number}, the workflow run about "
                           f"{', '.join(f'#{n}' for n in run.pull_numbers)}", True)
    elif trusted.kind is EventKind.PULL_REQUEST and trusted.pr:
        own = trusted.pr
        if (own.number, own.head_sha, own.head_repo.lower()) != (pr.number, pr.head_sha, pr.head_repo.lower()):
            return Refusal(f"the results are about #{pr.number} at {pr.head_sha[:12]}, this run about "
                           f"#{own.number} at {own.head_sha[:12]}", True)
    else:
        return Refusal(f"a {trusted.name} event gives nothing to check the results against (publish from a "
                       "workflow_run or pull_request event)", True)
    data = live(pr.number)
    head, base = data.get("head") or {}, data.get("base") or {}
    head_repo = str((head.get("repo") or {}).get("full_name") or "")
    base_repo = str((base.get("repo") or {}).get("full_name") or "")
    if base_repo and base_repo.lower() != repository.lower():
        return Refusal(f"#{pr.number} belongs to {base_repo}, not {repository}", True)
    if head_repo.lower() != pr.head_repo.lower():
        return Refusal(f"#{pr.number} comes from {head_repo or 'a deleted repository'}, the results say "
                       f"{pr.head_repo or 'none'}", True)
    if str(head.get("sha") or "") != pr.head_sha:
        return Refusal(f"#{pr.number} has moved on to {str(head.get('sha') or '?')[:12]} since these results "
                       f"({pr.head_sha[:12]}); the newer run will publish its own", False)
    return None

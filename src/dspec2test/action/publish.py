"""Which report goes to GitHub, and what to do when it cannot: the reporter input decides (review
comments, a check run, the summary only, or annotations), the event and the token allow it or not, and
any refusal or failure turns into workflow-command annotations and a note in the job summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dspec2test.action.config import Settings
from dspec2test.action.diff import added_lines, commentable_lines
from dspec2test.action.event import Event
from dspec2test.action.inputs import ActionInputs, Reporter
from dspec2test.action.pipeline import PipelineOptions, reproduce_command
from dspec2test.report.checks import publish_check_run
from dspec2test.report.findings import Finding
from dspec2test.report.gate import Decision
from dspec2test.report.github import GitHub, PublishOutcome, Publisher
from dspec2test.report.review import comment_body, plan_review
from dspec2test.report.weak_review import add_weak
from dspec2test.strength.records import WeakFinding


@dataclass
class Reported:
    notes: list[str]  # for the job summary
    annotate: bool  # the findings must be shown as workflow-command annotations
    review_url: str = ""
    check_url: str = ""
    log: list[str] = field(default_factory=list)  # lines for the step's log


def report(github: GitHub | None, settings: Settings, inputs: ActionInputs, subject: Event, repository: str,
           head: str, findings: list[Finding], members: list[dict], options: PipelineOptions, decision: Decision,
           title: str, summary_text: str, check_annotations: list[dict], run_url: str = "",
           weak: Sequence[WeakFinding] = (), measured: frozenset[tuple[str, str]] = frozenset()) -> Reported:
    """`weak`: contract strength findings (warning comments); `measured`: the (file, member) it measured."""
    reporter = settings.reporter
    if reporter in (Reporter.SUMMARY, Reporter.ANNOTATIONS):
        return Reported([], reporter is Reporter.ANNOTATIONS)
    what = "check run" if reporter is Reporter.CHECK else "review comments"
    pr = subject.pr
    if pr and pr.is_fork(repository) and not inputs.results:
        return Reported([f"Pull request from a fork ({pr.head_repo or 'deleted repository'}): no {what} (the token "
                         "is read-only); see annotations, or publish with the workflow_run pattern."], True)
    if github is None:
        return Reported([f"No github_token: no {what}; see annotations."], True)
    if reporter is Reporter.CHECK:
        return _check_run(github, inputs, head, decision, title, summary_text, check_annotations, run_url)
    if pr is None:
        return Reported(["Not a pull request event: results are in the job summary and annotations only "
                         "(`reporter: check` reports on any event)."], True)
    outcome = _review(inputs, Publisher(github, pr.number), pr.head_sha, findings, members,
                      options, weak, measured)
    reported = Reported(list(outcome.notes), outcome.degraded, review_url=outcome.review_url, log=[
        f"dspec2test: review: {outcome.created} new, {outcome.updated} updated, {outcome.skipped} unchanged, "
        f"{outcome.deleted} removed, {outcome.in_body} in the review body"])
    if outcome.degraded:
        reported.notes.append("Posting to the pull request failed (" + "; ".join(outcome.errors)[:500]
                              + "); the failures are shown as annotations instead.")
    return reported


def _check_run(github: GitHub, inputs: ActionInputs, head: str, decision: Decision, title: str, summary_text: str,
               check_annotations: list[dict], run_url: str) -> Reported:
    if not head:
        return Reported(["No commit to attach a check run to (GITHUB_SHA is unset); see annotations."], True)
    out = publish_check_run(github, inputs.check_name, head, decision.conclusion, title, summary_text,
                            check_annotations, run_url)
    if out.degraded:
        why = ("the token may not write check runs: give the job `checks: write`, or a fork's read-only token"
               if out.forbidden else "; ".join(out.errors)[:500])
        return Reported([f"The check run could not be written ({why}); the failures are shown as annotations "
                         "instead."], True)
    return Reported([], False, check_url=out.url, log=[
        f"dspec2test: check run {inputs.check_name!r}: {decision.conclusion.value}, {out.annotations} annotations"
        + (f": {out.url}" if out.url else "")])


def _review(inputs: ActionInputs, pub: Publisher, head_sha: str, findings: list[Finding], members: list[dict],
            options: PipelineOptions, weak: Sequence[WeakFinding] = (),
            measured: frozenset[tuple[str, str]] = frozenset()) -> PublishOutcome:
    try:
        patches = pub.files()
        existing = pub.my_comments()
        bodies = {f.key: comment_body(f, reproduce_command(f.file, f.method, options)) for f in findings}
        commentable = {p: commentable_lines(t) for p, t in patches.items()}
        added = {p: added_lines(t) for p, t in patches.items()}
        ranges = {(m["file"], m["name"]): (m["line"], m["end_line"]) for m in members}
        plan = plan_review(
            findings, bodies,
            commentable=commentable,
            added=added,
            member_ranges=ranges,
            existing=existing,
            tested_methods={(m["file"], m["name"]) for m in members},
            review_bodies=pub.review_bodies() if findings else (),
        )
        if weak or measured:
            add_weak(plan, weak, commentable, added, ranges, existing, set(measured), bool(findings))
        return pub.apply(plan, head_sha)
    except Exception as exc:  # noqa: BLE001 - reporting must never crash the run; it degrades instead
        message = str(exc).replace(inputs.github_token, "***") if inputs.github_token else str(exc)
        return PublishOutcome(errors=[f"{type(exc).__name__}: {message}"[:300]])

"""`dspec2test action`: event + inputs + config -> affected members -> pipeline -> reports -> gate.

Everything GitHub-specific that is not an HTTP request lives here (workflow commands, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY); requests go through report.github.Publisher only.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Mapping, TextIO

from dspec2test.action import results as results_file
from dspec2test.action.choose import Choice, MemberReader, Selection, checkout_of, choose_all, choose_changed
from dspec2test.action.members import read_members
from dspec2test.action.config import ConfigError, Settings, load_config, settings_from
from dspec2test.action.diff import (
    FileChange,
    Git,
    GitError,
    added_lines,
    changes_from_pr_files,
    commentable_lines,
    trust_workspace,
)
from dspec2test.action.event import EventError, PullRequest, read_event
from dspec2test.action.findings import Finding, Totals, group, relative
from dspec2test.action.inputs import FailOn, InputError, Reporter, read_inputs
from dspec2test.action.pipeline import Pipeline, PipelineOptions, PipelineResult, reproduce_command
from dspec2test.action.review import comment_body, plan_review
from dspec2test.errors import Diagnostic
from dspec2test.generate import GenerateOptions
from dspec2test.records import Verdict
from dspec2test.report import annotations, sarif, summary
from dspec2test.report.junit import junit_xml
from dspec2test.report.github import Outcome, PublishError, Publisher


@dataclass(frozen=True)
class Context:
    env: Mapping[str, str]
    out: TextIO
    err: TextIO
    sleep: Callable[[float], None] = time.sleep
    read: MemberReader = read_members  # tests substitute a reader for fixtures


def pipeline_options(settings: Settings, root: Path) -> PipelineOptions:
    return PipelineOptions(
        root=root,
        generate=GenerateOptions(
            fdnf=settings.fdnf, bva=settings.bva, simplify=settings.simplify, repeat=settings.repeat,
            max_partitions=settings.max_partitions, timeout_s=settings.solver_timeout,
        ),
        timeout=settings.timeout,
        target=settings.target,
    )


def run_action(ctx: Context, pipeline: Pipeline) -> int:
    env = ctx.env
    try:
        inputs = read_inputs(env)
    except InputError as exc:
        ctx.err.write(f"dspec2test: {exc}\n")
        return 2
    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd()).resolve()
    if env.get("GITHUB_WORKSPACE"):
        trust_workspace(str(workspace))  # before any other git call
    try:
        settings = settings_from(inputs, load_config(workspace / inputs.config))
        pr = read_event(str(workspace / inputs.event_path) if inputs.event_path else env.get("GITHUB_EVENT_PATH", ""))
    except (ConfigError, EventError) as exc:
        ctx.err.write(f"dspec2test: {exc}\n")
        return 2
    repository = env.get("GITHUB_REPOSITORY", "")

    members: list[dict]
    publisher: Publisher | None = None
    if inputs.results:
        try:
            verdicts, members = results_file.load(workspace / inputs.results)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            ctx.err.write(f"dspec2test: results {inputs.results}: cannot read: {exc}\n")
            return 2
        diagnostics: list[Diagnostic] = []
    else:
        try:
            publisher = _publisher(ctx, inputs, pr, repository) if pr and inputs.github_token else None
            verdicts, members, diagnostics = _test(ctx, pipeline, workspace, settings, pr, publisher)
        except GitError as exc:
            ctx.err.write(f"dspec2test: {exc}\n(check out with `fetch-depth: 0` so both commits of the pull request are present)\n")
            return 2

    options = pipeline_options(settings, workspace)
    findings, _ = group(verdicts)
    totals = Totals.of(verdicts)
    _write_files(workspace, inputs, verdicts, findings, members, diagnostics)
    notes, annotate = _report_to_pull_request(ctx, inputs, settings, pr, repository, publisher, findings, members,
                                              options)
    if annotate:
        for line in annotations.annotations(findings):
            ctx.out.write(line + "\n")
    for d in diagnostics:
        ctx.out.write(annotations.command("warning", d.message, file=d.file, line=d.line or None, col=d.col or None) + "\n")

    _terminal(ctx, verdicts, findings, members)
    _append(env.get("GITHUB_STEP_SUMMARY"), summary.render(
        verdicts, diagnostics=diagnostics, notes=notes,
        members=[(m["file"], m["name"], m.get("reason", "")) for m in members],
    ))
    _append(env.get("GITHUB_OUTPUT"), "".join(
        f"{k}={v}\n" for k, v in (("tests", totals.tests), ("passed", totals.passed), ("failed", totals.failed),
                                  ("methods", totals.methods), ("junit_path", inputs.junit_path))
    ))
    gate = settings.fail_on is FailOn.FAILURES and totals.failed > 0
    if gate:
        ctx.err.write(f"dspec2test: {totals.failed} of {totals.tests} tests not passing (fail_on: failures)\n")
    return 1 if gate else 0


def _report_to_pull_request(ctx: Context, inputs, settings: Settings, pr: PullRequest | None, repository: str,
                            publisher: Publisher | None, findings: list[Finding], members: list[dict],
                            options: PipelineOptions) -> tuple[list[str], bool]:
    """Post the review when the reporter, the event and the token allow it; (summary notes, whether
    the failures must be shown as annotations instead)."""
    if settings.reporter is not Reporter.REVIEW:
        return [], settings.reporter is Reporter.ANNOTATIONS
    if pr is None:
        return ["Not a pull request event: results are in the job summary and annotations only."], True
    if pr.is_fork(repository) and not inputs.results:
        return [f"Pull request from a fork ({pr.head_repo or 'deleted repository'}): no comments are posted "
                "(the token is read-only); see annotations, or publish with the workflow_run pattern."], True
    if not inputs.github_token:
        return ["No github_token: no review comments; see annotations."], True
    outcome = _publish(inputs, publisher or _publisher(ctx, inputs, pr, repository), pr, findings, members, options)
    ctx.out.write(
        f"dspec2test: review: {outcome.created} new, {outcome.updated} updated, {outcome.skipped} unchanged, "
        f"{outcome.deleted} removed, {outcome.in_body} in the review body\n"
    )
    notes = list(outcome.notes)
    if outcome.degraded:
        notes.append("Posting to the pull request failed (" + "; ".join(outcome.errors)[:500]
                     + "); the failures are shown as annotations instead.")
    return notes, outcome.degraded


def _test(ctx: Context, pipeline: Pipeline, workspace: Path, settings: Settings, pr: PullRequest | None,
          publisher: Publisher | None):
    git = Git(Path(Git(workspace).run("rev-parse", "--show-toplevel").strip()))  # diff paths are from the top
    selection = Selection(settings.paths, settings.include, settings.exclude)
    head = pr.head_sha if pr else None
    if head and not _has_commit(git, head):
        ctx.err.write(f"dspec2test: warning: the checkout lacks the head commit {head[:12]}; testing the files as "
                      "checked out (check out `ref: ${{ github.event.pull_request.head.sha }}`)\n")
        head = None
    with checkout_of(git, head) as root:
        if pr:
            choice = choose_changed(root, _changes(ctx, git, pr, publisher), selection, settings.shard, ctx.read)
        else:
            choice = choose_all(root, selection, settings.shard, ctx.read)
        members = [{"file": a.member.file, "name": a.member.name, "line": a.member.line,
                    "end_line": a.member.end_line, "reason": a.reason} for a in choice.affected]
        for a in choice.affected:
            ctx.out.write(f"dspec2test: {a.member.file}: {a.member.name} ({a.reason})\n")
        targets = choice.targets()
        result = pipeline(targets, pipeline_options(settings, root)) if targets else PipelineResult()
        ctx.out.write(result.report)
        verdicts = [_normalise(v, root, choice) for v in result.verdicts]
    return verdicts, members, list(choice.diagnostics) + list(result.diagnostics)


def _has_commit(git: Git, sha: str) -> bool:
    try:
        git.rev_parse(sha)
        return True
    except GitError:
        return False


def _changes(ctx: Context, git: Git, pr: PullRequest, publisher: Publisher | None) -> list[FileChange]:
    """The pull request's diff from git; from GitHub's files API when the clone is too shallow."""
    try:
        return git.diff(pr.base_sha, pr.head_sha)
    except GitError as exc:
        if publisher is None:
            raise
        try:
            entries = publisher.file_entries()
        except PublishError:
            raise exc from None
        ctx.err.write(f"dspec2test: warning: {exc}; using the pull request's diff from the GitHub API "
                      "(`fetch-depth: 0` avoids this)\n")
        return changes_from_pr_files(entries)


def _publisher(ctx: Context, inputs, pr: PullRequest, repository: str) -> Publisher:
    return Publisher(inputs.github_token, repository, pr.number,
                     api_url=ctx.env.get("GITHUB_API_URL", "https://api.github.com"),
                     write_delay=inputs.write_delay, sleep=ctx.sleep, log=lambda msg: ctx.err.write(msg + "\n"))


def _normalise(v: Verdict, root: Path, choice: Choice) -> Verdict:
    file = relative(v.file, root)
    if not v.member_line:
        span = choice.ranges().get((file, v.method))
        if span:
            return replace(v, file=file, member_line=span[0])
    return replace(v, file=file)


def _publish(inputs, pub: Publisher, pr: PullRequest, findings: list[Finding], members: list[dict],
             options: PipelineOptions) -> Outcome:
    try:
        patches = pub.files()
        existing = pub.my_comments()
        bodies = {f.key: comment_body(f, reproduce_command(f.file, f.method, options)) for f in findings}
        plan = plan_review(
            findings, bodies,
            commentable={p: commentable_lines(t) for p, t in patches.items()},
            added={p: added_lines(t) for p, t in patches.items()},
            member_ranges={(m["file"], m["name"]): (m["line"], m["end_line"]) for m in members},
            existing=existing,
            tested_methods={(m["file"], m["name"]) for m in members},
            review_bodies=pub.review_bodies() if findings else (),
        )
        return pub.apply(plan, pr.head_sha)
    except Exception as exc:  # noqa: BLE001 - reporting must never crash the run; it degrades instead
        message = str(exc).replace(inputs.github_token, "***") if inputs.github_token else str(exc)
        return Outcome(errors=[f"{type(exc).__name__}: {message}"[:300]])


def _write_files(workspace: Path, inputs, verdicts, findings, members, diagnostics) -> None:
    for path, text in (
        (inputs.junit_path, lambda: junit_xml(verdicts)),
        (inputs.sarif_path, lambda: sarif.dumps(findings)),
        (inputs.json_path, lambda: results_file.dumps(verdicts, members, diagnostics)),
    ):
        if path:
            target = workspace / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text(), encoding="utf-8")


def _terminal(ctx: Context, verdicts: list[Verdict], findings: list[Finding], members: list[dict]) -> None:
    totals = Totals.of(verdicts)
    for f in findings:
        ctx.out.write(f"{f.file}:{f.line}: {f.status.value}: {f.method} partition {f.partition} {f.first.label}\n")
    ctx.out.write(f"dspec2test: {totals.tests} tests, {totals.passed} passed, {totals.failed} not passing, "
                  f"{totals.methods} methods ({len(members)} affected)\n")


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)

"""`dspec2test action`: event + inputs + config -> affected members -> pipeline -> reports -> gate.

Everything GitHub-specific that is not an HTTP request lives here (workflow commands, GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY); requests go through report.github only, and action/publish.py decides which.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, TextIO

from dspec2test.action import results as results_file
from dspec2test.action.choose import MemberReader, Selection, checkout_of, choose_all, choose_changed
from dspec2test.action.config import ConfigError, Settings, load_config, settings_from
from dspec2test.action.diff import FileChange, Git, GitError, changes_from_pr_files, trust_workspace
from dspec2test.action.event import Event, EventError, EventKind, read_event
from dspec2test.action.inputs import ActionInputs, InputError, Reporter, read_inputs
from dspec2test.action.pipeline import Pipeline, PipelineOptions, pipeline_options, run_pipeline
from dspec2test.action.publish import Reported, report
from dspec2test.action.trust import Refusal, verify_subject
from dspec2test.errors import Diagnostic
from dspec2test.records import Status, Verdict
from dspec2test.report import annotations as annotate, sarif, summary
from dspec2test.report.findings import Finding, Totals, group
from dspec2test.report import coverage as coverage_report, strength as strength_report
from dspec2test.report.strength import weak_annotations
from dspec2test.strength.records import Measured, MemberStrength
from dspec2test.report.gate import Decision, decide
from dspec2test.report.github import GitHub, Publisher, PublishError
from dspec2test.report.junit import junit_xml
from dspec2test.report.terminal import TerminalProgress, recap_lines
from dspec2test.toolchain import find_toolchain, z3_description


@dataclass(frozen=True)
class Context:
    env: Mapping[str, str]
    out: TextIO
    err: TextIO
    sleep: Callable[[float], None] = time.sleep
    read: MemberReader | None = None  # tests substitute a reader for fixtures; else files are read in their programs


@dataclass
class Tested:
    """What testing (or loading an earlier run's results) gave."""

    verdicts: list[Verdict]
    members: list[dict]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    changed_errors: list[Diagnostic] = field(default_factory=list)  # for `fail_on: errors`
    touched: dict[str, frozenset[int]] = field(default_factory=dict)  # changed lines, shown first
    notes: list[str] = field(default_factory=list)
    toolchain: str = ""  # which Z3 Dafny verifies with, when this run tested anything
    timing: str = ""  # `generation 3.1 s, execution 1.2 s`, when this run tested anything
    cache: str = ""  # what the cache of generated tests saved (PipelineResult.cache_line)
    coverage: list[dict] = field(default_factory=list)  # clause coverage per tested member
    strength: list[MemberStrength] = field(default_factory=list)  # contract strength, when asked for


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
        own = read_event(env.get("GITHUB_EVENT_PATH", ""), env.get("GITHUB_EVENT_NAME", ""))
        subject = read_event(str(workspace / inputs.event_path)) if inputs.event_path else own
    except (ConfigError, EventError) as exc:
        ctx.err.write(f"dspec2test: {exc}\n")
        return 2
    repository = env.get("GITHUB_REPOSITORY", "")
    github = GitHub(inputs.github_token, repository, api_url=env.get("GITHUB_API_URL", "https://api.github.com"),
                    write_delay=inputs.write_delay, sleep=ctx.sleep,
                    log=lambda msg: ctx.err.write(msg + "\n")) if inputs.github_token and repository else None

    refusal: Refusal | None = None
    if inputs.results:
        try:
            verdicts, members = results_file.load(workspace / inputs.results)
            coverage, strength = results_file.load_extras(workspace / inputs.results)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            ctx.err.write(f"dspec2test: results {inputs.results}: cannot read: {exc}\n")
            return 2
        tested = Tested(verdicts, members, coverage=coverage, strength=strength)
        if github and settings.reporter in (Reporter.REVIEW, Reporter.CHECK):
            refusal = _verify(github, subject, own, repository)
    else:
        if own.privileged and own.pr and own.pr.is_fork(repository):
            ctx.err.write(f"dspec2test: refusing to build or run the code of {own.pr.head_repo or 'a deleted fork'} "
                          "on pull_request_target (it would run with this repository's secrets); use "
                          "`on: pull_request` and the workflow_run pattern for forks (docs/workflows/)\n")
            return 2
        publisher = Publisher(github, subject.pr.number) if github and subject.pr else None
        try:
            tested = _test(ctx, pipeline, workspace, settings, subject, publisher)
        except GitError as exc:
            ctx.err.write(f"dspec2test: {exc}\n(check out with `fetch-depth: 0` so both commits of the diff are present)\n")
            return 2

    findings, _ = group(tested.verdicts)
    decision = decide(settings.gate, tested.verdicts, tested.changed_errors, weak=sum(r.weak for r in tested.strength))
    link = summary.blob_link(env.get("GITHUB_SERVER_URL", ""), repository, subject.head or env.get("GITHUB_SHA") or "")
    written = _write_files(workspace, inputs, settings, tested)
    if refusal:
        ctx.err.write(f"dspec2test: nothing posted: {refusal.reason}\n")
        reported = Reported([f"Nothing was posted to the pull request: {refusal.reason}."], True)
    else:
        reported = _report(ctx, github, settings, inputs, subject, repository, tested, findings, decision,
                           pipeline_options(settings, workspace), link)
    _annotate(ctx, reported, tested, findings)
    _terminal(ctx, tested)
    if tested.strength:
        ctx.out.write(strength_report.terminal(tested.strength))
    text = _summary(tested, decision, tested.notes + reported.notes, link)
    _append(env.get("GITHUB_STEP_SUMMARY"), text)
    if inputs.summary_path:
        _write(workspace / inputs.summary_path, text)
        written["summary_path"] = written["summary_file"] = inputs.summary_path
    _append(env.get("GITHUB_OUTPUT"), _outputs(tested, decision, written, reported))
    for reason in decision.reasons:
        ctx.err.write(f"dspec2test: gate: {reason}\n")
    if refusal and refusal.forged:
        return 2
    return decision.exit_code


def _report(ctx: Context, github: GitHub | None, settings: Settings, inputs: ActionInputs, subject: Event,
            repository: str, tested: Tested, findings: list[Finding], decision: Decision,
            options: PipelineOptions, link: summary.Link | None = None) -> Reported:
    """Post to GitHub as the reporter asks."""
    everything = annotate.collect(findings, tested.diagnostics, tested.touched, _ranges(tested))
    reported = report(github, settings, inputs, subject, repository, subject.head or ctx.env.get("GITHUB_SHA") or "",
                      findings, tested.members, options, decision,
                      summary.totals_line(Totals.of(tested.verdicts)).replace("**", ""), _summary(tested, decision, link=link),
                      annotate.check_run_annotations(everything + weak_annotations(tested.strength)),
                      run_url=_run_url(ctx.env), weak=[f for r in tested.strength for f in r.findings],
                      measured=frozenset((r.file, r.member) for r in tested.strength if r.status is Measured.MEASURED))
    for line in reported.log:
        ctx.out.write(line + "\n")
    return reported


def _annotate(ctx: Context, reported: Reported, tested: Tested, findings: list[Finding]) -> None:
    """The workflow-command annotations the step's log must carry, within GitHub's budget."""
    if reported.annotate:
        shown = annotate.collect(findings, tested.diagnostics, tested.touched, _ranges(tested))
        shown += weak_annotations(tested.strength)
    elif reported.check_url:
        shown = []  # the check run carries every finding and diagnostic
    else:  # the findings are on the pull request; the diagnostics go to the log
        shown = annotate.collect([], tested.diagnostics, tested.touched)
    for line in annotate.workflow_commands(shown):
        ctx.out.write(line + "\n")


def _ranges(tested: Tested) -> dict[tuple[str, str], tuple[int, int]]:
    return {(m["file"], m["name"]): (int(m.get("line") or 0), int(m.get("end_line") or 0)) for m in tested.members}


def _verify(github: GitHub, subject: Event, own: Event, repository: str) -> Refusal | None:
    try:
        return verify_subject(subject, own, repository, github.pull)
    except PublishError as exc:
        return Refusal(f"cannot read the pull request from GitHub to check the results against: {exc}", False)


def _test(ctx: Context, pipeline: Pipeline, workspace: Path, settings: Settings, event: Event,
          publisher: Publisher | None) -> Tested:
    git = Git(Path(Git(workspace).run("rev-parse", "--show-toplevel").strip()))  # diff paths are from the top
    selection = Selection(settings.paths, settings.include, settings.exclude)
    notes: list[str] = []
    head = event.head
    if head and not _has_commit(git, head):
        ctx.err.write(f"dspec2test: warning: the checkout lacks the head commit {head[:12]}; testing the files as "
                      "checked out (check out `ref: ${{ github.event.pull_request.head.sha }}`)\n")
        head = None
    with checkout_of(git, head) as root:
        changes = _changes(ctx, git, event, head, publisher, notes)
        if changes is None:
            choice = choose_all(root, selection, settings.shard, ctx.read)
        else:
            choice = choose_changed(root, changes, selection, settings.shard, ctx.read)
        members = choice.member_records()
        for a in choice.affected:
            ctx.out.write(f"dspec2test: {a.member.file}: {a.member.name} ({a.reason})\n")
        targets = choice.targets()
        options = pipeline_options(settings, root, TerminalProgress(ctx.err, tty=False))
        if options.strength is not None:  # a caller's contract and code did not change: its strength did not
            options = replace(options, strength_members=choice.own_changes())
        result = run_pipeline(pipeline, targets, options)
        ctx.out.write(result.report)
        if result.coverage:
            ctx.out.write(coverage_report.terminal(coverage_report.coverage_of_members(result.coverage)))
        if result.cache_line:
            ctx.out.write(f"dspec2test: {result.cache_line}\n")
        diagnostics = list(choice.diagnostics) + list(result.diagnostics)
        verdicts = choice.complete([choice.normalise(v, root) for v in result.verdicts], diagnostics)
    return Tested(verdicts, members, diagnostics, choice.changed_errors(), choice.touched() if changes else {}, notes,
                  f"Dafny verifies with {z3_description(find_toolchain().z3)}.",
                  f"generation {result.generation_s:.1f} s, execution {result.execution_s:.1f} s",
                  f"Generation: {result.cache_line}." if result.cache_line else "",
                  list(result.coverage), list(result.strength))


def _has_commit(git: Git, sha: str) -> bool:
    try:
        git.rev_parse(sha)
        return True
    except GitError:
        return False


def _changes(ctx: Context, git: Git, event: Event, head: str | None, publisher: Publisher | None,
             notes: list[str]) -> list[FileChange] | None:
    """The event's own diff; None when the event has none (every selected member is tested)."""
    if event.kind is EventKind.PULL_REQUEST and event.pr:
        return _pull_request_changes(ctx, git, event, publisher)
    if event.kind not in (EventKind.PUSH, EventKind.MERGE_GROUP):
        notes.append(f"A {event.name} event has no diff: every selected member was tested.")
        return None
    if not event.base:
        notes.append("This push creates the branch: every selected member was tested.")
        return None
    if not _has_commit(git, event.base):
        ctx.err.write(f"dspec2test: warning: the checkout lacks {event.base[:12]}, the start of this {event.name}'s "
                      "diff; testing every selected member (`fetch-depth: 0` avoids this)\n")
        notes.append(f"The checkout lacks the start of the {event.name}'s diff: every selected member was tested.")
        return None
    return git.diff(event.base, head)


def _pull_request_changes(ctx: Context, git: Git, event: Event, publisher: Publisher | None) -> list[FileChange]:
    """The pull request's diff from git; from GitHub's files API when the clone is too shallow."""
    pr = event.pr
    assert pr is not None  # asked for pull requests only
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


def _run_url(env: Mapping[str, str]) -> str:
    server, repo, run = env.get("GITHUB_SERVER_URL", ""), env.get("GITHUB_REPOSITORY", ""), env.get("GITHUB_RUN_ID", "")
    return f"{server}/{repo}/actions/runs/{run}" if server and repo and run else ""


def _summary(tested: Tested, decision: Decision, notes: list[str] | None = None,
             link: summary.Link | None = None) -> str:
    gate = [f"Gate: {decision.conclusion.value}" + (f" ({'; '.join(decision.reasons)})" if decision.reasons else "")]
    text = summary.render(tested.verdicts, diagnostics=tested.diagnostics, notes=gate + (notes or []),
                          members=[(m["file"], m["name"], m.get("reason", "")) for m in tested.members],
                          footer=[line for line in (tested.cache, tested.toolchain) if line], link=link)
    sections = [strength_report.summary_section(tested.strength),
                coverage_report.summary_section(coverage_report.coverage_of_members(tested.coverage))]
    return text + "".join("\n" + section for section in sections if section)


def _write_files(workspace: Path, inputs: ActionInputs, settings: Settings, tested: Tested) -> dict[str, str]:
    """Write the JUnit, SARIF and JSON reports; the outputs naming the ones written."""
    findings, _ = group(tested.verdicts)
    k, n = settings.shard
    written = {}
    for output, path, text in (
        ("junit_path", inputs.junit_path, lambda: junit_xml(tested.verdicts)),
        ("sarif_path", inputs.sarif_path, lambda: strength_report.sarif_with_strength(
            sarif.dumps(findings, sarif.automation_id(k, n)), tested.strength)),
        ("json_path", inputs.json_path, lambda: results_file.dumps(tested.verdicts, tested.members,
                                                                  tested.diagnostics, tested.coverage,
                                                                  tested.strength)),
    ):
        if path:
            _write(workspace / path, text())
            written[output] = path
    return written


def _write(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _outputs(tested: Tested, decision: Decision, written: dict[str, str], reported: Reported) -> str:
    totals = Totals.of(tested.verdicts)
    values = {
        "tests": totals.tests, "passed": totals.passed, "failed": totals.count(Status.FAILED),
        "not_passing": totals.not_passing, "methods": totals.methods, "affected": len(tested.members),
        "conclusion": decision.conclusion.value,
        **{name: written.get(name, "") for name in ("junit_path", "sarif_path", "json_path", "summary_path",
                                                   "summary_file")},
        "review_url": reported.review_url, "check_url": reported.check_url,
    }
    return "".join(f"{k}={v}\n" for k, v in values.items())


def _terminal(ctx: Context, tested: Tested) -> None:
    """The log's closing lines: what did not pass (failures first, one line per broken clause), the totals."""
    totals = Totals.of(tested.verdicts)
    for line in recap_lines(tested.verdicts):
        ctx.out.write(line + "\n")
    ctx.out.write(f"dspec2test: {totals.sentence()}, {totals.methods} methods ({len(tested.members)} affected)"
                  + (f" ({tested.timing})" if tested.timing else "") + "\n")


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)

"""`dspec2test replay`: what `check` would have said on each of the last commits of this branch.

Each commit C that changed Dafny files (first parents only, so a merged pull request is one commit) is
checked out in a scratch worktree and checked as `dspec2test check --base C^ --head C` in a checkout of C
would be: the same function (check.check_change), C's own configuration file. A commit that cannot be
checked (a missing object, no parent in a shallow clone, an error of ours) is a row saying why; the
next one is still replayed.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path
from typing import TextIO

from dspec2test.action.choose import MemberReader, Selection
from dspec2test.action.config import ConfigError, load_config
from dspec2test.action.diff import Git, GitError
from dspec2test.action.history import Commit, dafny_commits, missing_parent, scratch_worktree
from dspec2test.action.pipeline import Pipeline
from dspec2test.action.real import real_pipeline
from dspec2test.commands.check import (
    Checked,
    add_generation_arguments,
    as_glob,
    check_change,
    config_path,
    settings_of,
)
from dspec2test.commands.flags import flag_values
from dspec2test.options import GENERATION, RUNNING, OptionError
from dspec2test.records import Status
from dspec2test.report import replay as report
from dspec2test.report.replay import CommitOutcome, MemberOutcome

DEFAULT_LAST = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files, folders or globs to test (default: every .dfy); only commits that "
                             "changed one of them are replayed")
    parser.add_argument("--last", type=int, default=DEFAULT_LAST, metavar="N",
                        help=f"the last N commits that changed .dfy files (default {DEFAULT_LAST})")
    parser.add_argument("--json", metavar="OUT", help="write every commit's affected members and verdicts as JSON")
    add_generation_arguments(parser)


def main(args: argparse.Namespace, out: TextIO, err: TextIO, pipeline: Pipeline = real_pipeline,
         read: MemberReader | None = None) -> int:
    if args.last < 1:
        err.write("dspec2test: --last must be at least 1\n")
        return 2
    try:
        settings_of(args, {}, ())  # a bad flag is a usage error once, not an error on every commit
    except OptionError as exc:
        err.write(f"dspec2test: {exc}\n")
        return 2
    try:
        top = Path(Git(Path.cwd()).run("rev-parse", "--show-toplevel").strip())
        git = Git(top)
        paths = tuple(as_glob(p, top) for p in args.paths)
        commits = dafny_commits(git, args.last, Selection(paths) if paths else None)
    except GitError as exc:
        err.write(f"dspec2test: {exc}\n")
        return 2
    if not commits:
        out.write("dspec2test: no commit of this branch changed a .dfy file"
                  + (" under the paths given" if paths else "") + "\n")
        return 0
    out.write(report.header())
    outcomes: list[CommitOutcome] = []
    interrupted = False
    try:
        for commit in commits:
            outcomes.append(replay_commit(git, commit, args, paths, pipeline, read))
            out.write(report.row(outcomes[-1]))
            out.flush()
    except KeyboardInterrupt:  # the scratch worktree is gone already; say what was found so far
        interrupted = True
    out.write(report.totals_lines(report.ReplayTotals.of(outcomes), interrupted))
    if args.json:
        options = {"last": args.last, "paths": list(paths), **flag_values(args, GENERATION + RUNNING),
                   "head": commits[0].sha}
        Path(args.json).write_text(report.dumps(outcomes, options, interrupted), encoding="utf-8")
    return 130 if interrupted else 0


def replay_commit(git: Git, commit: Commit, args: argparse.Namespace, paths: tuple[str, ...],
                  pipeline: Pipeline, read: MemberReader | None) -> CommitOutcome:
    """check on one commit, in a scratch worktree of it; any failure is the outcome's error."""
    start = time.monotonic()
    error = missing_parent(git, commit)
    checked = None
    if error is None:
        try:
            with scratch_worktree(git, commit.sha, prefix="dspec2test-replay-") as tree:
                settings = settings_of(args, load_config(tree / config_path(args)), paths)
                checked = check_change(Git(tree), commit.first_parent or "", commit.sha, settings, pipeline, read)
        except (GitError, ConfigError, OptionError) as exc:
            error = str(exc)
        except Exception as exc:  # noqa: BLE001 - our own bug on one commit must not stop the others
            error = f"internal error: {type(exc).__name__}: {exc}"[:500]
    wall = time.monotonic() - start
    if checked is None:
        return CommitOutcome(commit.sha, commit.subject, wall_seconds=wall, error=error)
    return outcome_of(commit, checked, wall)


def outcome_of(commit: Commit, checked: Checked, wall: float) -> CommitOutcome:
    by_member: dict[tuple[str, str], list] = {}
    for v in checked.verdicts:
        by_member.setdefault((v.file, v.method), []).append(v)
    members = []
    for a in checked.choice.affected:
        m = a.member
        verdicts = by_member.get((m.file, m.name), []) + (
            by_member.get((m.text_file, m.name), []) if m.text_file != m.file else [])
        reasons = dict.fromkeys(v.message for v in verdicts if v.status is Status.NOT_TESTED)
        members.append(MemberOutcome(
            name=m.name, file=m.text_file, line=m.line, kind=m.kind, ghost=m.ghost, has_contract=m.has_contract,
            reason=a.reason, statuses=dict(Counter(v.status.value for v in verdicts)), not_tested=tuple(reasons)))
    notes = tuple(d.render() for d in checked.choice.changed_errors())
    return CommitOutcome(commit.sha, commit.subject, seconds=checked.timings.total_s, wall_seconds=wall,
                         members=tuple(members), statuses=dict(Counter(v.status.value for v in checked.verdicts)),
                         notes=notes, proved=tuple(m.name for m in checked.choice.proved))

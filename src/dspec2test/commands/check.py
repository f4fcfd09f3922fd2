"""`dspec2test check`: test only what a diff affects, locally (the action's selection without GitHub).

`check_change` is the work for one change (choose the affected members, test them, complete the
verdicts) with a typed result; `main` prints it and applies the gate. `replay` calls the same function
on each commit of a branch's history, so both commands give the same answer for the same change.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Mapping, TextIO

from dspec2test.action import results as results_file
from dspec2test.action.choose import Choice, MemberReader, Selection, checkout_of, choose_changed
from dspec2test.action.config import RUN_KEYS, ConfigError, Settings, load_config
from dspec2test.action.config import settings_of as config_settings
from dspec2test.action.diff import Git, GitError
from dspec2test.action.pipeline import Pipeline, PipelineResult, pipeline_options, run_pipeline
from dspec2test.action.real import real_pipeline
from dspec2test.commands.flags import add_option_flags, flag_values, given_flags
from dspec2test.errors import Diagnostic
from dspec2test.options import GATE, GENERATION, REPORT_FILES, RUNNING, SELECTION, STRENGTH, Door, OptionError, option
from dspec2test.records import Verdict
from dspec2test.report import sarif, summary
from dspec2test.pipeline import TestingProgress
from dspec2test.report.findings import Totals, group
from dspec2test.report.gate import Decision, decide
from dspec2test.report.coverage import coverage_of_members, summary_section as coverage_summary
from dspec2test.report.coverage import terminal as coverage_terminal
from dspec2test.report.junit import junit_xml
from dspec2test.report.strength import sarif_with_strength, summary_section as strength_summary
from dspec2test.report.strength import terminal as strength_terminal
from dspec2test.report.terminal import TerminalProgress, recap_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, folders or globs to consider (default: every .dfy)")
    parser.add_argument("--base", default="HEAD", help="compare from the merge base with this ref (default HEAD)")
    parser.add_argument("--head", default=None, help="compare to this ref (default: the working tree)")
    parser.add_argument("--list", action="store_true", help="only list the affected members, run nothing")
    add_generation_arguments(parser)
    add_option_flags(parser, GATE + REPORT_FILES)


def add_generation_arguments(parser: argparse.ArgumentParser) -> None:
    """The configuration file, the selection and the generation and run flags (shared with `replay`)."""
    add_option_flags(parser, ("config",) + SELECTION + GENERATION + RUNNING + STRENGTH)


def config_path(args: argparse.Namespace) -> str:
    return str(option("config").parse(args.config, Door.CLI)) if args.config else str(option("config").default)


def settings_of(args: argparse.Namespace, config: Mapping[str, object], paths: tuple[str, ...]) -> Settings:
    """The flags given on the command line, else the configuration file's values, else the defaults
    (the same options, names and validation as the action's inputs: options.py). OptionError on a bad flag.

    paths: patterns relative to the repository's top (see `as_glob`)."""
    names = tuple(name for name in RUN_KEYS if hasattr(args, name))
    return config_settings(flag_values(args, names, config), paths)


@dataclass(frozen=True)
class Timings:
    select_s: float = 0.0  # diff, parse and choose the affected members
    test_s: float = 0.0  # generate, build and run their tests

    @property
    def total_s(self) -> float:
        return self.select_s + self.test_s


@dataclass(frozen=True)
class Checked:
    """What `check` found for one change."""

    choice: Choice  # the affected members (with why) and the selection's diagnostics (parse errors)
    verdicts: tuple[Verdict, ...]  # completed: every affected member has at least one (not-tested, with why)
    result: PipelineResult  # the pipeline's own verdicts, diagnostics and terminal report
    timings: Timings
    ran: bool = True  # False when only the members were listed

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """The pipeline's diagnostics (the selection's are in choice.diagnostics)."""
        return self.result.diagnostics


def check_change(git: Git, base: str, head: str | None, settings: Settings, pipeline: Pipeline = real_pipeline,
                 read: MemberReader | None = None, chosen: Callable[[Choice], None] | None = None,
                 run: bool = True, progress: TestingProgress | None = None) -> Checked:
    """Test the members the change from base to head affects (head None: the working tree), as the
    action would on a pull request. `chosen` sees the choice before anything runs (check prints it
    then, since testing takes a while). Raises GitError."""
    start = time.monotonic()
    changes = git.diff(base, head)
    with checkout_of(git, head) as root:
        choice = choose_changed(root, changes, Selection(settings.paths, settings.include, settings.exclude),
                                read=read)
        selected = time.monotonic()
        if chosen is not None:
            chosen(choice)
        if not run:
            return Checked(choice, (), PipelineResult(), Timings(selected - start), ran=False)
        options = pipeline_options(settings, root, progress)
        if options.strength is not None:  # as the action: the members whose own text changed
            options = replace(options, strength_members=choice.own_changes())
        result = run_pipeline(pipeline, choice.targets(), options)
        verdicts = choice.complete([_inside(choice.normalise(v, root), root) for v in result.verdicts],
                                   list(choice.diagnostics) + list(result.diagnostics))
    return Checked(choice, tuple(verdicts), result, Timings(selected - start, time.monotonic() - selected))


def _inside(v: Verdict, root: Path) -> Verdict:
    """Paths in a message relative to the checkout, as the verdict's file is: a temporary worktree's
    folder means nothing once it is gone, and would make two runs' reasons differ."""
    message = v.message
    for folder in dict.fromkeys((str(root), str(root.resolve()))):
        message = message.replace(folder.rstrip("/") + "/", "")
    return replace(v, message=message) if message != v.message else v


def main(args: argparse.Namespace, out: TextIO, err: TextIO, pipeline: Pipeline = real_pipeline,
         read: MemberReader | None = None) -> int:
    git = Git(Path.cwd())
    try:
        top = Path(git.run("rev-parse", "--show-toplevel").strip())
        git = Git(top)
        config = load_config(top / config_path(args))
        settings = settings_of(args, config, tuple(as_glob(p, top) for p in args.paths))
        reports = given_flags(args, REPORT_FILES)  # the CLI writes a report only when asked
    except (GitError, ConfigError, OptionError) as exc:
        err.write(f"dspec2test: {exc}\n")
        return 2

    def show(choice: Choice) -> None:
        for d in choice.diagnostics:
            err.write(d.render() + "\n")
        for a in choice.affected:
            out.write(f"{a.member.file}:{a.member.line}: {a.member.name} ({a.reason})\n")
        if choice.proved:
            out.write(f"dspec2test: {choice.proved_sentence()}\n")
        if not choice.affected:
            out.write("dspec2test: no affected member with a contract\n")

    try:
        checked = check_change(git, args.base, args.head, settings, pipeline, read, chosen=show, run=not args.list,
                               progress=TerminalProgress(err))
    except GitError as exc:
        err.write(f"dspec2test: {exc}\n")
        return 2
    if not checked.ran:
        return 0
    choice, result, verdicts = checked.choice, checked.result, list(checked.verdicts)
    for d in result.diagnostics:
        err.write(d.render() + "\n")
    out.write(result.report)
    if result.coverage:
        out.write(coverage_terminal(coverage_of_members(result.coverage)))
    if result.strength:
        out.write(strength_terminal(result.strength))
    out.write("".join(line + "\n" for line in recap_lines(verdicts)))  # after every program's own report
    if verdicts:
        t = checked.timings
        out.write(f"dspec2test: {Totals.of(verdicts).sentence()} (selection {t.select_s:.1f} s, generation "
                  f"{result.generation_s:.1f} s, execution {result.execution_s:.1f} s, total {t.total_s:.1f} s)\n")
    if result.cache_line:
        out.write(f"dspec2test: {result.cache_line}\n")
    members = choice.member_records()
    decision = decide(settings.gate, verdicts, choice.changed_errors(), weak=sum(r.weak for r in result.strength))
    write_reports(reports, verdicts, members, list(result.diagnostics), decision, result)
    if any(d.severity.value == "error" for d in result.diagnostics) and not Totals.of(verdicts).tested:
        return 2  # like `run`: nothing could be built
    for reason in decision.reasons:
        err.write(f"dspec2test: gate: {reason}\n")
    return decision.exit_code


def write_reports(paths: Mapping[str, object], verdicts: list[Verdict], members: list[dict],
                  diagnostics: list[Diagnostic], decision: Decision, result: PipelineResult = PipelineResult()) -> None:
    """The files the action writes, where the flags ask for them: results JSON, JUnit, SARIF, summary
    (with clause coverage and, when measured, contract strength)."""
    findings, _ = group(verdicts)
    gate = [f"Gate: {decision.conclusion.value}" + (f" ({'; '.join(decision.reasons)})" if decision.reasons else "")]
    sections = [strength_summary(result.strength), coverage_summary(coverage_of_members(result.coverage))]
    writers = {
        "json_path": lambda: results_file.dumps(verdicts, members, diagnostics, result.coverage, result.strength),
        "junit_path": lambda: junit_xml(verdicts),
        "sarif_path": lambda: sarif_with_strength(sarif.dumps(findings), result.strength),
        "summary_path": lambda: summary.render(verdicts, diagnostics=diagnostics, notes=gate,
                                               members=[(m["file"], m["name"], m.get("reason", "")) for m in members])
        + "".join("\n" + section for section in sections if section),
    }
    for name, text in writers.items():
        if paths.get(name):
            target = Path(str(paths[name]))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text(), encoding="utf-8")


def as_glob(path: str, top: Path) -> str:
    """A file or folder given relative to the current folder becomes a pattern relative to the top."""
    p = Path(path)
    if any(ch in path for ch in "*?"):
        return path
    try:
        return (Path.cwd() / p).resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return path

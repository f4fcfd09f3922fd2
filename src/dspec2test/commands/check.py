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
from dspec2test.commands import BVA_EXTREME
from dspec2test.action.choose import Choice, MemberReader, Selection, checkout_of, choose_changed
from dspec2test.action.config import ConfigError, Settings, load_config
from dspec2test.action.diff import Git, GitError
from dspec2test.errors import Diagnostic
from dspec2test.records import Verdict
from dspec2test.toolchain import DEFAULT_TARGET, TARGETS
from dspec2test.report.findings import MEMBER, Totals, group
from dspec2test.report.gate import add_gate_arguments, decide, gate_from
from dspec2test.action.pipeline import Pipeline, PipelineResult, pipeline_options, run_pipeline
from dspec2test.action.real import real_pipeline
from dspec2test.report.junit import junit_xml


# configuration keys that apply locally (the reporter is the action's business)
FROM_CONFIG = ("include", "exclude", "bva", "fdnf", "simplify", "repeat", "timeout", "solver_timeout",
               "max_partitions", "target", "fail_on", "fail_on_empty", "cache_dir")
# flags that, given on the command line, win over the configuration file
FLAGS = ("bva", "fdnf", "simplify", "repeat", "timeout", "target", "cache_dir")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, folders or globs to consider (default: every .dfy)")
    parser.add_argument("--base", default="HEAD", help="compare from the merge base with this ref (default HEAD)")
    parser.add_argument("--head", default=None, help="compare to this ref (default: the working tree)")
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")
    parser.add_argument("--junit", metavar="OUT", help="write JUnit XML")
    parser.add_argument("--list", action="store_true", help="only list the affected members, run nothing")
    add_generation_arguments(parser)
    add_gate_arguments(parser)


def add_generation_arguments(parser: argparse.ArgumentParser) -> None:
    """The configuration file and the generation and run flags (shared with `replay`)."""
    parser.add_argument("--config", default=".dspec2test.yml", help="configuration file (default .dspec2test.yml)")
    parser.add_argument("--bva", nargs="?", type=int, const=BVA_EXTREME, default=None, metavar="N")
    parser.add_argument("--fdnf", action="store_true")
    parser.add_argument("--simplify", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per dafny test run")
    parser.add_argument("--target", default=DEFAULT_TARGET, choices=TARGETS,
                        help=f"Dafny compilation target (default {DEFAULT_TARGET})")
    parser.add_argument("--cache-dir", default="", metavar="DIR",
                        help="reuse generated tests from DIR and keep new ones there (default: none)")


def settings_of(args: argparse.Namespace, config: Mapping[str, object], paths: tuple[str, ...]) -> Settings:
    """The flags given on the command line, else the configuration file's values, else the defaults.

    paths: patterns relative to the repository's top (see `as_glob`)."""
    settings = Settings(
        paths=paths or ("**/*.dfy",),
        bva=args.bva, fdnf=args.fdnf, simplify=args.simplify, repeat=args.repeat,
        timeout=args.timeout, target=args.target, cache_dir=args.cache_dir,
    )
    given = {k for k in FLAGS if getattr(args, k) != Settings.__dataclass_fields__[k].default}
    return replace(settings, **{k: v for k, v in config.items() if k not in given and k in FROM_CONFIG})


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
                 run: bool = True) -> Checked:
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
        result = run_pipeline(pipeline, choice.targets(), pipeline_options(settings, root))
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
        config = load_config(top / args.config)
    except (GitError, ConfigError) as exc:
        err.write(f"dspec2test: {exc}\n")
        return 2
    settings = settings_of(args, config, tuple(as_glob(p, top) for p in args.paths))

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
        checked = check_change(git, args.base, args.head, settings, pipeline, read, chosen=show, run=not args.list)
    except GitError as exc:
        err.write(f"dspec2test: {exc}\n")
        return 2
    if not checked.ran:
        return 0
    choice, result, verdicts = checked.choice, checked.result, list(checked.verdicts)
    for d in result.diagnostics:
        err.write(d.render() + "\n")
    findings, _ = group(verdicts)
    out.write(result.report)
    for f in findings:
        if result.report and f.partition != MEMBER:
            continue  # run's own report already says all this
        v = f.first
        detail = ", ".join(x for x in (
            "inputs " + ", ".join(f"{k} = {val}" for k, val in v.inputs.items()) if v.inputs else "",
            f"expected {v.expected}" if v.expected else "", f"actual {v.actual}" if v.actual else "",
            f"clause {v.clause}" if v.clause else "") if x)
        part = "" if f.partition == MEMBER else f" partition {f.partition}" + (f" ({v.label})" if v.label else "")
        out.write(f"{f.file}:{f.line}: {f.status.value}: {f.method}{part}: {detail or v.message}\n")
    if verdicts:
        out.write(f"dspec2test: {Totals.of(verdicts).sentence()}\n")
    if result.cache_line:
        out.write(f"dspec2test: {result.cache_line}\n")
    members = choice.member_records()
    if args.json:
        Path(args.json).write_text(results_file.dumps(verdicts, members, list(result.diagnostics)), encoding="utf-8")
    if args.junit:
        Path(args.junit).write_text(junit_xml(verdicts), encoding="utf-8")
    if any(d.severity.value == "error" for d in result.diagnostics) and not Totals.of(verdicts).tested:
        return 2  # like `run`: nothing could be built
    decision = decide(gate_from(args, settings.gate), verdicts, choice.changed_errors())
    for reason in decision.reasons:
        err.write(f"dspec2test: gate: {reason}\n")
    return decision.exit_code


def as_glob(path: str, top: Path) -> str:
    """A file or folder given relative to the current folder becomes a pattern relative to the top."""
    p = Path(path)
    if any(ch in path for ch in "*?"):
        return path
    try:
        return (Path.cwd() / p).resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return path

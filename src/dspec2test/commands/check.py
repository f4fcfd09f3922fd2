"""`dspec2test check`: test only what a diff affects, locally (the action's selection without GitHub)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from dspec2test.action import results as results_file
from dspec2test.commands import BVA_EXTREME
from dspec2test.action.choose import MemberReader, Selection, checkout_of, choose_changed
from dspec2test.action.config import ConfigError, Settings, load_config
from dspec2test.action.diff import Git, GitError
from dspec2test.toolchain import DEFAULT_TARGET, TARGETS
from dspec2test.report.findings import MEMBER, Totals, group
from dspec2test.report.gate import add_gate_arguments, decide, gate_from
from dspec2test.action.pipeline import Pipeline, pipeline_options, run_pipeline
from dspec2test.action.real import real_pipeline
from dspec2test.report.junit import junit_xml


# configuration keys that apply locally (the reporter is the action's business)
FROM_CONFIG = ("include", "exclude", "bva", "fdnf", "simplify", "repeat", "timeout", "solver_timeout",
               "max_partitions", "target", "fail_on", "fail_on_empty")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files, folders or globs to consider (default: every .dfy)")
    parser.add_argument("--base", default="HEAD", help="compare from the merge base with this ref (default HEAD)")
    parser.add_argument("--head", default=None, help="compare to this ref (default: the working tree)")
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")
    parser.add_argument("--junit", metavar="OUT", help="write JUnit XML")
    parser.add_argument("--list", action="store_true", help="only list the affected members, run nothing")
    parser.add_argument("--config", default=".dspec2test.yml", help="configuration file (default .dspec2test.yml)")
    parser.add_argument("--bva", nargs="?", type=int, const=BVA_EXTREME, default=None, metavar="N")
    parser.add_argument("--fdnf", action="store_true")
    parser.add_argument("--simplify", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per dafny test run")
    parser.add_argument("--target", default=DEFAULT_TARGET, choices=TARGETS,
                        help=f"Dafny compilation target (default {DEFAULT_TARGET})")
    add_gate_arguments(parser)


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
    settings = Settings(
        paths=tuple(_as_glob(p, top) for p in args.paths) or ("**/*.dfy",),
        bva=args.bva, fdnf=args.fdnf, simplify=args.simplify, repeat=args.repeat,
        timeout=args.timeout, target=args.target,
    )
    # flags given on the command line win; otherwise the configuration file's values apply
    given = {k for k in ("bva", "fdnf", "simplify", "repeat", "timeout", "target")
             if getattr(args, k) != Settings.__dataclass_fields__[k].default}
    settings = replace(settings, **{k: v for k, v in config.items() if k not in given and k in FROM_CONFIG})
    try:
        changes = git.diff(args.base, args.head)
        with checkout_of(git, args.head) as root:
            choice = choose_changed(root, changes, Selection(settings.paths, settings.include, settings.exclude),
                                    read=read)
            for d in choice.diagnostics:
                err.write(d.render() + "\n")
            for a in choice.affected:
                out.write(f"{a.member.file}:{a.member.line}: {a.member.name} ({a.reason})\n")
            if not choice.affected:
                out.write("dspec2test: no affected member with a contract\n")
            if args.list:
                return 0
            result = run_pipeline(pipeline, choice.targets(), pipeline_options(settings, root))
            verdicts = choice.complete([choice.normalise(v, root) for v in result.verdicts],
                                       list(choice.diagnostics) + list(result.diagnostics))
    except GitError as exc:
        err.write(f"dspec2test: {exc}\n")
        return 2
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


def _as_glob(path: str, top: Path) -> str:
    """A file or folder given relative to the current folder becomes a pattern relative to the top."""
    p = Path(path)
    if any(ch in path for ch in "*?"):
        return path
    try:
        return (Path.cwd() / p).resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return path

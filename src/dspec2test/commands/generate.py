"""`dspec2test generate FILE...`: Dafny {:test} methods from the contracts, plus an optional JSON manifest.

Exit 0 when every file was read (members the engine cannot handle are reported on stderr as
`file:line: unsupported: <construct>` and in the manifest); 2 for bad usage or a file that does not parse
(the other files are still generated). Several files share one pool of `--jobs` children and need
`-o DIR`: the tests of `x.dfy` go to `DIR/x.tests.dfy`, and `--json` gets one manifest of all members.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TextIO

from dspec2test.commands import BVA_EXTREME
from dspec2test.errors import Diagnostic, Severity
from dspec2test.gencache import hits_line
from dspec2test.generate import GenerateOptions, Generated, generate_all


def add_generation_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags that shape generation, shared by `generate` and `run`."""
    d = GenerateOptions()
    parser.add_argument("--method", action="append", default=[], metavar="NAME",
                        help="only this member (qualified or short name); repeatable")
    parser.add_argument("--fdnf", action="store_true",
                        help="Full DNF: every non-empty subset of disjuncts; drops short-circuit safety, so a "
                             "partition may evaluate an expression outside its guard")
    parser.add_argument("--bva", nargs="?", type=int, const=BVA_EXTREME, default=d.bva, metavar="N",
                        help=f"boundary scenarios, then diverse ones; N is the extreme used where a value is unbounded "
                             f"(default {BVA_EXTREME})")
    parser.add_argument("--simplify", action="store_true",
                        help="expect concrete outputs where Z3 proves them unique")
    parser.add_argument("--repeat", type=int, default=d.repeat, metavar="N",
                        help="N distinct solutions per partition (ignored with --bva)")
    parser.add_argument("--max-partitions", type=int, default=d.max_partitions, metavar="N",
                        help="cap on partitions per member (default %(default)s)")
    parser.add_argument("--length-limit", type=int, default=d.length_limit, metavar="N",
                        help="largest collection size in generated inputs (default %(default)s)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N",
                        help="members generated in parallel, each in its own process (default: cores)")
    parser.add_argument("--member-timeout", type=float, default=d.member_timeout_s, metavar="S",
                        help="wall limit of one member's generation in seconds; a member stopped by it keeps "
                             "the tests solved before (default %(default)g)")
    parser.add_argument("--cache-dir", default=d.cache_dir, metavar="DIR",
                        help="reuse generated tests from DIR and keep new ones there, one file per member keyed by its "
                             "contract, the program it reaches, the options and the tool (default: none)")


def generation_options(args: argparse.Namespace, unverified: tuple[str, ...] | None = None,
                       timeout_s: float | None = None) -> GenerateOptions:
    d = GenerateOptions()
    return GenerateOptions(methods=tuple(dict.fromkeys(args.method)), fdnf=args.fdnf, bva=args.bva,
                           simplify=args.simplify, repeat=args.repeat, max_partitions=args.max_partitions,
                           length_limit=args.length_limit, timeout_s=d.timeout_s if timeout_s is None else timeout_s,
                           unverified=unverified, jobs=max(1, args.jobs), member_timeout_s=args.member_timeout,
                           cache_dir=args.cache_dir or None)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = GenerateOptions()
    parser.add_argument("files", nargs="+", metavar="FILE", help="the Dafny program(s)")
    add_generation_arguments(parser)
    parser.add_argument("--timeout", type=float, default=d.timeout_s, metavar="S",
                        help="Z3 time limit per query in seconds (default %(default)g)")
    parser.add_argument("-o", "--output", metavar="TESTS.dfy",
                        help="write the tests here (default: stdout); with several files, a directory that gets "
                             "NAME.tests.dfy for each NAME.dfy")
    parser.add_argument("--json", metavar="MANIFEST.json", help="write the manifest (partitions, scenarios, tests)")


def render(d: Diagnostic) -> str:
    if d.severity is Severity.UNSUPPORTED:
        return f"{d.file}:{d.line}: unsupported: {d.construct or d.message}"
    return f"{d.file}:{d.line}:{d.col}: {d.severity.value}: {d.message}"


def bad_generation_argument(args: argparse.Namespace) -> str | None:
    """What is wrong with the generation flags (shared by `generate` and `run`), or None."""
    for flag, value in (("--repeat", args.repeat), ("--max-partitions", args.max_partitions),
                        ("--length-limit", args.length_limit)):
        if value < 1:
            return f"{flag} must be at least 1"
    if args.member_timeout <= 0:
        return "--member-timeout must be positive"
    if args.bva is not None and args.bva < 1:
        return "--bva N must be at least 1"
    return None


def tests_paths(files: list[str], output: str | None) -> list[Path | None] | str:
    """Where each program's tests go (None: stdout), or why the files and -o do not fit together."""
    if len(files) == 1:
        return [Path(output) if output else None]
    if not output:
        return "several files need -o DIR (the tests of NAME.dfy go to DIR/NAME.tests.dfy)"
    if Path(output).exists() and not Path(output).is_dir():
        return f"-o {output}: with several files, -o names a directory"
    stems = [Path(f).stem for f in files]
    twice = sorted({s for s in stems if stems.count(s) > 1})
    if twice:
        return f"two programs would write {twice[0]}.tests.dfy: generate them with separate -o folders"
    return [Path(output) / f"{stem}.tests.dfy" for stem in stems]


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    destinations = tests_paths(args.files, args.output)
    bad = bad_generation_argument(args)
    if bad or isinstance(destinations, str):
        err.write(f"dspec2test generate: error: {bad or destinations}\n")
        return 2
    results = generate_all(args.files, generation_options(args, timeout_s=args.timeout))
    unreadable = False
    for result, destination in zip(results, destinations):
        for d in result.diagnostics:
            err.write(render(d) + "\n")
        if any(d.severity is Severity.ERROR for d in result.diagnostics) and not result.manifest["methods"]:
            unreadable = True
            continue
        write_tests(result, destination, out)
    entries = [e for r in results for e in r.manifest["methods"]]
    looked_up = sum(r.looked_up for r in results)
    if looked_up:
        err.write(f"dspec2test: {hits_line([m for r in results for m in r.cached], looked_up)}\n")
    nothing_read = unreadable and not entries  # the parse errors say it all: no member is "missing"
    missing = [] if nothing_read else [m for m in args.method if not any(
        e["name"] == m or e["name"].split(".")[-1] == m for e in entries)]
    for m in missing:
        err.write(f"{', '.join(args.files)}: error: no testable member named {m}\n")
    if args.json and not nothing_read:
        Path(args.json).write_text(json.dumps({"methods": entries}, indent=2, sort_keys=False) + "\n",
                                   encoding="utf-8")
    return 2 if missing or unreadable else 0


def write_tests(result: Generated, destination: Path | None, out: TextIO) -> None:
    if destination is None:
        out.write(result.tests_text)
        return
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_text(result.tests_text, encoding="utf-8")

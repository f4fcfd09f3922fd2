"""`dspec2test bench CORPUS`: mutation benchmark of the strategies, the paper's protocol, in one run."""

from __future__ import annotations

import argparse
import json
import os
import threading
from pathlib import Path
from typing import TextIO

from dspec2test.bench.classify import read_recorded
from dspec2test.bench.corpus import CorpusError, load_corpus, read_labels
from dspec2test.bench.engine import BenchConfig, run_bench
from dspec2test.bench.figures import to_json
from dspec2test.bench.report import markdown, plot, terminal_table
from dspec2test.bench.strategies import Strategy
from dspec2test.toolchain import DAFNY_VERSION, DEFAULT_TARGET, TARGETS, find_toolchain, tool_version


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus", metavar="CORPUS", help="folder with programs/*.dfy and optional mutants/<program>/*.dfy")
    parser.add_argument("--strategy", action="append", choices=[s.value for s in Strategy], metavar="NAME",
                        help="spec | spec-bva | spec-solver | fdnf | dtest-block (repeatable; default: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel Dafny processes (default: cores)")
    parser.add_argument("--json", metavar="OUT", help="write figures and the kill matrix as JSON")
    parser.add_argument("--markdown", metavar="OUT", help="write a markdown report")
    parser.add_argument("--plot", metavar="OUT.png", help="write a bar chart of kill rates")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S", help="limit per test in seconds (default 10)")
    parser.add_argument("--cache", metavar="DIR", default=".dspec2test-cache",
                        help="cache of dafny verify classifications (default .dspec2test-cache)")
    parser.add_argument("--programs", metavar="GLOB", help="only programs whose name matches GLOB")
    parser.add_argument("--labels", metavar="FILE",
                        help="extra mutant labels, lines `equivalent|incompetent PROGRAM/MUTANT  # reason`")
    parser.add_argument("--target", default=DEFAULT_TARGET, choices=TARGETS,
                        help="Dafny target every strategy's tests run on, Dafny's own generator's too (default py)")
    parser.add_argument("--no-batch", action="store_true", help="one Dafny build per mutant (to measure batching)")
    parser.add_argument("--reclassify", action="store_true",
                        help="verify every program and mutant afresh, ignoring the corpus's verify-status.tsv")
    parser.add_argument("--no-alive", action="store_true", help="do not run our tests on mutants that verify")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    root = Path(args.corpus)
    try:
        extra = read_labels(Path(args.labels)) if args.labels else None
        corpus = load_corpus(root, args.programs, extra)
        read_recorded(root)  # a malformed verify-status.tsv is bad input, said before any work
    except (CorpusError, ValueError) as exc:
        err.write(f"dspec2test bench: {exc}\n")
        return 2
    if not corpus.programs:
        err.write(f"dspec2test bench: {root}: no program matches\n")
        return 2
    tools = find_toolchain()
    if not tools.dafny:
        err.write("dspec2test bench: dafny not found (run `dspec2test doctor`)\n")
        return 2
    # The version number (not the build hash) keys the classification cache.
    version = (tool_version([tools.dafny, "--version"], tools.dafny_env()) or DAFNY_VERSION).split("+")[0]
    strategies = tuple(Strategy(s) for s in (args.strategy or [s.value for s in Strategy]))
    strategies = tuple(dict.fromkeys(strategies))
    config = BenchConfig(
        strategies=strategies, jobs=max(1, args.jobs), timeout_s=args.timeout, target=args.target,
        batch=not args.no_batch, cache_dir=Path(args.cache) if args.cache else None,
        dafny_version=version, run_alive=not args.no_alive, recorded=not args.reclassify,
    )
    lock = threading.Lock()

    def progress(line: str) -> None:
        with lock:
            err.write(line + "\n")
            err.flush()

    progress(f"bench: {len(corpus.programs)} programs, {len(corpus.mutants)} mutants, strategies "
             f"{', '.join(s.value for s in strategies)}, jobs {config.jobs}")
    bench = run_bench(corpus, config, tools, progress)
    data = to_json(bench)
    out.write(terminal_table(data))
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(markdown(data))
    if args.plot:
        plot(data, Path(args.plot))
    return 0


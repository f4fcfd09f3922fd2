"""`dspec2test merge`: combine the JUnit files, results JSON or SARIF logs of a sharded job matrix into one."""

from __future__ import annotations

import argparse
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TextIO

from dspec2test.action import results as results_file
from dspec2test.report import summary
from dspec2test.report.findings import Totals
from dspec2test.report.junit import merge_junit
from dspec2test.report.sarif import merge_sarif


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="JUnit XML files, results JSON files or SARIF files (.sarif) of the shards")
    parser.add_argument("-o", "--output", required=True, help="the merged file, of the inputs' kind")
    parser.add_argument("--summary", action="store_true",
                        help="also append a job summary (to $GITHUB_STEP_SUMMARY, else stdout); needs results JSON")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    paths = [Path(p) for p in args.files]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        err.write(f"dspec2test: {missing[0]}: no such file\n")
        return 2
    try:
        if all(p.suffix == ".json" for p in paths):
            verdicts, members = [], []
            for p in paths:
                v, m = results_file.load(p)
                verdicts += v
                members += m
            Path(args.output).write_text(results_file.dumps(verdicts, members, []), encoding="utf-8")
            if args.summary:
                text = summary.render(verdicts, title="dspec2test (all shards)")
                target = os.environ.get("GITHUB_STEP_SUMMARY")
                if target:
                    with open(target, "a", encoding="utf-8") as handle:
                        handle.write(text)
                else:
                    out.write(text)
            out.write(f"dspec2test: merged {len(paths)} files: {Totals.of(verdicts).sentence()}\n")
            return 0
        if all(p.suffix == ".sarif" for p in paths):
            text, results = merge_sarif(paths)
            Path(args.output).write_text(text, encoding="utf-8")
            out.write(f"dspec2test: merged {len(paths)} SARIF files: {results} results\n")
            return 0
        text, totals = merge_junit(paths)
    except (ValueError, KeyError, json.JSONDecodeError, ET.ParseError) as exc:
        err.write(f"dspec2test: cannot merge: {exc}\n")
        return 2
    Path(args.output).write_text(text, encoding="utf-8")
    out.write(f"dspec2test: merged {len(paths)} files: {totals['tests']} tests, "
              f"{totals['failures']} failures, {totals['errors']} errors\n")
    return 0

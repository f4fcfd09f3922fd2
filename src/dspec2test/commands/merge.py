"""`dspec2test merge`: combine the JUnit files (and results) of a sharded job matrix into one."""

from __future__ import annotations

import argparse
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TextIO

from dspec2test.action import results as results_file
from dspec2test.report.junit import merge_junit
from dspec2test.report import summary


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="JUnit XML files, or results JSON files of the shards")
    parser.add_argument("-o", "--output", required=True, help="the merged file (JUnit XML, or JSON for .json inputs)")
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
            failed = sum(v.status.value != "passed" for v in verdicts)
            out.write(f"dspec2test: merged {len(paths)} files: {len(verdicts)} tests, {failed} not passing\n")
            return 0
        text, totals = merge_junit(paths)
    except (ValueError, KeyError, json.JSONDecodeError, ET.ParseError) as exc:
        err.write(f"dspec2test: cannot merge: {exc}\n")
        return 2
    Path(args.output).write_text(text, encoding="utf-8")
    out.write(f"dspec2test: merged {len(paths)} files: {totals['tests']} tests, "
              f"{totals['failures']} failures, {totals['errors']} errors\n")
    return 0

"""`dspec2test run FILE`: generate tests (or take --tests), run them with real Dafny, report verdicts.

Exit 1 when the gate trips (`--fail-on failures`, the default: a test failed, crashed or timed out;
`errors`: anything not passed; `--fail-on-empty`: no test at all), 0 otherwise, 2 for bad input
(missing or unparsable program, a declaration the parser skipped (the rest is tested and reported, and
it is one not-tested verdict), a program that does not build).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TextIO

from dspec2test.commands.flags import add_option_flags, flag_values, gate_of, given_flags
from dspec2test.commands.generate import add_generation_arguments, generation_options
from dspec2test.emit.metadata import read_metadata
from dspec2test.gencache import hits_line
from dspec2test.generate import read_whole
from dspec2test.options import GATE, GENERATION, REPORT_FILES, RUNNING, OptionError
from dspec2test.pipeline import run_program
from dspec2test.records import TestCase
from dspec2test.report import sarif, summary
from dspec2test.report.findings import group
from dspec2test.report.gate import Decision, decide
from dspec2test.report.coverage import coverage_document, terminal as coverage_terminal
from dspec2test.report.json_report import run_document
from dspec2test.report.junit import junit_xml
from dspec2test.report.terminal import TerminalProgress, render
from dspec2test.run import RunOptions, RunResult, run_tests
from dspec2test.run.verify import VerifyError, unverified_members


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the Dafny program")
    add_generation_arguments(parser)
    parser.add_argument("--tests", metavar="TESTS.dfy", help="run this tests file instead of generating one")
    add_option_flags(parser, RUNNING + GATE)
    add_option_flags(parser, REPORT_FILES, help_overrides={"json_path": "write the verdicts as JSON"})
    parser.add_argument("--unverified", action="store_true",
                        help="only the members that fail `dafny verify`, plus {:testEntry} ones")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="list every test, not only those that did not pass")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    start = time.monotonic()
    try:
        values = flag_values(args, GENERATION + RUNNING + GATE)
        values.update(given_flags(args, REPORT_FILES))  # a report file only when asked
    except OptionError as exc:
        err.write(f"dspec2test run: error: {exc}\n")
        return 2
    gate = gate_of(values)
    program = Path(args.file)
    if not program.is_file():
        err.write(f"{program}: error: no such file\n")
        return 2
    unverified = None
    if args.unverified:
        try:
            unverified = tuple(unverified_members(program))
        except VerifyError as exc:
            err.write(f"{program}: error: {exc}\n")
            return 2
        if not unverified:
            out.write(f"{program}: every member verifies and none is {{:testEntry}}: nothing to test\n")
            return _verdict(decide(gate, ()), err)
    options = RunOptions(target=str(values["target"]), timeout_s=float(values["timeout"]))  # type: ignore[arg-type]
    generation_s = None
    skipped = False  # a declaration the parser skipped: the program was not read whole
    coverage = None  # clause coverage needs the generation manifest: not with --tests
    if args.tests:
        loaded = _load_tests(args, program, unverified, err)
        if isinstance(loaded, int):
            return loaded
        tests_text, cases = loaded
        if not cases:
            out.write(f"{program}: no tests to run\n")
            return _verdict(decide(gate, ()), err)
        # tests that read ghost state say so: the runner builds them against the program's test build
        result = run_tests(program, tests_text, cases, options, TerminalProgress(err), tests_path=args.tests)
    else:
        tested = run_program(str(program), generation_options(args, unverified, values), options,
                             TerminalProgress(err))
        coverage = coverage_document(tested.manifest.get("methods", []), tested.result.verdicts)
        for diagnostic in tested.diagnostics:
            err.write(diagnostic.render() + "\n")
        if tested.looked_up:
            err.write(f"{program}: {hits_line(tested.cached, tested.looked_up)}\n")
        if tested.parse_error:
            return 2
        skipped = not read_whole(tested.diagnostics)
        result, generation_s = tested.result, tested.generation_s
        if not result.verdicts:
            out.write(f"{program}: no member with a contract to test\n")
            return _verdict(decide(gate, ()), err)
    if coverage is not None:  # before the report, whose recap and times close the output
        out.write(coverage_terminal(coverage))
    out.write(render(result, generation_s, time.monotonic() - start, verbose=args.verbose))
    write_reports(values, result, err, coverage)
    if result.program_broken:
        return 2
    decision = _verdict(decide(gate, result.verdicts), err)
    return 2 if skipped else decision


def write_reports(values: dict, result: RunResult, err: TextIO, coverage: dict | None = None) -> None:
    """The report files the flags ask for: the run's JSON (DESIGN.md's `run --json`, with the clause
    coverage when there is one), JUnit, SARIF and the job summary's markdown."""
    verdicts = list(result.verdicts)
    findings, _ = group(verdicts)
    document = run_document(result)
    if coverage is not None:
        document["coverage"] = coverage
    writers = {
        "json_path": lambda: json.dumps(document, indent=2) + "\n",
        "junit_path": lambda: junit_xml(verdicts),
        "sarif_path": lambda: sarif.dumps(findings),
        "summary_path": lambda: summary.render(verdicts),
    }
    for name, text in writers.items():
        path = values.get(name)
        if path:
            Path(str(path)).write_text(text(), encoding="utf-8")


def _verdict(decision: Decision, err: TextIO) -> int:
    for reason in decision.reasons:
        err.write(f"dspec2test: gate: {reason}\n")
    return decision.exit_code


def _load_tests(args: argparse.Namespace, program: Path, unverified: tuple[str, ...] | None,
                err: TextIO) -> tuple[str, list[TestCase]] | int:
    """The tests text of --tests and its cases; an exit code on bad input."""
    path = Path(args.tests)
    if not path.is_file():
        err.write(f"{path}: error: no such file\n")
        return 2
    text = path.read_text()
    try:
        cases = read_metadata(text)
    except (ValueError, KeyError, TypeError) as exc:
        err.write(f"{path}: error: unreadable // @dspec2test metadata: {exc}\n")
        return 2
    if not cases:
        err.write(f"{path}: error: no // @dspec2test metadata lines: not a tests file written by dspec2test\n")
        return 2
    wanted = tuple(args.method) + (unverified or ())
    return text, [tc for tc in cases if not wanted or _selected(tc.method, wanted)]


def _selected(method: str, wanted: tuple[str, ...]) -> bool:
    return any(method == w or method.endswith("." + w) for w in wanted)



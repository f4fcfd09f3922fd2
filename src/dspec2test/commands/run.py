"""`dspec2test run FILE`: generate tests (or take --tests), run them with real Dafny, report verdicts.

Exit 1 when the gate trips (`--fail-on failures`, the default: a test failed, crashed or timed out;
`errors`: anything not passed; `--fail-on-empty`: no test at all), 0 otherwise, 2 for bad input
(missing or unparsable program, a program that does not build).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from dspec2test.emit.metadata import read_metadata
from dspec2test.commands.generate import add_generation_arguments, bad_generation_argument, generation_options
from dspec2test.records import TestCase
from dspec2test.report.gate import Decision, add_gate_arguments, decide, gate_from
from dspec2test.report.coverage import coverage_document, terminal as coverage_terminal
from dspec2test.report.json_report import run_document
from dspec2test.report.junit import junit_xml
from dspec2test.report.terminal import TerminalProgress, render
from dspec2test.pipeline import run_program
from dspec2test.toolchain import DEFAULT_TARGET, TARGETS
from dspec2test.run import RunOptions, run_tests
from dspec2test.run.verify import VerifyError, unverified_members


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the Dafny program")
    add_generation_arguments(parser)
    parser.add_argument("--tests", metavar="TESTS.dfy", help="run this tests file instead of generating one")
    parser.add_argument("--timeout", type=float, default=RunOptions().timeout_s, metavar="S",
                        help="wall-clock limit in seconds for the compiled tests of one dafny run; a test still running"
                             " then is a timeout and the others run again (default %(default)g; compilation"
                             " has its own cap of 600 s)")
    parser.add_argument("--target", default=DEFAULT_TARGET, choices=TARGETS,
                        help=f"Dafny compilation target (default {DEFAULT_TARGET}): py runs each test under its own"
                             " limit through our driver, the others through `dafny test`")
    parser.add_argument("--json", metavar="OUT", help="write the verdicts as JSON")
    parser.add_argument("--junit", metavar="OUT", help="write JUnit XML")
    parser.add_argument("--unverified", action="store_true",
                        help="only the members that fail `dafny verify`, plus {:testEntry} ones")
    add_gate_arguments(parser)


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    bad = bad_generation_argument(args)
    if bad:
        err.write(f"dspec2test run: error: {bad}\n")
        return 2
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
            return _verdict(decide(gate_from(args), ()), err)
    options = RunOptions(target=args.target, timeout_s=args.timeout)
    coverage = None  # clause coverage needs the generation manifest: not with --tests
    if args.tests:
        loaded = _load_tests(args, program, unverified, err)
        if isinstance(loaded, int):
            return loaded
        tests_text, cases = loaded
        if not cases:
            out.write(f"{program}: no tests to run\n")
            return _verdict(decide(gate_from(args), ()), err)
        result = run_tests(program, tests_text, cases, options, TerminalProgress(err), tests_path=args.tests)
    else:
        tested = run_program(str(program), generation_options(args, unverified), options, TerminalProgress(err))
        coverage = coverage_document(tested.manifest["methods"], tested.result.verdicts)
        for diagnostic in tested.diagnostics:
            err.write(diagnostic.render() + "\n")
        if tested.parse_error:
            return 2
        result = tested.result
        if not result.verdicts:
            out.write(f"{program}: no member with a contract to test\n")
            return _verdict(decide(gate_from(args), ()), err)
    out.write(render(result))
    if coverage is not None:
        out.write(coverage_terminal(coverage))
    if args.json:
        document = run_document(result)
        if coverage is not None:
            document["coverage"] = coverage
        Path(args.json).write_text(json.dumps(document, indent=2) + "\n")
    if args.junit:
        Path(args.junit).write_text(junit_xml(result.verdicts))
    if result.program_broken:
        return 2
    return _verdict(decide(gate_from(args), result.verdicts), err)


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



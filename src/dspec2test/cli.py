"""Command line front door: argparse subcommands, each a plain function (args, out, err) -> int.

Exit codes: 0 all good, 1 a test failed or the gate tripped, 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType
from typing import TextIO

from dspec2test import __version__
from dspec2test.commands import action, bench, check, doctor, generate, merge, parse, run

# (name, module, one-line help). Each module has add_arguments(parser) and main(args, out, err).
COMMANDS: list[tuple[str, ModuleType, str]] = [
    ("doctor", doctor, "print versions of Dafny, Z3 and the Python libraries; non-zero if any is missing"),
    ("parse", parse, "list declarations and contracts with their lines, or a located error per file"),
    ("generate", generate, "write Dafny {:test} methods from the contracts (and a JSON manifest)"),
    ("run", run, "generate tests (or take --tests), run them against the implementation with Dafny, report"),
    ("check", check, "test only the members a git diff affects (locally)"),
    ("action", action, "the GitHub Action entrypoint (reads GITHUB_* and INPUT_* variables)"),
    ("merge", merge, "combine the JUnit or results files of sharded runs"),
    ("bench", bench, "mutation benchmark: our strategies against dafny generate-tests, the paper's protocol"),
]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # exit code 2 with a one-line reason, as argparse does
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dspec2test", description="Specification-driven test generation for Dafny.")
    parser.add_argument("--version", action="version", version=f"dspec2test {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module, help_text in COMMANDS:
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(p)
        p.set_defaults(handler=module.main)
    return parser


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(out)
        return 2
    try:
        return int(args.handler(args, out, err))
    except KeyboardInterrupt:
        err.write("dspec2test: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0

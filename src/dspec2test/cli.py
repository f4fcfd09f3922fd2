"""Command line front door: argparse subcommands, each a plain function (args, out, err) -> int.

Exit codes: 0 all good, 1 a test failed or the gate tripped, 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn, TextIO

from dspec2test import __version__
from dspec2test.commands import BVA_EXTREME

# (name, module under dspec2test.commands, one-line help). Each module has add_arguments(parser) and
# main(args, out, err). Modules load only when their command runs: Z3, lark and PyGithub take most of a
# second to import, which every `generate` in a loop over files would pay for the ones it never uses.
COMMANDS: list[tuple[str, str, str]] = [
    ("doctor", "doctor", "print versions of Dafny, Z3 and the Python libraries; non-zero if any is missing"),
    ("parse", "parse", "list declarations and contracts with their lines, or a located error per file"),
    ("generate", "generate", "write Dafny {:test} methods from the contracts (and a JSON manifest)"),
    ("run", "run", "generate tests (or take --tests), run them against the implementation with Dafny, report"),
    ("check", "check", "test only the members a git diff affects (locally)"),
    ("replay", "replay", "run check on each of the last commits of this branch that changed .dfy files"),
    ("strength", "strength", "contract strength: mutants of each member that Dafny still verifies and that compute "
                             "something else"),
    ("action", "action", "the GitHub Action entrypoint (reads GITHUB_* and INPUT_* variables)"),
    ("merge", "merge", "combine the JUnit or results files of sharded runs"),
    ("bench", "bench", "mutation benchmark: our strategies against dafny generate-tests, the paper's protocol"),
]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # exit code 2 with a one-line reason, as argparse does
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every command listed; the arguments (and the module) of `only`, or of all when it is None."""
    parser = _Parser(prog="dspec2test", description="Specification-driven test generation for Dafny.")
    parser.add_argument("--version", action="version", version=f"dspec2test {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module_name, help_text in COMMANDS:
        p = sub.add_parser(name, help=help_text, description=help_text)
        if only is None or only == name:
            module = importlib.import_module(f"dspec2test.commands.{module_name}")
            module.add_arguments(p)
            p.set_defaults(handler=module.main)
    return parser


# Flags whose value may be left out, with the value that means. argparse would take the next word
# as the value whatever it is, so `generate --bva prog.dfy` read the file name as N.
OPTIONAL_VALUES = {"--bva": str(BVA_EXTREME)}


def _explicit_optional_values(argv: list[str]) -> list[str]:
    """`--bva` followed by anything but a number becomes `--bva=<BVA_EXTREME>`."""
    out = []
    for k, a in enumerate(argv):
        following = argv[k + 1] if k + 1 < len(argv) else None
        if a in OPTIONAL_VALUES and (following is None or not following.lstrip("-").isdigit()):
            a = f"{a}={OPTIONAL_VALUES[a]}"
        out.append(a)
    return out


def main(argv: list[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    argv = _explicit_optional_values(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(chosen if chosen in {name for name, _, _ in COMMANDS} else None)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(out)
        return 2
    solve = sys.modules.get("dspec2test.solve")  # loaded by the commands that generate
    if solve is not None:
        solve.skip_python_checks()
    try:
        return int(args.handler(args, out, err))
    except KeyboardInterrupt:
        err.write("dspec2test: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - our own bug: one line for the user, never a green exit
        if os.environ.get("DSPEC2TEST_DEBUG"):
            raise
        err.write(f"dspec2test: internal error: {type(exc).__name__}: {exc} "
                  "(a bug of dspec2test; DSPEC2TEST_DEBUG=1 shows where)\n")
        return 2

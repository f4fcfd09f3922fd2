"""`dspec2test action`: the GitHub Action entrypoint (inputs come from INPUT_* variables, not flags)."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from dspec2test.action.real import real_pipeline
from dspec2test.action.runner import Context, run_action


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = "Configured by INPUT_* variables and GITHUB_* variables; see README.md."


def main(args: argparse.Namespace | None, out: TextIO, err: TextIO) -> int:
    return run_action(Context(dict(os.environ), out, err), real_pipeline)

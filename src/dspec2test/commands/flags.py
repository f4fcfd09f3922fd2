"""The CLI door of the options table (options.py): argparse flags derived from it, read back as the
options given on the command line.

Every flag defaults to None, so a flag not given is told apart from one given with the default's value:
only given flags win over the configuration file. Values are validated by the table's own parser (the
same that reads action inputs and the file); a bad one is a usage error naming the flag.
"""

from __future__ import annotations

import argparse
from typing import Iterable, Mapping

from dspec2test.options import BVA_EXTREME, Door, Kind, Option, OptionError, option, resolve
from dspec2test.report.gate import FailOn, Gate


def add_option_flags(parser: argparse.ArgumentParser, names: Iterable[str],
                     help_overrides: Mapping[str, str] | None = None) -> None:
    """One flag per option named (which must have a CLI door)."""
    for name in names:
        o = option(name)
        if Door.CLI not in o.doors:
            raise ValueError(f"option {name} has no command-line flag")
        text = (help_overrides or {}).get(name, o.help).replace(" (empty: none)", "").rstrip(".")
        default = "" if o.kind is Kind.PATH or not o.default_text else f" (default {o.default_text})"
        help_text = (text + default).replace("%", "%%")
        dest = o.name
        if o.kind is Kind.BOOL:
            parser.add_argument(o.cli_flag, dest=dest, action=argparse.BooleanOptionalAction, default=None,
                                help=help_text)
        elif o.kind is Kind.BVA:
            parser.add_argument(o.cli_flag, dest=dest, nargs="?", const=str(BVA_EXTREME), default=None, metavar="N",
                                help=help_text)
            parser.add_argument("--no-" + o.cli_flag[2:], dest=dest, action="store_const", const="false",
                                help=argparse.SUPPRESS)
        elif o.kind is Kind.GLOBS:
            parser.add_argument(o.cli_flag, dest=dest, action="append", default=None, metavar="GLOB",
                                help=help_text + "; repeatable")
        else:
            parser.add_argument(o.cli_flag, dest=dest, default=None, metavar=_metavar(o), help=help_text)


def _metavar(o: Option) -> str:
    if o.kind is Kind.CHOICE:
        return "{" + ",".join(o.choices) + "}"
    return {Kind.INT: "N", Kind.SECONDS: "S", Kind.PATH: "OUT", Kind.SHARD: "K/N"}.get(o.kind, "FILE")


def given_flags(args: argparse.Namespace, names: Iterable[str]) -> dict[str, object]:
    """The typed values of the flags given; OptionError names a bad one by its flag."""
    out = {}
    for name in names:
        raw = getattr(args, name, None)
        if raw is None:
            continue
        o = option(name)
        out[name] = o.parse(raw, Door.CLI)
    return out


def flag_values(args: argparse.Namespace, names: Iterable[str],
                config: Mapping[str, object] | None = None) -> dict[str, object]:
    """Every named option's value: the flag given > the configuration file's > the default."""
    names = tuple(names)
    return resolve(names, given_flags(args, names), config or {})


def gate_of(values: Mapping[str, object]) -> Gate:
    """The gate of resolved option values (fail_on, fail_on_empty)."""
    return Gate(FailOn(values["fail_on"]), bool(values["fail_on_empty"]))


__all__ = ["add_option_flags", "given_flags", "flag_values", "gate_of", "OptionError"]

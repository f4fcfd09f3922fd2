"""`dspec2test generate FILE...`: Dafny {:test} methods from the contracts, plus an optional JSON manifest.

Exit 0 when every file was read (members the engine cannot handle are reported on stderr as
`file:line: unsupported: <construct>` and in the manifest); 2 for bad usage, a file that does not load, or a
declaration the parser skipped (reported as one located refusal: the rest of its file and the other files are
still generated). Several files share one pool of `--jobs` children and need
`-o DIR`: the tests of `x.dfy` go to `DIR/x.tests.dfy`, and `--json` gets one manifest of all members.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Mapping, TextIO

from dspec2test.commands.flags import add_option_flags, flag_values
from dspec2test.options import GENERATION, OptionError, jobs_for
from dspec2test.errors import Diagnostic, Severity
from dspec2test.gencache import hits_line
from dspec2test.generate import GenerateOptions, Generated, generate_all, read_whole
from dspec2test.generation.manifest import manifest_of


def add_generation_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags that shape generation, shared by `generate`, `run`, `check` and `replay` (options.py)."""
    parser.add_argument("--method", action="append", default=[], metavar="NAME",
                        help="only this member (qualified or short name); repeatable")
    add_option_flags(parser, GENERATION)


def generation_values(args: argparse.Namespace, config: Mapping[str, object] | None = None) -> dict[str, object]:
    """The generation options: flags given > the configuration file > defaults. OptionError on a bad flag."""
    return flag_values(args, GENERATION, config)


def generation_options(args: argparse.Namespace, unverified: tuple[str, ...] | None = None,
                       values: Mapping[str, object] | None = None) -> GenerateOptions:
    v = generation_values(args) if values is None else values
    return GenerateOptions(methods=tuple(dict.fromkeys(args.method)), fdnf=bool(v["fdnf"]), bva=v["bva"],  # type: ignore[arg-type]
                           simplify=bool(v["simplify"]), repeat=int(v["repeat"]),  # type: ignore[call-overload]
                           search=bool(v["search"]),
                           max_partitions=int(v["max_partitions"]),  # type: ignore[call-overload]
                           length_limit=int(v["length_limit"]),  # type: ignore[call-overload]
                           timeout_s=float(v["solver_timeout"]),  # type: ignore[arg-type]
                           unverified=unverified, jobs=jobs_for(int(v["jobs"])),  # type: ignore[call-overload]
                           member_timeout_s=float(v["member_timeout"]),  # type: ignore[arg-type]
                           cache_dir=str(v["cache_dir"]) or None)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="the Dafny program(s)")
    add_generation_arguments(parser)
    # the name this flag had before --solver-timeout (run's --timeout is the limit per test)
    parser.add_argument("--timeout", dest="solver_timeout", default=None, help=argparse.SUPPRESS)
    parser.add_argument("-o", "--output", metavar="TESTS.dfy",
                        help="write the tests here (default: stdout); with several files, a directory that gets "
                             "NAME.tests.dfy for each NAME.dfy")
    parser.add_argument("--json", metavar="MANIFEST.json", help="write the manifest (partitions, scenarios, tests)")


def render(d: Diagnostic) -> str:
    if d.severity is Severity.UNSUPPORTED:
        construct = d.construct or d.message
        # what the message adds to the construct (`cannot read the declaration of function F at a.dfy:12`)
        said = "" if d.message in (construct, f"{construct} is not supported") else f": {d.message}"
        return f"{d.file}:{d.line}: unsupported: {construct}{said}"
    return f"{d.file}:{d.line}:{d.col}: {d.severity.value}: {d.message}"


def bad_generation_argument(args: argparse.Namespace) -> str | None:
    """What is wrong with the generation flags (shared by `generate` and `run`), or None."""
    try:
        generation_values(args)
    except OptionError as exc:
        return str(exc)
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
    results = generate_all(args.files, generation_options(args))
    unreadable = skipped = False
    for result, destination in zip(results, destinations):
        for d in result.diagnostics:
            err.write(render(d) + "\n")
        if any(d.severity is Severity.ERROR for d in result.diagnostics) and not result.members:
            unreadable = True
            continue
        skipped = skipped or not read_whole(result.diagnostics)
        write_tests(result, destination, out)
    members = [m for r in results for m in r.members]
    looked_up = sum(r.looked_up for r in results)
    if looked_up:
        err.write(f"dspec2test: {hits_line([m for r in results for m in r.cached], looked_up)}\n")
    nothing_read = unreadable and not members  # the parse errors say it all: no member is "missing"
    missing = [] if nothing_read else [name for name in args.method if not any(
        m.name == name or m.name.split(".")[-1] == name for m in members)]
    for name in missing:
        err.write(f"{', '.join(args.files)}: error: no testable member named {name}\n")
    if args.json and not nothing_read:
        Path(args.json).write_text(json.dumps(manifest_of(members), indent=2, sort_keys=False) + "\n",
                                   encoding="utf-8")
    return 2 if missing or unreadable or skipped else 0


def write_tests(result: Generated, destination: Path | None, out: TextIO) -> None:
    if destination is None:
        out.write(result.tests_text)
        return
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_text(result.tests_text, encoding="utf-8")
    if not result.build.as_written:  # the tests read ghost state its copy compiles: the copy goes beside them
        result.build.place(build_folder(destination))


def build_folder(tests: Path) -> Path:
    """Where `generate -o TESTS.dfy` writes the test build the tests compile against."""
    return tests.parent / f"{tests.name.removesuffix('.dfy')}.build"

"""`dspec2test strength FILE...`: which contracts accept a changed implementation.

For each member with a contract and code: mutants of its code that Dafny still verifies, run beside the
member on the spec tests' inputs; each that computes something else is a finding (the mutated line, the
input, both outputs). Exit 0 (findings are warnings) unless `--fail-on weak` and some contract is weak;
2 for bad usage, a file that does not load, or a declaration the parser skipped (reported where it stopped
reading; the rest is measured).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from dspec2test.commands import BVA_EXTREME
from dspec2test.generate import GenerateOptions
from dspec2test.report.strength import document, terminal
from dspec2test.strength.engine import StrengthOptions
from dspec2test.strength.program import strength_of_file
from dspec2test.strength.records import MemberStrength


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = StrengthOptions()
    parser.add_argument("files", nargs="+", metavar="FILE", help="the Dafny program(s)")
    parser.add_argument("--members", action="append", default=[], metavar="A,B",
                        help="only these members (qualified or short names, comma separated; repeatable)")
    parser.add_argument("--budget", type=float, default=d.budget_s, metavar="S",
                        help="seconds per member for verifying and running its mutants (default %(default)g)")
    parser.add_argument("--max-mutants", type=int, default=d.max_mutants, metavar="N",
                        help="mutants verified per member, spread over its code (default %(default)s)")
    parser.add_argument("--cores", type=int, default=d.cores, metavar="N",
                        help="cores Dafny verifies the mutants of a member on (default: every core, %(default)s)")
    parser.add_argument("--bva", nargs="?", type=int, const=BVA_EXTREME, default=BVA_EXTREME, metavar="N",
                        help="boundary values in the spec tests whose inputs the mutants run on (default on, "
                             f"extreme {BVA_EXTREME}); --no-bva for base scenarios only")
    parser.add_argument("--no-bva", dest="bva", action="store_const", const=None)
    parser.add_argument("--json", metavar="OUT", help="write the results as JSON")
    parser.add_argument("--fail-on", choices=["weak", "never"], default="never",
                        help="exit 1 when some contract is weak (`weak`), or never (the default)")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.budget <= 0 or args.max_mutants < 1 or args.cores < 1:
        err.write("dspec2test strength: error: --budget must be positive, --max-mutants and --cores at least 1\n")
        return 2
    members = tuple(m.strip() for group in args.members for m in group.split(",") if m.strip())
    options = StrengthOptions(budget_s=args.budget, max_mutants=args.max_mutants, cores=args.cores)
    results: list[MemberStrength] = []
    bad = False

    def heard(r: MemberStrength) -> None:
        err.write(f"dspec2test: {r.file}: {r.member} ({r.seconds.get('total', 0):.1f} s)\n")

    for path in args.files:
        if not Path(path).is_file():
            err.write(f"{path}: error: no such file\n")
            bad = True
            continue
        got = strength_of_file(path, options, members, GenerateOptions(bva=args.bva), progress=heard)
        if got.error is not None:
            err.write(got.error.render() + "\n")
            bad = True
            continue
        for skipped in got.skipped:  # the rest of the file is measured; the exit says it was not all read
            err.write(skipped.render() + "\n")
            bad = True
        results += got.members
    missing = [m for m in members if not any(r.member == m or r.member.rsplit(".", 1)[-1] == m for r in results)]
    for m in missing:
        err.write(f"{', '.join(args.files)}: error: no member named {m} with a contract\n")
    out.write(terminal(results))
    if args.json:
        Path(args.json).write_text(json.dumps(document(results), indent=2) + "\n", encoding="utf-8")
    if bad or missing:
        return 2
    return 1 if args.fail_on == "weak" and any(r.weak for r in results) else 0

#!/usr/bin/env python3
"""How much of the Dafny that Dafny accepts our parser reads: Dafny's own integration tests, measured.

    PYTHONPATH=src python3 scripts/conformance.py LITTEST_DIR [--list] [--json OUT]

LITTEST_DIR is `Source/IntegrationTests/TestFiles/LitTests/LitTest` of dafny-lang/dafny at the tag of the
Dafny we build with (v4.11.0), e.g. extracted with
`git archive v4.11.0 Source/IntegrationTests/TestFiles/LitTests/LitTest | tar -x -C DIR`.

Which files count: every `X.dfy` with an `X.dfy.expect` beside it that reports no error, that is,
- no line of the expect holds the word `Error` or `error`, except the verifier's summary
  `Dafny program verifier finished with N verified, 0 errors`; a summary with errors > 0 reports errors
  (a program whose printed output happens to say "error" is left out too: the rule errs on leaving out);
- and no RUN line of the file expects Dafny to exit with 2 (`%exits-with 2`, `--expect-exit-code=2`:
  parse or resolution errors, which may go to a stream the expect does not hold). Other non-zero exits
  with a clean expect stay in: they come from running or compiling the program (a failing `expect`,
  a target that refuses a feature) or from a harness step, after Dafny read the program;
- a file without an expect is left out: it is a module other tests include, or its output is checked
  by other means, so nothing says that Dafny accepts it alone.

A file counts as read when the parser reads it whole (no declaration skipped by recovery). Prints the
count, the percentage, and the failures grouped by their first error (the message, names and numbers
kept; `--list` prints each file's location too).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from dspec2test.dafny.parser import ParseError, parse_program, read_source

_SUMMARY = re.compile(r"Dafny program verifier finished with \d+ verified, (\d+) errors?")
_ERROR_WORD = re.compile(r"\b[Ee]rror\b")
_RUN = re.compile(r"^\s*//\s*RUN:(.*)$", re.MULTILINE)
_EXIT_2 = re.compile(r"(?:%exits-with|--expect-exit-code=?)\s*2\b")


def accepted(dfy: Path) -> bool:
    """Whether the test file is a program Dafny accepts, by the rule of the module doc."""
    expect = dfy.with_name(dfy.name + ".expect")
    if not expect.is_file():
        return False
    for line in expect.read_text(encoding="utf-8", errors="replace").splitlines():
        summary = _SUMMARY.search(line)
        if summary is not None:
            if int(summary.group(1)):
                return False
        elif _ERROR_WORD.search(line):
            return False
    runs = _RUN.findall(dfy.read_text(encoding="utf-8", errors="replace"))
    return not any(_EXIT_2.search(run) for run in runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("littest", type=Path)
    ap.add_argument("--list", action="store_true", help="print every failing file under its group")
    ap.add_argument("--json", type=Path, help="write {file: error or null} here")
    args = ap.parse_args()
    files = sorted(p for p in args.littest.rglob("*.dfy") if accepted(p))
    if not files:
        print(f"no accepted test files under {args.littest}", file=sys.stderr)
        return 2
    groups: dict[str, list[str]] = defaultdict(list)
    results: dict[str, str | None] = {}
    start = time.perf_counter()
    for path in files:
        name = str(path.relative_to(args.littest))
        try:
            parse_program(read_source(str(path)), name)
            results[name] = None
        except ParseError as err:
            groups[err.message].append(f"{name}:{err.line}:{err.col}")
            results[name] = f"{err.line}:{err.col}: {err.message}"
    wall = time.perf_counter() - start
    read = sum(1 for r in results.values() if r is None)
    print(f"{read}/{len(files)} read ({100 * read / len(files):.1f}%), {wall:.1f}s")
    for message, where in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"{len(where):4d}  {message}")
        for w in where if args.list else where[:1]:
            print(f"        {w}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

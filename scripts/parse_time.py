#!/usr/bin/env python3
"""CPU time of parsing every `.dfy` of a folder (the DafnyBench programs, say), best of N rounds.

    PYTHONPATH=src python3 scripts/parse_time.py DAFNYBENCH/programs [--rounds 5]

where DAFNYBENCH is a DafnyBench corpus folder (docs/benchmark.md).

CPU time, not wall time: the machine's other jobs change the wall clock far more than a grammar change.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from dspec2test.dafny.parser import ParseError, dafny_parser, parse_program, read_source


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    texts = [(str(p), read_source(str(p))) for p in sorted(args.folder.glob("*.dfy"))]
    dafny_parser()  # the tables are built (or read from lark's cache) once, outside the measure
    best, failed = float("inf"), 0
    for _ in range(args.rounds):
        start, failed = time.process_time(), 0
        for path, text in texts:
            try:
                parse_program(text, path)
            except ParseError:
                failed += 1
        best = min(best, time.process_time() - start)
    print(f"{len(texts)} files ({failed} do not parse): {best:.2f} s CPU, best of {args.rounds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

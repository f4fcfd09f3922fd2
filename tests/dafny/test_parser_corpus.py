"""Every paper program parses (skipped where the paper's corpus is not present: it is not part of the
repository; DSPEC2TEST_PAPER_CORPUS names its folder, else the checkout's sibling shared/corpus/paper)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import iter_members, parse_file

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("DSPEC2TEST_PAPER_CORPUS") or ROOT.parent / "shared" / "corpus" / "paper") / "programs"
PROGRAMS = sorted(CORPUS.glob("*.dfy")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not PROGRAMS, reason=f"the paper's corpus is not at {CORPUS} (set DSPEC2TEST_PAPER_CORPUS)")
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_paper_program_parses(path: Path) -> None:
    prog = parse_file(str(path))
    assert isinstance(prog, A.Program), prog
    members = list(iter_members(prog))
    assert members
    for _, member in members:
        for clause in member.spec.requires + member.spec.ensures:
            # Clause text is the source slice: it appears verbatim in the file.
            assert clause.text and clause.text in prog.text

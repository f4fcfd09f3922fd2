"""Every paper program parses (skipped where the shared corpus is not present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import iter_members, parse_file

CORPUS = Path("/work/shared/corpus/paper/programs")
PROGRAMS = sorted(CORPUS.glob("*.dfy")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not PROGRAMS, reason="paper corpus not present")
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

"""The text of a file of the test build: its sites' `ghost` words blanked (as many spaces, so every line
and column stays where the user wrote it), and under Dafny 3's function syntax ` method` put after
`function`. Edits go by the parser's spans, never by a search of the text."""

from __future__ import annotations

from collections.abc import Iterable

from dspec2test.testbuild.sites import Site

METHOD_WORD = " method"


def edited(text: str, sites: Iterable[Site]) -> str:
    """`text` with `sites` (all of this file) lifted."""
    edits: list[tuple[int, int, str]] = []
    for s in sites:
        if s.word.end > s.word.start:
            edits.append((s.word.start, s.word.end, " " * (s.word.end - s.word.start)))
        if s.method_at >= 0:
            edits.append((s.method_at, s.method_at, METHOD_WORD))
    for start, end, new in sorted(set(edits), reverse=True):
        text = text[:start] + new + text[end:]
    return text

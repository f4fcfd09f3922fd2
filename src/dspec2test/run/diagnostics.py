"""Dafny's own diagnostics in what a build printed: `file(line,col): Error: message` lines, and which
member a `... has no body` error names. Test verdicts are not read here (see reader.py)."""

from __future__ import annotations

import re

from dspec2test.errors import Diagnostic, dafny_errors

# Dafny's message shape (its output, not Dafny program text).
_NO_BODY = re.compile(r"^(?:Method|Function|Predicate|Lemma|Constructor)\s+(?P<member>\S+) has no body")


def build_errors(text: str) -> tuple[Diagnostic, ...]:
    """Dafny's `file(line,col): Error: message` lines (resolution, type and compilation errors)."""
    return dafny_errors(text)


def error_lines(text: str, words: tuple[str, ...] = ("Error", "error")) -> list[str]:
    """The lines of a tool's output that speak of an error (any of `words` in them), stripped: what a
    one-line reason quotes when the output has no `file(line,col): Error:` line to read."""
    return [line.strip() for line in text.splitlines() if any(w in line for w in words)]


def no_body_member(diagnostic: Diagnostic) -> str | None:
    """For `Method _module._default.Abs has no body ...`, the member as we name it: `Abs`."""
    m = _NO_BODY.match(diagnostic.message)
    if not m:
        return None
    parts = [p for p in m["member"].split(".") if p not in ("_module", "_default", "__default")]
    return ".".join(parts)

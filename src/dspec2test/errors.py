"""Errors as values: a located diagnostic travels through the pipeline; the CLI prints it at the edge."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class Diagnostic:
    """One located message, printed like a compiler's: `file:line:col: severity: message`."""

    file: str
    line: int
    col: int
    message: str
    severity: Severity = Severity.ERROR
    construct: str | None = None  # for `unsupported`: the Dafny construct, e.g. "multiset display"

    def render(self) -> str:
        if self.severity is Severity.UNSUPPORTED and self.construct and self.construct not in self.message:
            return f"{self.file}:{self.line}:{self.col}: unsupported: {self.construct}: {self.message}"
        return f"{self.file}:{self.line}:{self.col}: {self.severity.value}: {self.message}"


class DspecError(Exception):
    """Root of the errors raised inside a stage; caught and turned into a Diagnostic at the stage edge."""

    def __init__(self, message: str, line: int = 0, col: int = 0, construct: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.construct = construct
        self.file = ""  # where line is, when not in the file being read (the body of an included function)

    def located(self, file: str) -> "DspecError":
        """This error, placed in `file` unless a deeper body placed it already."""
        if not self.file:
            self.file = file
        return self


class Unsupported(DspecError):
    """A construct the engine cannot handle yet; reported as `unsupported: <construct> at file:line`."""

    def __init__(self, construct: str, line: int = 0, col: int = 0, message: str | None = None):
        super().__init__(message or f"{construct} is not supported", line, col, construct)


# Dafny's message shape (its output, not Dafny program text): `file(line,col): Error: message`.
_DAFNY_ERROR = re.compile(r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): Error: (?P<message>.*)$")


def dafny_errors(text: str) -> tuple[Diagnostic, ...]:
    """Dafny's `file(line,col): Error: message` lines in what it printed (resolution, type and
    compilation errors), as diagnostics naming the file as Dafny did."""
    found = []
    for line in text.splitlines():
        m = _DAFNY_ERROR.match(line.strip())
        if m:
            found.append(Diagnostic(m["file"], int(m["line"]), int(m["col"]), m["message"]))
    return tuple(found)

"""Reading what `dafny test` (or the compiled test program) printed: per-test outcomes and build errors.

Dafny prints `Name: ` when a test starts, then whatever the test prints, then `PASSED` or `FAILED`
followed by tab-indented `file(line,col): message` lines. Its exit code is 3 both for failing tests and
for some build errors, so the text decides. Only names we generated are read as test headers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from dspec2test.errors import Diagnostic

# Our own marker lines (printed by the generated tests), and Dafny's own message shapes.
_ACTUAL = re.compile(r"^\[dspec2test\] actual (\w+) = (.*)$")
_LOCATED = re.compile(r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): (?P<message>.*)$")
_ERROR = re.compile(r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): Error: (?P<message>.*)$")
_NO_BODY = re.compile(r"^(?:Method|Function|Predicate|Lemma|Constructor)\s+(?P<member>\S+) has no body")
_HALTED = "[Program halted]"
_VERDICTS = ("PASSED", "FAILED")


class Outcome(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    CRASHED = "crashed"  # started, then the run died (uncaught exception or halt)
    HUNG = "hung"  # started, and still running when the wall-clock limit hit


@dataclass(frozen=True)
class Failure:
    """One tab-indented line under FAILED: where the failing `expect` is, and its message."""

    file: str
    line: int
    col: int
    message: str


@dataclass(frozen=True)
class CaseOutput:
    name: str
    outcome: Outcome
    failures: tuple[Failure, ...] = ()
    actuals: dict[str, str] = field(default_factory=dict)  # from `[dspec2test] actual NAME = VALUE`
    printed: str = ""  # everything else the test printed
    crash: str = ""  # first line of the exception (or the halt message) when it crashed


@dataclass(frozen=True)
class RoundOutput:
    """What one run printed about the tests we asked for. Tests missing here printed nothing."""

    tests: dict[str, CaseOutput]
    build_errors: tuple[Diagnostic, ...] = ()


def build_errors(text: str) -> tuple[Diagnostic, ...]:
    """Dafny's `file(line,col): Error: message` lines (resolution, type and compilation errors)."""
    found = []
    for line in text.splitlines():
        m = _ERROR.match(line.strip())
        if m:
            found.append(Diagnostic(m["file"], int(m["line"]), int(m["col"]), m["message"]))
    return tuple(found)


def no_body_member(diagnostic: Diagnostic) -> str | None:
    """For `Method _module._default.Abs has no body ...`, the member as we name it: `Abs`."""
    m = _NO_BODY.match(diagnostic.message)
    if not m:
        return None
    parts = [p for p in m["member"].split(".") if p not in ("_module", "_default", "__default")]
    return ".".join(parts)


def parse_case_output(stdout: str, stderr: str, names: list[str], timed_out: bool = False) -> RoundOutput:
    """Outcomes of the tests named `names` in one run's output; a started test with no verdict is the one
    that crashed (or hung, when `timed_out`)."""
    errors = build_errors(stdout) + build_errors(stderr) if not _any_header(stdout, names) else ()
    segments = _segments(stdout, set(names))
    tests = {}
    for name, lines in segments:
        tests[name] = _read_segment(name, lines, stderr, timed_out)
    return RoundOutput(tests, errors)


def _header(line: str, names: set[str]) -> tuple[str, str] | None:
    # Tests inside a module print qualified (`Tests.T4: `); ours live in the default module but accept both.
    head, sep, rest = line.partition(": ")
    if not sep:
        if line.endswith(":") and _known(line[:-1], names):
            return _known(line[:-1], names), ""
        return None
    known = _known(head, names)
    return (known, rest) if known else None


def _known(head: str, names: set[str]) -> str | None:
    if head in names:
        return head
    last = head.rsplit(".", 1)[-1]
    return last if last in names and "." in head else None


def _any_header(stdout: str, names: list[str]) -> bool:
    wanted = set(names)
    return any(_header(line, wanted) for line in stdout.splitlines())


def _segments(stdout: str, names: set[str]) -> list[tuple[str, list[str]]]:
    segments: list[tuple[str, list[str]]] = []
    for line in stdout.splitlines():
        header = _header(line, names)
        if header:
            segments.append((header[0], [header[1]]))
        elif segments:
            segments[-1][1].append(line)
    return segments


def _read_segment(name: str, lines: list[str], stderr: str, timed_out: bool) -> CaseOutput:
    verdict_at = None
    for i, line in enumerate(lines):
        if line.rstrip().endswith(_VERDICTS) and not line.startswith("\t"):
            verdict_at = i  # the last one: a test's own prints come before Dafny's verdict
    body = lines if verdict_at is None else lines[: verdict_at + 1]
    if verdict_at is not None:
        # A test that prints without a final newline leaves its text before the verdict word.
        last = body[-1].rstrip()
        body = body[:-1] + [last[: -len("PASSED")]]
    actuals, printed = _actuals(body)
    if verdict_at is None:
        outcome = Outcome.HUNG if timed_out else Outcome.CRASHED
        return CaseOutput(name, outcome, (), actuals, printed, "" if timed_out else _crash_line(lines, stderr))
    if lines[verdict_at].rstrip().endswith("PASSED"):
        return CaseOutput(name, Outcome.PASSED, (), actuals, printed)
    failures = []
    for line in lines[verdict_at + 1:]:
        if not line.startswith("\t"):
            break
        m = _LOCATED.match(line.strip())
        if m:
            failures.append(Failure(m["file"], int(m["line"]), int(m["col"]), m["message"]))
        else:
            failures.append(Failure("", 0, 0, line.strip()))
    return CaseOutput(name, Outcome.FAILED, tuple(failures), actuals, printed)


def _actuals(lines: list[str]) -> tuple[dict[str, str], str]:
    actuals: dict[str, str] = {}
    other = []
    for line in lines:
        m = _ACTUAL.match(line)
        if m:
            actuals[m[1]] = m[2]
        elif line.strip():
            other.append(line)
    return actuals, "\n".join(other)


def _crash_line(lines: list[str], stderr: str) -> str:
    """The exception's first line: a halt message, .NET's `Unhandled exception. X: msg`, or the last
    unindented line of a Python traceback."""
    for line in lines:
        if line.startswith(_HALTED):
            return line[len(_HALTED):].strip()
    for line in lines + stderr.splitlines():
        if line.startswith("Unhandled exception."):
            return line[len("Unhandled exception."):].strip()
    unindented = [ln for ln in stderr.splitlines() if ln.strip() and not ln[0].isspace()
                  and not ln.startswith("Traceback")]
    if unindented:
        return unindented[-1].strip()
    return "the test program stopped without a verdict (exit without output)"

"""The one output reader: what each test did, from the marker lines of this run (emit/markers.py).

Only lines that carry the run's nonce count, so nothing the program under test prints can pass for a
verdict. A test is `(version, name)`: version is "" except in batched runs. Its last marker says how far
it got; how it ended comes from its own `done`/`fail`/`no-body`/`not-built` marker, else from the driver's `end`
frame (driver runs), else from what happened next: another test started (it halted and the test
runner went on), or the run ended or was killed while it was the last one open.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum

from dspec2test.emit.markers import Marker, read_line

Key = tuple[str, str]  # (version, test name)

_HALTED = "[Program halted]"


class Phase(int, Enum):
    """How far a test got: its inputs built, the call made, the call returned."""

    SETUP = 0
    CALLED = 1
    RETURNED = 2


class End(str, Enum):
    DONE = "done"  # every check held
    CHECK_FAILED = "check-failed"  # the check `Observation.check` failed
    NO_BODY = "no-body"  # it reached the stub of a member without a body
    NOT_BUILT = "not-built"  # it reached the stub of a member whose code does not build (run/stubs.py)
    HALTED = "halted"  # stopped by a halt with no marker of ours (an `expect` of the program, say)
    CRASHED = "crashed"  # an uncaught exception, or the process died in it
    HUNG = "hung"  # still running at the wall-clock limit
    CPU_LIMIT = "cpu-limit"  # stopped at its CPU-time limit (driver runs)


@dataclass(frozen=True)
class Observation:
    version: str
    name: str
    phase: Phase
    end: End
    check: str | None = None  # the failed check's id
    member: str | None = None  # the stub reached: a body-less member, or one whose code does not build
    message: str = ""  # the halt or crash message, when there is one
    actuals: dict[str, str] = field(default_factory=dict)
    printed: str = ""  # what else it printed (the program's own output)
    cpu_s: float | None = None  # CPU time, in driver runs
    wall_s: float | None = None  # wall time from its start to its end, in driver runs
    expecteds: dict[str, str] = field(default_factory=dict)  # after a failed check: the values it pins


@dataclass
class _Open:
    version: str
    name: str
    phase: Phase = Phase.SETUP
    end: End | None = None
    check: str | None = None
    member: str | None = None
    message: str = ""
    actuals: dict[str, str] = field(default_factory=dict)
    printed: list[str] = field(default_factory=list)
    expecteds: dict[str, str] = field(default_factory=dict)
    # the value (of `actuals` or `expecteds`, and its output) that the next unmarked lines continue
    actual: tuple[dict[str, str], str] | None = None
    cpu_s: float | None = None
    wall_s: float | None = None

    def close(self, end: End, message: str = "") -> Observation:
        _end_value(self)
        final = self.end or end
        return Observation(self.version, self.name, self.phase, final, self.check, self.member,
                           self.message or message, dict(self.actuals), "\n".join(self.printed).strip(), self.cpu_s,
                           self.wall_s,
                           dict(self.expecteds))


def read_output(stdout: str, stderr: str, nonce: str, timed_out: bool = False) -> dict[Key, Observation]:
    """Every test that started in this run's output, in order, with how it ended."""
    seen: dict[Key, Observation] = {}
    current: _Open | None = None
    for raw in stdout.splitlines():
        marker = read_line(raw, nonce)
        if marker is None:
            if current is not None:
                _unmarked(current, raw)
            continue
        if marker.event is Marker.START:
            key = (marker.version, marker.rest.strip())
            if current is not None and (current.version, current.name) == key:
                continue  # the driver's frame and the test's own first line: one start
            if current is not None:
                # Another test began: the test runner went on after this one stopped without a verdict of
                # ours, which it does after a halt (an expect of the program's own, say).
                seen[(current.version, current.name)] = current.close(End.HALTED, _halt_message(current))
            current = _Open(*key)
            continue
        if current is None:
            continue
        _end_value(current)
        if marker.event is Marker.CALL:
            current.phase = Phase.CALLED
        elif marker.event is Marker.RETURNED:
            current.phase = Phase.RETURNED
        elif marker.event in (Marker.ACTUAL, Marker.EXPECTED):
            name, _, value = marker.rest.partition(" = ")
            values = current.actuals if marker.event is Marker.ACTUAL else current.expecteds
            values[name.strip()] = value
            current.actual = (values, name.strip())
        elif marker.event is Marker.FAIL and current.end is None:
            current.end, current.check = End.CHECK_FAILED, marker.rest.strip()
        elif marker.event is Marker.NO_BODY and current.end is None:
            current.end, current.member = End.NO_BODY, marker.rest.strip()
        elif marker.event is Marker.NOT_BUILT and current.end is None:
            # MEMBER ERROR: the build error it stands for, as the stub says it (not as its halt prints it)
            current.end = End.NOT_BUILT
            current.member, _, current.message = marker.rest.strip().partition(" ")
        elif marker.event is Marker.DONE and current.end is None:
            current.end = End.DONE
        elif marker.event is Marker.END:
            seen[(current.version, current.name)] = _driver_end(current, marker.rest)
            current = None
    if current is not None:
        if timed_out:
            seen[(current.version, current.name)] = current.close(End.HUNG)
        elif halted := _halt_message(current):
            seen[(current.version, current.name)] = current.close(End.HALTED, halted)
        else:
            seen[(current.version, current.name)] = current.close(End.CRASHED, crash_line(current.printed, stderr))
    return seen


def _end_value(current: _Open) -> None:
    """A value's text ends where the next marker begins (the newline that frames the marker aside)."""
    if current.actual is not None:
        values, name = current.actual
        values[name] = values[name].rstrip("\n")
        current.actual = None


def _unmarked(current: _Open, line: str) -> None:
    if current.actual is not None:
        # a value printed over several lines (a string holding newlines)
        values, name = current.actual
        values[name] += "\n" + line
        return
    if line.strip():
        current.printed.append(line)


def _driver_end(current: _Open, rest: str) -> Observation:
    """The driver's `end [how, message, cpu_s, wall_s]` for the open test (older drivers: no wall_s)."""
    try:
        how, message, cpu_s, *wall = json.loads(rest)
    except (ValueError, TypeError):
        how, message, cpu_s, wall = "crashed", f"unreadable driver frame: {rest[:200]}", None, []
    current.cpu_s = cpu_s
    current.wall_s = wall[0] if wall else None
    ends = {"returned": End.CRASHED, "halted": End.HALTED, "crashed": End.CRASHED, "cpu-limit": End.CPU_LIMIT,
            "wall-limit": End.HUNG}
    if how == "returned" and current.end is None:
        # it returned without `done` and without a failed check: a test of ours always says one of them
        return current.close(End.CRASHED, "the test returned without a verdict")
    return current.close(ends.get(how, End.CRASHED), message)


def _halt_message(current: _Open) -> str:
    """Dafny's runner prints `FAILED` and a tab-indented `file(line,col): message` after a halted test."""
    for i, line in enumerate(current.printed):
        if line.rstrip().endswith("FAILED"):
            rest = [ln.strip() for ln in current.printed[i + 1:] if ln.startswith("\t")]
            if rest:
                return rest[0]
    return ""


def crash_line(printed: list[str], stderr: str) -> str:
    """The exception's first line: a halt message, .NET's `Unhandled exception. X: msg`, or the last
    unindented line of a Python traceback."""
    for line in printed:
        if line.startswith(_HALTED):
            return line[len(_HALTED):].strip()
    for line in printed + stderr.splitlines():
        if line.startswith("Unhandled exception."):
            return line[len("Unhandled exception."):].strip()
    unindented = [ln for ln in stderr.splitlines() if ln.strip() and not ln[0].isspace()
                  and not ln.startswith("Traceback")]
    if unindented:
        return unindented[-1].strip()
    return "the test program stopped without a verdict"

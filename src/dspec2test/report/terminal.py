"""What `dspec2test run` (and `check`, and the action's log) prints: the failures first.

Per member a line with its counts; under it, each broken clause once (report/findings.py) with every
input that broke it, the value the clause expected next to the one returned; at the end a recap of what
did not pass, one clickable `file:line:` line each, and the totals with the time split into generation
and execution. `--verbose` lists every test as well. While it works, TerminalProgress shows a line per
member generated (a bar on a terminal, plain lines in a CI log) and the runs of the tests.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Sequence, TextIO

from dspec2test.records import MEMBER, Status, Verdict
from dspec2test.report.findings import Finding, Totals, expected_of, group, headline, inputs_text, plural, scenario_of
from dspec2test.run.runner import RunResult

BAR = 24  # characters of the progress bar
INPUTS_WIDTH = 48  # the inputs column of a failure's lines; longer inputs push the rest along


class TerminalProgress:
    """Generation member by member, then the runs: a bar redrawn in place on a terminal, a line per
    member in a log (a CI log keeps every carriage return's line)."""

    def __init__(self, err: TextIO, tty: bool | None = None):
        self.err = err
        self.tty = _isatty(err) if tty is None else tty
        self.start = 0.0
        self.total = 0
        self.finished = 0
        self.tests = 0

    # generation (generate.GenerationProgress)
    def generating(self, members: int) -> None:
        self.total, self.finished, self.tests, self.start = members, 0, 0, time.monotonic()
        if members and not self.tty:
            self.err.write(f"generating tests for {plural(members, 'member')}\n")
            self.err.flush()
        elif members:
            self._draw("")

    def member_done(self, member: str, tests: int, seconds: float, stopped: str | None) -> None:
        self.finished += 1
        self.tests += tests
        what = f"{member}: {plural(tests, 'test')} in {seconds:.1f} s" + (f" (stopped: {stopped})" if stopped else "")
        if not self.tty:
            self.err.write(f"  [{self.finished}/{self.total}] {what}\n")
        else:
            self._draw(what)
            if self.finished >= self.total:
                self.err.write(f"\r\x1b[K{plural(self.tests, 'test')} generated for {plural(self.total, 'member')} "
                               f"in {time.monotonic() - self.start:.1f} s\n")
        self.err.flush()

    def _draw(self, what: str) -> None:
        filled = BAR * self.finished // max(1, self.total)
        line = f"[{'#' * filled}{'.' * (BAR - filled)}] {self.finished}/{self.total} members  {what}"
        width = shutil.get_terminal_size((100, 20)).columns - 1
        self.err.write("\r\x1b[K" + line[:width])
        self.err.flush()

    # runs (run.runner.Progress)
    def started(self, tests: int, program: str, target: str) -> None:
        self.start = time.monotonic()
        self.err.write(f"compiling and running {plural(tests, 'test')} of {Path(program).name} with dafny "
                       f"({target})...")
        self.err.flush()

    def round_done(self, finished: int, total: int) -> None:
        if finished < total:
            self.err.write(".")  # a round died part-way: the rest run again
        else:
            self.err.write(f" done in {time.monotonic() - self.start:.1f} s\n")
        self.err.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def render(result: RunResult, generation_s: float | None = None, total_s: float | None = None,
           verbose: bool = False, recap: bool = True) -> str:
    """The whole report of one program's run. `recap`: end with the recap of what did not pass (a
    caller that reports several programs recaps them all at the end instead)."""
    lines = body(result, verbose)
    if recap and not result.build_errors:
        lines += recap_lines(result.verdicts)
    lines.append(summary_line(result, generation_s, total_s))
    return "\n".join(lines) + "\n"


def body(result: RunResult, verbose: bool = False) -> list[str]:
    """Build errors and members without a body, then each member: its counts and its findings."""
    lines: list[str] = []
    if result.build_errors:
        where = "the program" if result.program_broken else "the generated tests"
        lines.append(f"{result.program}: build failed in {where}; no test ran:")
        lines += [f"  {d.render()}" for d in result.build_errors]
        return lines
    if result.unbuilt:
        lines.append(f"{result.program}: the program does not build as a whole; the tests that reach these "
                     f"members are not run, the others are:")
        lines += [f"  {d.render()}" for d in result.unbuilt]
    if result.no_body:
        names = ", ".join(result.no_body)
        lines.append(f"{result.program}: no implementation yet: {names} "
                     f"{'has' if len(result.no_body) == 1 else 'have'} no body (tests stay red until "
                     f"{'it has one' if len(result.no_body) == 1 else 'they have one'})")
    members: dict[tuple[str, str, int], list[Verdict]] = {}
    for v in result.verdicts:
        members.setdefault((v.method, v.file, v.member_line), []).append(v)
    findings, _ = group(result.verdicts)
    for (method, file, line), vs in members.items():
        lines.append(f"{method}  {file}:{line}{instantiation_note(vs[0].instantiation)}  {_counts(vs)}")
        if verbose:
            lines += _every_test(vs)
        for f in findings:
            if (f.method, f.file) == (method, file):
                lines += finding_lines(f)
    return lines


def instantiation_note(instantiation: dict[str, str]) -> str:
    """How a generic member was tested: `  (tested at T := int)`, or nothing."""
    if not instantiation:
        return ""
    return "  (tested at " + ", ".join(f"{p} := {t}" for p, t in instantiation.items()) + ")"


def _counts(vs: Sequence[Verdict]) -> str:
    tested = [v for v in vs if v.partition != MEMBER]
    if not tested:
        return "no test"
    totals = Totals.of(tested)
    if totals.passed == totals.tests:
        return f"{plural(totals.tests, 'test')}, {'all ' * (totals.tests > 1)}passed"
    return f"{plural(totals.tests, 'test')}: {totals.breakdown()}" + (f", {totals.passed} passed" if totals.passed else "")


def finding_lines(f: Finding) -> list[str]:
    """A finding under its member: what broke, then one line per input that broke it."""
    v = f.first
    if f.whole_member:
        return [f"  {v.status.value}: {v.message}"]
    on = f"{f.status.value} on {plural(len(f.verdicts), 'input')}"
    where = f" at {v.clause_path}:{v.clause_line}" if v.clause_line else ""
    if f.clause:
        out = [f"  {on}: broke {' '.join(f.clause.split())}{where}"]
    else:
        out = [f"  {on}{where}" + (f": {v.message}" if _one_message(f) and v.message else "")]
    rows = [(inputs_text(x), _outcome(x, f), scenario_of(x)) for x in f.verdicts]
    width = min(INPUTS_WIDTH, max(len(r[0]) for r in rows))
    outcome_width = min(INPUTS_WIDTH, max(len(r[1]) for r in rows))
    for inputs, outcome, scenario in rows:
        out.append(f"    {inputs:<{width}}  {outcome:<{outcome_width}}  ({scenario})" if outcome
                   else f"    {inputs:<{width}}  ({scenario})")
    if v.assumes:
        out.append(f"  {assumption_note(v)}")
    return out


def _one_message(f: Finding) -> bool:
    return len({x.message for x in f.verdicts}) == 1


def _outcome(v: Verdict, f: Finding) -> str:
    """`expected r = 94, actual r = 95`; what happened where it differs between the inputs."""
    parts = []
    if v.status is not f.status:
        parts.append(v.status.value)
    if expected_of(v):
        parts.append(f"expected {expected_of(v)}")
    if v.actual:
        parts.append(f"actual {v.actual}")
    if v.message and not f.clause and not _one_message(f):
        parts.append(v.message)
    return ", ".join(parts)


def _every_test(vs: Sequence[Verdict]) -> list[str]:
    """--verbose: a header per partition (its label), then one line per scenario: verdict, pin, inputs."""
    width = max(len(v.pin or "") for v in vs)
    status_width = max(len(v.status.value) for v in vs)  # the exact status words of every report
    out: list[str] = []
    partition = None
    for v in vs:
        if v.partition == MEMBER:
            continue
        if v.partition != partition:
            partition = v.partition
            out.append(f"  p{v.partition}  {v.label or 'true'}")
        out.append(f"    {v.status.value:<{status_width}} s{v.scenario:<3} {(v.pin or ''):<{width}}  "
                   f"{inputs_text(v)}".rstrip())
    return out


def assumption_note(v: Verdict) -> str:
    lines = ", ".join(map(str, v.assumes))
    return (f"note: {v.method} has assume at line{'s' * (len(v.assumes) > 1)} {lines}: its proof takes that on "
            "trust, so the run may break the assumption rather than verified code")


def recap_lines(verdicts: Sequence[Verdict]) -> list[str]:
    """The end of the report: one `file:line: headline` line per finding, worst first, with the first
    input's expected and actual values; nothing when everything passed."""
    findings, _ = group(verdicts)
    if not findings:
        return []
    failing = sum(len(f.verdicts) for f in findings)
    out = ["", f"Not passing: {plural(len(findings), 'finding')}, {plural(failing, 'test')}"]
    for f in findings:
        v = f.first
        first = ""
        if not f.whole_member:
            shown = _outcome(v, f) or (v.message if not f.clause else "")
            first = f"; first on {inputs_text(v) or v.test}" + (f": {shown}" if shown else "")
        elif v.message:
            first = f": {v.message}"
        out.append(f"  {f.path}:{f.line}: {headline(f)}{first}")
    return out


def summary_line(result: RunResult, generation_s: float | None = None, total_s: float | None = None) -> str:
    counts = Totals.of(result.verdicts)
    parts = [f"{counts.count(s)} {s.value}" for s in Status if counts.count(s) or s is Status.PASSED]
    runs = f"{result.rounds} dafny run{'s' * (result.rounds != 1)}"
    timing = [f"generation {generation_s:.1f} s"] if generation_s is not None else []
    timing.append(f"execution {result.wall_s:.1f} s in {runs}")
    if total_s is not None:
        timing.append(f"total {total_s:.1f} s")
    return f"{plural(counts.tests, 'test')}: {', '.join(parts)} ({', '.join(timing)})"

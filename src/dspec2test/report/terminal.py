"""What `dspec2test run` prints: one line per test grouped by member, failures with expected versus
actual and the clause, a summary line; and a short progress indication on stderr while Dafny runs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TextIO

from dspec2test.records import MEMBER, Status, Verdict
from dspec2test.report.json_report import summary
from dspec2test.run.runner import RunResult


class TerminalProgress:
    """`compiling and running 12 tests of prog.dfy with dafny (cs)...` then a dot per finished round."""

    def __init__(self, err: TextIO):
        self.err = err
        self.start = 0.0

    def started(self, tests: int, program: str, target: str) -> None:
        self.start = time.monotonic()
        self.err.write(f"compiling and running {tests} test{'s' * (tests != 1)} of {Path(program).name} "
                       f"with dafny ({target})...")
        self.err.flush()

    def round_done(self, finished: int, total: int) -> None:
        if finished < total:
            self.err.write(".")  # a round died part-way: the rest run again
        else:
            self.err.write(f" done in {time.monotonic() - self.start:.1f} s\n")
        self.err.flush()


def render(result: RunResult) -> str:
    lines: list[str] = []
    if result.build_errors:
        where = "the program" if result.program_broken else "the generated tests"
        lines.append(f"{result.program}: build failed in {where}; no test ran:")
        lines += [f"  {d.render()}" for d in result.build_errors]
    elif result.no_body:
        names = ", ".join(result.no_body)
        lines.append(f"{result.program}: no implementation yet: {names} "
                     f"{'has' if len(result.no_body) == 1 else 'have'} no body (tests stay red until "
                     f"{'it has one' if len(result.no_body) == 1 else 'they have one'})")
    if not result.build_errors:
        groups: dict[tuple[str, str, int], list[Verdict]] = {}
        for v in result.verdicts:
            groups.setdefault((v.method, v.file, v.member_line), []).append(v)
        for (method, file, line), group in groups.items():
            lines.append(f"{method}  {file}:{line}{instantiation_note(group[0].instantiation)}")
            lines += _member_lines(group)
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def instantiation_note(instantiation: dict[str, str]) -> str:
    """How a generic member was tested: `  (tested at T := int)`, or nothing."""
    if not instantiation:
        return ""
    return "  (tested at " + ", ".join(f"{p} := {t}" for p, t in instantiation.items()) + ")"


def _member_lines(group: list[Verdict]) -> list[str]:
    """A header per partition (its label), then one line per scenario: verdict, pin, inputs."""
    width = max(len(v.pin or "") for v in group)
    status_width = max(len(v.status.value) for v in group)  # the exact status words of every report
    out: list[str] = []
    partition = None
    for v in group:
        if v.partition == MEMBER:  # a member that got no test at all
            out.append(f"  {v.status.value}: {v.message}")
            continue
        if v.partition != partition:
            partition = v.partition
            out.append(f"  p{v.partition}  {v.label or 'true'}")
        inputs = ", ".join(f"{k} = {val}" for k, val in v.inputs.items())
        out.append(f"    {v.status.value:<{status_width}} s{v.scenario:<3} {(v.pin or ''):<{width}}  {inputs}".rstrip())
        out += [f"{'':15}{text}" for text in _explanation(v)]
    return out


def _explanation(v: Verdict) -> list[str]:
    if v.status is Status.PASSED:
        return []
    return _why(v) + ([assumption_note(v)] if v.assumes else [])


def assumption_note(v: Verdict) -> str:
    lines = ", ".join(map(str, v.assumes))
    return (f"note: {v.method} has assume at line{'s' * (len(v.assumes) > 1)} {lines}: its proof takes that on "
            "trust, so the run may break the assumption rather than verified code")


def _why(v: Verdict) -> list[str]:
    if v.status is not Status.FAILED:
        return [v.message] if v.message else []
    out = []
    where = f"{Path(v.file).name}:{v.clause_line}" if v.clause_line else ""
    if v.clause and v.expected == v.clause:  # a postcondition checked on the actual outputs
        out.append(f"broken clause at {where}: {v.clause}")
        if v.actual:
            out.append(f"actual {v.actual}")
        return out
    if v.expected is not None or v.actual is not None:
        out.append(f"expected {v.expected or '?'}, actual {v.actual or '?'}")
    if where:
        out.append(f"broken clause at {where}" + (f": {v.clause}" if v.clause else ""))
    if not out and v.message:
        out.append(v.message)
    return out


def summary_line(result: RunResult) -> str:
    counts = summary(result.verdicts)
    parts = [f"{counts[s.value]} {s.value}" for s in Status if counts[s.value] or s is Status.PASSED]
    return (f"{counts['tests']} test{'s' * (counts['tests'] != 1)}: {', '.join(parts)} "
            f"({result.rounds} dafny run{'s' * (result.rounds != 1)}, {result.wall_s:.1f} s)")

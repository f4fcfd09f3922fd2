"""From one test's output to its Verdict, reading the clause line out of our own expect messages.

Messages come from the generated tests (TEAM.md format):
  `dspec2test: bad test input: ...`                                  -> bad-input (our input was wrong)
  `dspec2test: expected E (ensures, line L)`                          -> failed, expected E
  `dspec2test: ensures (line L) violated: TEXT`                       -> failed, clause TEXT
"""

from __future__ import annotations

import re
from dataclasses import replace

from dspec2test.records import Status, TestCase, Verdict
from dspec2test.run.output import Outcome, CaseOutput

_BAD_INPUT = re.compile(r"dspec2test: bad test input: (?:\w+ \(line (\d+)\))?")
_EXPECTED = re.compile(r"dspec2test: expected (.*) \((\w+), line (\d+)\)\s*$")
_VIOLATED = re.compile(r"dspec2test: (\w+) \(line (\d+)\) violated: (.*)$")
_EQUALS = re.compile(r"^(\w+) == (.+)$")


def base_verdict(tc: TestCase, status: Status, message: str = "") -> Verdict:
    return Verdict(test=tc.name, method=tc.method, partition=tc.partition, scenario=tc.scenario, status=status,
                   message=message, inputs=dict(tc.inputs), file=tc.file, member_line=tc.line, label=tc.label, pin=tc.pin)


def verdict_from_output(tc: TestCase, output: CaseOutput, timeout_s: float) -> Verdict:
    if output.outcome is Outcome.PASSED:
        return base_verdict(tc, Status.PASSED)
    if output.outcome is Outcome.HUNG:
        if output.actuals:
            # The actuals are printed right after the call returns: the implementation finished, and what
            # hung is the contract check (say, a naively recursive spec function on a large BVA input).
            return replace(base_verdict(tc, Status.TIMEOUT,
                                        f"timed out checking the contract: the call returned within {timeout_s:g} s"
                                        " but evaluating the postcondition on its result did not finish; the"
                                        " spec is too slow to evaluate on these inputs, no sign of a bug"),
                           actual=_render(output.actuals))
        return base_verdict(tc, Status.TIMEOUT, f"timed out: no verdict within {timeout_s:g} s (wall clock)")
    if output.outcome is Outcome.CRASHED:
        return base_verdict(tc, Status.CRASHED, f"crashed: {output.crash}")
    if not output.failures:
        return base_verdict(tc, Status.FAILED, "FAILED (Dafny gave no message)")
    failure = output.failures[0]
    verdict = base_verdict(tc, Status.FAILED, failure.message)
    fields: dict = {"line": failure.line or None}
    if m := _BAD_INPUT.search(failure.message):
        fields.update(status=Status.BAD_INPUT, clause_line=int(m[1]) if m[1] else None)
    elif m := _EXPECTED.search(failure.message):
        fields.update(clause_line=int(m[3]), **_expected_actual(m[1], output.actuals))
    elif m := _VIOLATED.search(failure.message):
        fields.update(clause_line=int(m[2]), clause=m[3], expected=m[3], actual=_render(output.actuals))
    else:
        fields.update(actual=_render(output.actuals))
    return replace(verdict, **fields)


def _expected_actual(expected: str, actuals: dict[str, str]) -> dict:
    m = _EQUALS.match(expected)
    if m and m[1] in actuals:
        return {"expected": m[2], "actual": actuals[m[1]]}
    return {"expected": expected, "actual": _render(actuals)}


def _render(actuals: dict[str, str]) -> str | None:
    return ", ".join(f"{k} = {v}" for k, v in actuals.items()) or None

"""A member of a datatype may be named with a trailing `?` (`predicate StrictlySplitFrom?(cs: Cursor)`), like
the constructor tests Dafny makes (`r.Success?`). `e.N?(args)` is a call of that member; it was read as a
constructor test N whenever its receiver was not a plain variable (`Step(cs).value.StrictlySplitFrom?(cs)`,
a chain `cs.Skip().Skip()`), and members of real projects whose contracts say so were not tested (22 of
dafny-lang/libraries' JSON deserializer: "unknown constructor test StrictlySplitFrom?"; its serializer and
evm-dafny: "datatype member Append/Exists/Peek")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dspec2test.errors import Severity
from dspec2test.generate import GenerateOptions, generate

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def test_member_predicates_on_any_receiver_are_calls_not_constructor_tests():
    got = generate(str(FIXTURES / "pred_members.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if d.severity is Severity.UNSUPPORTED], got.diagnostics
    methods = {tc.method for tc in got.cases}
    assert {"Cursors.Next", "Cursors.SkipTwo", "Cursors.Advance"} <= methods
    # Advance's precondition calls StrictlySplitFrom? on a call's result: its input meets it
    advance = [_cursor(tc.inputs["cs"]) for tc in got.cases if tc.method == "Cursors.Advance"]
    assert advance and all(beg <= point < end for beg, point, end in advance), advance


def _cursor(literal: str) -> tuple[int, ...]:
    """(beg, point, end) of a literal `Cursors.Cursor.Cursor(0, 3, 7)`."""
    return tuple(int(x) for x in literal[literal.index("(") + 1:-1].split(","))


def test_a_bound_variable_takes_the_parameter_type_of_the_function_value_it_is_passed_to():
    """`forall t :: p.fn(t) >= 0` with fn: Item -> int: t was an int, and Z3 rejected p.fn(t)."""
    got = generate(str(FIXTURES / "held_arrow_quant.dfy"), GenerateOptions())
    assert not [d for d in got.diagnostics if d.severity is Severity.UNSUPPORTED], got.diagnostics
    assert {tc.method for tc in got.cases} == {"Held.Apply"}


def _statuses(fixture: str, tmp_path: Path) -> dict[str, set[str]]:
    report = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "dspec2test", "run", str(FIXTURES / fixture), "--json", str(report)],
                   capture_output=True, text=True, timeout=600)
    out: dict[str, set[str]] = {}
    for t in json.loads(report.read_text())["tests"]:
        out.setdefault(t["method"], set()).add(t["status"])
    return out


@pytest.mark.dafny
def test_tests_of_member_predicates_build_and_pass_on_the_correct_program(tmp_path):
    statuses = _statuses("pred_members.dfy", tmp_path)
    assert {"Cursors.Next", "Cursors.SkipTwo", "Cursors.Advance"} <= set(statuses)
    assert all(s == {"passed"} for s in statuses.values()), statuses


@pytest.mark.dafny
def test_bugs_that_break_a_member_predicate_are_found(tmp_path):
    statuses = _statuses("pred_members_bug.dfy", tmp_path)
    for m in ("Cursors.Next", "Cursors.SkipTwo", "Cursors.Advance"):
        assert "failed" in statuses[m], statuses
    assert statuses["Cursors.Step"] == {"passed"}

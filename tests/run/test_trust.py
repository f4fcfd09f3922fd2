"""Trustworthy verdicts, end to end through generation and the real Dafny (Python target for speed):
what the generated tests check, what their names are, and that our own failures are never green.
The verdicts of spoofing, crashing, halting, body-less and bad-input tests are in test_runner_dafny."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from dspec2test import cli, generate
from dspec2test.generation import member
from dspec2test.generate import GenerateOptions
from dspec2test.pipeline import run_program
from dspec2test.records import MEMBER, Status, Verdict
from dspec2test.report.findings import group, headline
from dspec2test.run import RunOptions

TRUST = Path(__file__).parent / "fixtures" / "trust"


def copy(tmp_path: Path, name: str) -> Path:
    shutil.copy(TRUST / name, tmp_path / name)
    return tmp_path / name


@pytest.mark.dafny
def test_simplify_checks_values_in_addition_to_the_contract_so_a_bug_in_an_array_is_caught(tmp_path):
    tested = run_program(str(copy(tmp_path, "fill.dfy")), GenerateOptions(bva=100, simplify=True),
                         RunOptions(target="py"))
    statuses = {v.status for v in tested.result.verdicts}
    assert Status.FAILED in statuses
    failed = [v for v in tested.result.verdicts if v.status is Status.FAILED]
    assert all(v.clause_line == 6 for v in failed)  # the fill's ensures, not the count's value
    # unique outputs were expected as values too: their checks are recorded beside the ensures
    cases = generate.generate(str(tmp_path / "fill.dfy"), GenerateOptions(bva=100, simplify=True)).cases
    assert any(c.kind.value == "value" for tc in cases for c in tc.checks)
    assert all(any(c.kind.value == "ensures" and c.line == 6 for c in tc.checks) for tc in cases)


@pytest.mark.dafny
def test_members_whose_names_once_collided_both_get_tests_with_their_own_verdicts(tmp_path):
    tested = run_program(str(copy(tmp_path, "names.dfy")), GenerateOptions(), RunOptions(target="py"))
    by_member = {}
    for v in tested.result.verdicts:
        by_member.setdefault(v.method, set()).add(v.status)
    assert by_member == {"M.A_B": {Status.PASSED}, "M_A.B": {Status.FAILED}}
    names = {v.test for v in tested.result.verdicts}
    assert len(names) == len(tested.result.verdicts)
    assert any(n.startswith("Test_M'A_B_") for n in names) and any(n.startswith("Test_M_A'B_") for n in names)


@pytest.mark.dafny
def test_a_member_whose_generation_raises_is_not_tested_and_trips_fail_on_errors(tmp_path, monkeypatch):
    program = copy(tmp_path, "two.dfy")
    real = member.partition

    def broken(contract, *args, **kwargs):
        if contract.name == "Dec":
            raise RuntimeError("injected failure")
        return real(contract, *args, **kwargs)

    monkeypatch.setattr(member, "partition", broken)  # the member's child process is forked: it inherits this
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["run", str(program), "--target", "py", "--fail-on", "errors"], out, err)
    assert code == 1, out.getvalue() + err.getvalue()
    assert "Dec" in out.getvalue() and "not-tested: unsupported: internal error (RuntimeError)" in out.getvalue()
    assert "gate: 1 not-tested" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["run", str(program), "--target", "py"], out, err) == 0  # failures only: Inc passed


def test_findings_put_the_failure_first_whatever_the_order_of_the_tests():
    def v(scenario: int, status: Status) -> Verdict:
        return Verdict(f"T_s{scenario}", "M", 1, scenario, status, file="a.dfy", label="x > 0")

    findings, _ = group([v(1, Status.BAD_INPUT), v(2, Status.FAILED), v(3, Status.PASSED), v(4, Status.FAILED)])
    assert [f.status for f in findings] == [Status.FAILED, Status.BAD_INPUT]  # a bad input never hides a failure
    assert [x.scenario for x in findings[0].verdicts] == [2, 4] and findings[0].tests == 4
    assert headline(findings[0]) == "M: failed on 2 of 4 tests"
    member = Verdict("", "N", MEMBER, 0, Status.NOT_TESTED, message="unsupported: iset", file="a.dfy")
    [f], _ = group([member])
    assert headline(f).startswith("N: not-tested")

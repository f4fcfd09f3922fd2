"""A member's reach probe (the inputs' large type constraints solved alone) can hit a Z3 check that ignores
its interrupt, and the member's process is then ended. The member is refused with the probe's own reason,
which it handed the parent before the check, not a bare "solver failure"; a member whose process ends
after the probe passed is still a solver failure."""

from __future__ import annotations

import os
from pathlib import Path

from dspec2test.generate import GenerateOptions, _Plan, generate_all
from dspec2test.generation.rounds import retried, run_members
from dspec2test.records import MemberResult
from dspec2test.isolate import stall_exit
from dspec2test.pipeline import _why

PROGRAM = """
method Inc(x: int) returns (y: int)
  requires x >= 0
  ensures y == x + 1
{
  y := x + 1;
}
"""

WHY = "inputs out of the solver's reach: no value of their types found in 5 s (stand-in)"


class _StallingSolver:
    """Stands in for the solver up to the reach probe, whose check never returns (the process is ended
    as the watchdog ends it). `marks`: a file each build from the requires alone is noted in."""

    def __init__(self, parent: int, passes: bool, marks: Path | None = None):
        self.stop = stall_exit(parent)
        self.passes = passes
        self.marks = marks

    def hidden_input_types(self) -> list[str]:
        return []

    def make_from_functions(self) -> list[str]:
        return []

    def build_from_witnesses(self, requires_only: bool = False, rebuild: bool = False) -> list[str]:
        if requires_only and self.marks is not None:
            with self.marks.open("a") as out:
                out.write("requires only\n")
        return []

    def inputs_out_of_reach(self, pending=lambda why: None) -> str | None:
        pending(WHY)
        if self.passes:
            return None
        self.stop()
        raise AssertionError("the stall did not end the member's process")

    def __getattr__(self, name):  # after a passed probe: the first query stalls
        self.stop()
        raise AssertionError("the stall did not end the member's process")


def _generated(tmp_path: Path, passes: bool):
    prog = tmp_path / "inc.dfy"
    prog.write_text(PROGRAM)
    parent = os.getpid()
    [got] = generate_all([str(prog)], GenerateOptions(bva=100, probe=False),
                         solver_factory=lambda *_: _StallingSolver(parent, passes))
    [member] = got.members
    return member


def test_a_member_ended_in_its_reach_probe_is_refused_with_the_probes_reason(tmp_path):
    member = _generated(tmp_path, passes=False)
    assert not member.tests
    assert [u.construct for u in member.unsupported] == [WHY]
    assert _why(member).startswith(f"unsupported: {WHY}")
    assert any(d.message.endswith(WHY) for d in member.diagnostics)


def test_a_member_ended_after_its_reach_probe_passed_is_a_solver_failure(tmp_path):
    member = _generated(tmp_path, passes=True)
    assert not member.tests
    assert len(member.unsupported) == 1 and WHY not in member.unsupported[0].construct
    assert "Z3 ignored the interrupt" in member.unsupported[0].construct


def test_a_member_ended_in_its_reach_probe_is_tried_again_with_inputs_built_from_the_requires(tmp_path):
    """The second try builds the large inputs from their witnesses solving only what the requires read,
    as the first would have had the probe said no in time (here it stalls again: the refusal stands)."""
    prog = tmp_path / "inc.dfy"
    prog.write_text(PROGRAM)
    marks = tmp_path / "marks"
    parent = os.getpid()
    options = GenerateOptions(bva=100, probe=False)
    factory = lambda *_: _StallingSolver(parent, passes=False, marks=marks)  # noqa: E731
    gens = list(_Plan.of(str(prog), options, factory).gens)
    first = run_members(gens, options)
    assert not marks.exists()
    out = retried(gens, first, options)
    assert marks.read_text() == "requires only\n"
    [member] = [gens[0].failed(r) if not isinstance(r, MemberResult) else r for r in out]
    assert [u.construct for u in member.unsupported] == [WHY]

"""Datatype values as inputs: functions held in fields (a machine state holding its precompiled
contracts), the fields' own type constraints (a `nat`, a byte), and constructors called with default
arguments left out. Before, a function field made the whole type unsupported, field constraints were
not solved for (an input could hold a negative nat: a false alarm waiting), and `Err(c)` for
`Err(code: int, gas: nat := 7)` was `unsupported: constructor arity`."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions, generate
from tests.solve.runs import run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "model"


def _unsupported(got) -> list:
    return [d for d in got.diagnostics if d.severity.value == "unsupported" or "internal error" in d.message]


def _fields(literal: str, ctor: str) -> list[str]:
    """The top-level arguments of `Ctor(a, b, ...)`, lambdas and all."""
    assert literal.startswith(ctor + "(") and literal.endswith(")"), literal
    out, depth, cur = [], 0, ""
    for ch in literal[len(ctor) + 1:-1]:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        cur += ch
    return out + [cur.strip()]


def test_functions_held_in_a_datatype_are_solved_and_written_as_lambdas():
    got = generate(str(FIXTURES / "function_fields.dfy"), GenerateOptions())
    assert not _unsupported(got), got.diagnostics
    cases = {tc.method: tc for tc in got.cases}
    assert {"Digest", "Pick"} <= set(cases)
    hash_, mix, size = _fields(cases["Pick"].inputs["h"], "Hooks")
    assert hash_.startswith("x => ") and mix.startswith("(x0, x1) => ")
    assert int(size) >= 0  # a nat field
    assert int(cases["Digest"].inputs["h"].rsplit(",", 1)[1].rstrip(")")) >= 0


def test_a_function_held_in_a_field_is_called_on_any_receiver():
    """`h.hash(data)` in an ensures (and `sp.pre(cs)` on a parser value: libraries' SubParser members were
    `unknown function pre`)."""
    got = generate(str(FIXTURES / "function_fields.dfy"), GenerateOptions(simplify=True))
    assert not _unsupported(got), got.diagnostics
    call = next(tc for tc in got.cases if tc.method == "Call")
    hash_ = _fields(call.inputs["h"], "Hooks")[0]
    assert hash_.startswith("x => ") and "if" not in hash_  # one value for every argument
    assert int(call.outputs["r"]) == 2 * int(hash_.removeprefix("x => "))
    assert [tc for tc in got.cases if tc.method == "Try"]  # `pass(x)` by its bare name in Gate's member


def test_a_datatype_input_keeps_its_fields_types():
    got = generate(str(FIXTURES / "datatype_field_types.dfy"), GenerateOptions(bva=100))
    sums = [tc for tc in got.cases if tc.method == "Sum"]
    assert sums
    for tc in sums:  # the requires wants a sum below -50: only k may go negative
        k, size, b = (int(x) for x in _fields(tc.inputs["d"], "D"))
        assert size >= 0 and 0 <= b < 256 and k + size + b < -50, tc.inputs


def test_a_constructor_takes_the_default_of_an_argument_left_out():
    got = generate(str(FIXTURES / "datatype_field_types.dfy"), GenerateOptions(simplify=True))
    assert not _unsupported(got), got.diagnostics
    fail = next(tc for tc in got.cases if tc.method == "Fail")
    assert fail.outputs["s"] == f"Err({fail.inputs['c']}, 7)"


@pytest.mark.dafny
@pytest.mark.parametrize("fixture, statuses", [("function_fields.dfy", {"passed"}),
                                                ("function_fields_bug.dfy", {"passed", "failed"})])
def test_tests_with_function_fields_run_and_find_the_planted_bug(tmp_path, fixture, statuses):
    tests = run_tests(FIXTURES / fixture, tmp_path, "--bva")
    assert {t["status"] for t in tests} == statuses
    if "failed" in statuses:
        assert {t["method"] for t in tests if t["status"] == "failed"} == {"Digest"}


def test_let_or_fail_propagates_the_failure_or_goes_on_with_the_value():
    """`var h :- Half(x); Half(h)` was `unsupported: let with :-` (libraries' PartitionCodeUnitSequenceChecked,
    reached once a generic datatype's members had their T)."""
    got = generate(str(FIXTURES / "let_or_fail.dfy"), GenerateOptions(bva=100, simplify=True))
    assert not _unsupported(got), got.diagnostics
    qs = [tc for tc in got.cases if tc.method == "Q"]
    assert qs
    for tc in qs:
        x = int(tc.inputs["x"])
        want = f"Ok({x // 4})" if x % 4 == 0 else f"Err({x // 2})" if x % 2 == 0 else f"Err({x})"
        assert tc.outputs["r"] == want, (x, tc.outputs)


@pytest.mark.dafny
def test_a_constructor_name_two_datatypes_share_is_qualified(tmp_path):
    """`End` of Abc and of Def: the literal is `Abc.End` (the tests did not build: 4 'false alarms' of
    DafnyBench's ContainerRanks)."""
    got = generate(str(FIXTURES / "shared_ctor_names.dfy"), GenerateOptions(bva=100))
    inputs = {tc.inputs["v"] for tc in got.cases}
    assert "Abc.End" in inputs and "End" not in inputs
    assert any(v.startswith("Wrap(") for v in inputs)  # a name of one datatype only stays bare
    assert {t["status"] for t in run_tests(FIXTURES / "shared_ctor_names.dfy", tmp_path, "--bva")} == {"passed"}


def test_deferred_field_constraints_are_still_checked_on_each_literal():
    """Where Z3 finds no value of large inputs with their fields' constraints, it solves without them
    (evm-dafny's t8n.MessageCall); a literal that breaks one is still refused before a test is written."""
    from dspec2test.dafny import ast as A
    from dspec2test.dafny.parser import parse_program
    from dspec2test.solve import Solver

    fixture = FIXTURES / "datatype_field_types.dfy"
    prog = parse_program(fixture.read_text(), str(fixture))
    s = Solver(prog, [("d", A.NamedType("D"), False)])
    negative = A.BinOp("<", A.MemberSelect(A.Name("d"), "size"), A.IntLit(0))
    assert s.solve([negative]) is None  # a nat field is never negative
    assert s.defer_field_constraints() and not s.defer_field_constraints()
    m = s.solve([negative])
    assert m is not None and s.admits({"d": m.values["d"]}, []) is False
    assert s.admits({"d": "D(-3, 4, 200)"}, []) is True


def test_a_ghost_constructor_is_never_an_input():
    """`datatype Slot = ghost Reserved(owner: int) | ...`: compiled code cannot build Reserved, so a test
    that did would not build (before, half of Size's inputs were `Reserved(3)`)."""
    got = generate(str(FIXTURES / "ghost_ctor.dfy"), GenerateOptions(bva=100))
    assert not _unsupported(got), got.diagnostics
    inputs = [tc.inputs["s"] for tc in got.cases if tc.method == "Size"]
    assert {v.split("(")[0] for v in inputs} == {"Free", "Used"}
    # the search's compiled harness builds the compiled constructors only (one for Reserved did not compile)
    assert got.searched is not None and not got.diagnostics

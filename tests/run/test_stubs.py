"""The edits of a test build that routes around members at fault (stubs.py), and the decisions that find
those members from Dafny's located errors (recover.py). No Dafny here: tests/run/test_unbuilt.py builds."""

from __future__ import annotations

from dspec2test.errors import Diagnostic
from dspec2test.run.recover import faults_of, member_at
from dspec2test.dafny.parser import parse_program
from dspec2test.run.stubs import Fault, Repair, stubbed

PROGRAM = """\
datatype Box = Box(v: int)
function F(x: int): int
function G<T>(x: int, t: T): int
{
  F(x) + 1
}
method M(x: int) returns (r: int)
  ensures r == x
{
  r := Ghost(x);
  r := r + 0;
}
ghost function Ghost(x: int): int { x }
lemma L(x: int) ensures x == x { assert Undefined(x); }
const K: int := Ghost(1)
method UsesK() returns (r: int) { r := K; }
"""
FRAME = "[dspec2test:N]"


def error(line: int, col: int, message: str = "a call to a ghost function is allowed only in specification contexts"):
    return Diagnostic("p.dfy", line, col, message)


def test_each_error_names_the_member_that_holds_it():
    program = parse_program(PROGRAM, "p.dfy")
    assert member_at(program, error(10, 8))[0] == "M"
    assert member_at(program, error(5, 3))[0] == "G"
    assert member_at(program, error(1, 20)) is None  # in a datatype: no member to route around


def test_faults_are_found_then_escalated_then_given_up():
    sources = {"p.dfy": PROGRAM}
    no_body = error(2, 10, "Function _module._default.F has no body so it cannot be compiled")
    first = faults_of([error(10, 8), no_body, error(11, 3)], sources, ())
    assert first == (Fault("M", error(10, 8), Repair.STUB, "p.dfy"), Fault("F", None, Repair.STUB, "p.dfy"))
    # still at fault once routed around: made ghost
    again = faults_of([error(10, 8)], sources, first)
    assert again is not None and again[0].repair is Repair.GHOST
    assert faults_of([error(10, 8)], sources, again) is None  # ghost was the last resort
    assert faults_of([error(1, 20)], sources, ()) is None  # outside every member
    assert faults_of([Diagnostic("tests.dfy", 3, 1, "x")], sources, ()) is None  # not the program's: nothing new


def test_a_method_at_fault_gets_a_stub_that_keeps_every_line_in_place():
    fault = Fault("M", error(10, 8))
    text = stubbed(PROGRAM, "p.dfy", [fault], FRAME)
    assert text is not None and text.count("\n") == PROGRAM.count("\n")
    lines = text.splitlines()
    assert lines[8].startswith('{ print "\\n[dspec2test:N] not-built M p.dfy:10:8: error: a call to a ghost')
    assert 'expect false, "p.dfy:10:8: error: a call' in lines[8]
    assert lines[12] == PROGRAM.splitlines()[12]  # Ghost, after the body, where it was


def test_a_function_keeps_its_place_in_compiled_code_by_a_halting_by_method():
    text = stubbed(PROGRAM, "p.dfy", [Fault("G", error(5, 3)), Fault("F")], FRAME)
    assert text is not None and text.count("\n") == PROGRAM.count("\n")
    lines = text.splitlines()
    assert lines[1] == ('function F(x: int): int { F(x) } by method { print "\\n[dspec2test:N] no-body F\\n"; '
                        'expect false, "dspec2test: F has no body yet"; }')
    assert lines[3].startswith('{ G<T>(x, t) } by method { print "\\n[dspec2test:N] not-built G p.dfy:5:3: ')


def test_the_last_resort_makes_ghost_and_ghost_code_at_fault_is_emptied():
    text = stubbed(PROGRAM, "p.dfy", [Fault("G", error(5, 3), Repair.GHOST), Fault("L", error(14, 41))], FRAME)
    assert text is not None
    lines = text.splitlines()
    assert lines[2] == "ghost function G<T>(x: int, t: T): int" and lines[3] == "{ G<T>(x, t) }"
    assert lines[13] == "lemma L(x: int) ensures x == x { }"
    assert stubbed(PROGRAM, "p.dfy", [Fault("Nowhere")], FRAME) is None


def test_a_constant_at_fault_is_made_ghost_and_its_users_reach_its_error():
    sources = {"p.dfy": PROGRAM}
    first = faults_of([error(15, 20)], sources, ())
    assert first == (Fault("K", error(15, 20), Repair.GHOST, "p.dfy"),)
    text = stubbed(PROGRAM, "p.dfy", first, FRAME)
    assert text is not None and text.splitlines()[14] == "ghost const K: int := Ghost(1)"
    # the user of K: Dafny's error is about K being ghost, ours; the stub says K's own
    then = faults_of([error(16, 39, "a ghost const field is allowed only in specification contexts")], sources, first)
    assert then is not None and then[1] == Fault("UsesK", error(15, 20), Repair.STUB, "p.dfy", cause="K")
    text = stubbed(PROGRAM, "p.dfy", then, FRAME)
    assert text is not None and 'not-built K p.dfy:15:20: error: a call to a ghost' in text.splitlines()[15]

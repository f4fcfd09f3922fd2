"""Which members the oracle probe stands in for (probe.py)."""

from dspec2test.dafny.parser import parse_program
from dspec2test.partition.contracts import select
from dspec2test.probe import probeable, reaches_recursion

PROG = """
function Count(s: seq<int>): nat { if s == [] then 0 else Count(s[1..]) + 1 }
function Twice(s: seq<int>): nat { 2 * |s| }
method Copy(s: seq<int>) returns (a: array<int>)
  ensures a.Length == Count(s)
method Size(s: seq<int>) returns (n: nat)
  requires Count(s) < 10
  ensures n == Count(s)
method Double(s: seq<int>) returns (n: nat)
  ensures n == Twice(s)
"""


def test_members_with_a_recursive_contract_are_probed_unless_an_output_has_no_literal():
    prog = parse_program(PROG, "p.dfy")
    c = {m.name: m for m in select(prog)}
    # an array output has no literal to stand in for the call: its probe would not build
    assert reaches_recursion(c["Copy"], prog) and not probeable(c["Copy"], prog)
    assert probeable(c["Size"], prog) and not probeable(c["Double"], prog)
    assert reaches_recursion(c["Size"], prog, frozenset({"requires"}))
    assert not reaches_recursion(c["Double"], prog)

"""Strings held in collections are solved as atoms where the contract only compares them."""

from dspec2test.dafny.parser import parse_program
from dspec2test.model.contracts import select
from dspec2test.solve import Solver

GUESTS = """
method Admit(guests: set<string>, name: string, banned: set<string>) returns (after: set<string>)
  requires name !in banned && |guests| >= 2 && "root" in banned
  ensures after == guests + {name}
"""

NAMES = """
method Longest(names: seq<string>) returns (n: nat)
  requires |names| > 0 && |names[0]| == 3
  ensures n >= |names[0]|
"""


def solve(text):
    prog = parse_program(text, "p.dfy")
    [c] = select(prog)
    s = Solver(prog, [(v.name, v.type, v.is_output) for v in c.solver_vars], member=c.member)
    return s, s.solve([cl.expr for cl in c.clauses])


def test_a_set_of_strings_only_compared_is_solved_with_distinct_readable_strings():
    s, m = solve(GUESTS)
    assert s.types.atoms and m is not None
    assert m.values["name"] not in m.values["banned"] and '"root"' in m.values["banned"]
    guests = m.values["guests"].strip("{}").split(", ")
    assert len(set(guests)) >= 2 and m.values["name"].startswith('"s')


def test_a_contract_that_takes_a_string_apart_is_solved_with_sequences():
    prog = parse_program(NAMES, "p.dfy")
    [c] = select(prog)
    s = Solver(prog, [(v.name, v.type, v.is_output) for v in c.solver_vars], member=c.member)
    assert not s.types.atoms  # |names[0]| needs the characters: the solver gave the atoms up


def test_a_searched_string_is_pinned_where_the_solver_holds_strings_as_atoms():
    """The search's candidate gives a string as its characters; pinned as a sequence term where a string is
    an atom's identity (an Int) it was a Z3 exception that ended the member's generation (mech-uvl's ToRef)."""
    prog = parse_program(GUESTS, "p.dfy")
    [c] = select(prog)
    s = Solver(prog, [(v.name, v.type, v.is_output) for v in c.solver_vars], member=c.member)
    assert s.types.atoms
    pins = {"guests": (tuple(map(ord, "ann")), tuple(map(ord, "bo"))), "name": tuple(map(ord, "cy")),
            "banned": (tuple(map(ord, "root")), ())}
    m = s.solve_at([cl.expr for cl in c.clauses if cl.kind == "requires"], pins)
    assert m is not None and m.values["name"] == '"cy"' and '""' in m.values["banned"]
    assert s.solve_at([cl.expr for cl in c.clauses if cl.kind == "requires"],
                      {**pins, "name": tuple(map(ord, "root"))}) is None  # "root" is banned

"""Deciding what the test build lifts from Dafny's answers, with a stand-in for Dafny that answers as the
real one does (`file(line,col): Error: message`): errors inside a site, errors at a use that names one,
errors of the program as written, errors nothing explains, and a Dafny that cannot be asked."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.errors import Diagnostic
from dspec2test.testbuild.ask import Answer
from dspec2test.testbuild.settle import MAX_ASKS, Copy, GiveUp, settle
from dspec2test.testbuild.sites import sites_of

PROGRAM = """ghost predicate IsSquare(n: int) { exists k: int :: k * k == n }
ghost function Fib(n: nat): nat { if n < 2 then n else Fib(n - 1) + Fib(n - 2) }
ghost predicate Both(n: int) { IsSquare(n) && Fib(3) == 2 }
class C {
  var c: int
  ghost var g: int
  lemma {:axiom} Touch() modifies this { g := 3; }
}
method NoBody(x: int) returns (r: int)
"""


class Dafny:
    """Answers for the lifted copy's text: the errors of each rule (a test of the text -> an error) that
    holds, and the program's own errors (`own`) whatever is lifted."""

    def __init__(self, rules: list[tuple[Callable[[str], bool], Diagnostic]], own: list[Diagnostic] = ()):
        self.rules, self.own, self.asked = rules, list(own), []

    def __call__(self, texts: dict[str, str]) -> Answer:
        text = texts["p.dfy"]
        self.asked.append(text)
        errors = [e for holds, e in self.rules if holds(text)] + self.own
        return Answer(not errors, tuple(errors))


def compiled(name: str) -> Callable[[str], bool]:
    """The copy compiles the declaration of `name` (its `ghost` word is gone)."""
    return lambda text: f"ghost predicate {name}" not in text and f"ghost function {name}" not in text \
        and f"ghost var {name}" not in text


def _copy(dafny: Dafny) -> Copy:
    program = parse_program(PROGRAM, "p.dfy")
    return Copy({"p.dfy": PROGRAM}, {"p.dfy": "p.dfy"}, {"p.dfy": program}, dafny)


def _names(sites):
    return sorted(n for s in sites for n in s.names)


SQUARE = Diagnostic("p.dfy", 1, 36, "quantifiers in non-ghost contexts must be compilable")
BOTH = Diagnostic("p.dfy", 3, 32, "a call to a ghost predicate is allowed only in specification contexts")
TOUCH = Diagnostic("p.dfy", 7, 42, "assignment to non-ghost field is not allowed in this context, because this is a ghost lemma")


def test_an_error_inside_a_lifted_declaration_puts_its_ghost_back_and_the_callers_follow():
    dafny = Dafny([(compiled("IsSquare"), SQUARE),
                   (lambda text: compiled("Both")(text) and not compiled("IsSquare")(text), BOTH)])
    copy = _copy(dafny)
    lifted, kept = settle(copy, sites_of(copy.parsed["p.dfy"]))
    assert _names(lifted) == ["C.g", "Fib"]
    assert {s.names[0]: why for s, why in kept} == {"IsSquare": SQUARE.message, "Both": BOTH.message}
    assert len(dafny.asked) == 3  # all; without IsSquare (Both now calls a ghost); without Both too


def test_an_error_at_a_use_puts_back_the_site_it_names():
    dafny = Dafny([(compiled("g"), TOUCH)])  # g compiled: the lemma may not assign it
    copy = _copy(dafny)
    lifted, kept = settle(copy, sites_of(copy.parsed["p.dfy"]))
    assert "C.g" not in _names(lifted) and "Fib" in _names(lifted)
    assert [(s.names, why) for s, why in kept] == [(("C.g",), f"{TOUCH.message} (p.dfy:7)")]


def test_the_programs_own_errors_are_not_the_test_builds():
    own = Diagnostic("p.dfy", 9, 8, "Method _module._default.NoBody has no body so it cannot be compiled")
    dafny = Dafny([], own=[own])
    copy = _copy(dafny)
    lifted, kept = settle(copy, sites_of(copy.parsed["p.dfy"]))
    assert _names(lifted) == ["Both", "C.g", "Fib", "IsSquare"] and kept == []
    assert len(dafny.asked) == 2  # the lifted copy, then the program as written: the same error


def test_an_error_nothing_explains_is_narrowed_down_by_halves():
    odd = Diagnostic("p.dfy", 9, 1, "something about the whole program")
    dafny = Dafny([(compiled("Fib"), odd)])
    copy = _copy(dafny)
    lifted, kept = settle(copy, sites_of(copy.parsed["p.dfy"]))
    assert _names(lifted) == ["Both", "C.g", "IsSquare"]
    assert [(s.names, why) for s, why in kept] == [(("Fib",), odd.message)]


def test_a_dafny_that_never_agrees_is_given_up_on():
    dafny = Dafny([(lambda text: text != PROGRAM, Diagnostic("p.dfy", 9, 1, "whatever is lifted"))])
    copy = _copy(dafny)
    with pytest.raises(GiveUp):
        settle(copy, sites_of(copy.parsed["p.dfy"]) * 8)
    assert len(dafny.asked) == MAX_ASKS


def test_a_dafny_that_cannot_be_asked_is_given_up_on():
    copy = Copy({"p.dfy": PROGRAM}, {"p.dfy": "p.dfy"}, {"p.dfy": parse_program(PROGRAM, "p.dfy")},
                lambda texts: Answer(False, (), "dafny not found"))
    with pytest.raises(GiveUp, match="dafny not found"):
        settle(copy, sites_of(copy.parsed["p.dfy"]))

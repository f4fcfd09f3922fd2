"""`v.N?` on a value of a datatype is a constructor test only when N is one of its constructors; a member
named `N?` (`predicate Valid?()`, `const Valid?`) is something else, which reading the model must not
decide as "the value was not built by N"."""

from __future__ import annotations

from dspec2test.dafny.parser import parse_program
from dspec2test.model.types import TypeIndex
from dspec2test.partition.fields import ctor_test

PROGRAM = """
datatype Cursor = Cursor(beg: nat, end: nat) | Empty {
  const Valid?: bool := true
  predicate Split?(other: Cursor) { true }
}
"""


def test_a_constructor_test_is_decided_by_the_constructor():
    types = TypeIndex.of(parse_program(PROGRAM, "t.dfy"))
    assert ctor_test(types, "Cursor", "Cursor?") is True
    assert ctor_test(types, "Cursor", "Empty?") is False


def test_a_member_whose_name_ends_in_a_question_mark_is_no_constructor_test():
    types = TypeIndex.of(parse_program(PROGRAM, "t.dfy"))
    assert ctor_test(types, "Cursor", "Valid?") is None
    assert ctor_test(types, "Empty", "Split?") is None
    assert ctor_test(types, "Unknown", "Cursor?") is None

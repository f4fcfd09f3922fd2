"""Checks over the ghost state a test build compiles (issue 41): with Contents, Repr and Valid() lifted,
the clauses over them are checks and old() of them snapshots; fresh() stays unchecked; a declaration the
test build kept ghost says Dafny's reason; the object is made by its constructor and methods, never by
assigning a lifted field. Without the test build, the same clauses are unchecked."""

from __future__ import annotations

from dspec2test.dafny.parser import parse_program
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.objects import inputs_of
from dspec2test.emit.tests_file import EmitContext, checks_of
from dspec2test.model.contracts import select
from dspec2test.testbuild import TestBuild, lifted_view
from dspec2test.testbuild.sites import sites_of

BUFFER = """
class Buffer {
  var arr: array<int>
  var n: nat
  ghost var Contents: seq<int>
  ghost var Repr: set<object>
  ghost predicate Valid() reads this, Repr { this in Repr && arr in Repr && n <= arr.Length && Contents == arr[..n] }
  ghost predicate Full() reads this { exists k: int :: k == n && k == arr.Length }
  constructor() ensures Valid() && fresh(Repr) { arr := new int[2]; n := 0; Contents := []; Repr := {this, arr}; }
  method Append(x: int)
    requires Valid()
    modifies Repr
    ensures Valid() && fresh(Repr - old(Repr))
    ensures Contents == old(Contents) + [x]
    ensures |Contents| == old(|Contents|) + 1 && old(Valid())
  { }
  method Length() returns (r: nat) requires Valid() ensures r == |Contents| && !Full() { r := n; }
}
"""

KEPT = (("Full", "quantifiers in non-ghost contexts must be compilable"),)


def checks(lifted: bool) -> dict:
    program = parse_program(BUFFER, "b.dfy")
    build = TestBuild()
    if lifted:
        sites = [s for s in sites_of(program) if s.names != ("Buffer.Full",)]
        build = TestBuild(lifted=frozenset(n for s in sites for n in s.names), sites=frozenset(s.key for s in sites))
    view = lifted_view(program, build)
    ctx = EmitContext.of(view, KEPT if lifted else ())
    return {c.name: (c, checks_of(c, ctx)) for c in select(view)}


def texts(pairs) -> list[str]:
    return [print_expr(e) for _, e in pairs]


def test_clauses_over_lifted_state_are_checks_and_old_reads_snapshots():
    c, got = checks(True)["Buffer.Append"]
    assert texts(got.requires) == ["dspec2test_obj.Valid()"]
    assert texts(got.ensures) == [
        "dspec2test_obj.Valid()",
        "dspec2test_obj.Contents == dspec2test_old_1 + [x]",
        "|dspec2test_obj.Contents| == |dspec2test_old_1| + 1 && dspec2test_old_2"]
    assert got.snapshots == ("var dspec2test_old_1 := dspec2test_obj.Contents;",
                             "var dspec2test_old_2 := dspec2test_obj.Valid();")
    assert [(cl.text, why) for cl, why in got.unchecked] == [("fresh(Repr - old(Repr))", "fresh() is ghost")]


def test_without_the_test_build_they_are_unchecked():
    _, got = checks(False)["Buffer.Append"]
    assert not any("Contents" in t for t in texts(got.ensures))
    assert any("Contents is ghost" in why for _, why in got.unchecked)


def test_a_predicate_the_test_build_kept_ghost_says_why():
    _, got = checks(True)["Buffer.Length"]
    assert texts(got.ensures) == ["r == |dspec2test_obj.Contents|"]
    assert [why for _, why in got.unchecked] == [
        "Full is ghost in the test build: quantifiers in non-ghost contexts must be compilable"]


def test_an_object_with_lifted_state_is_made_by_its_constructor_and_methods():
    c, _ = checks(True)["Buffer.Length"]
    [root] = c.objects.roots
    assert root.driven and not any(f.settable for f in root.fields)
    assert {f.name for f in root.fields if f.lifted} >= {"Contents"}
    values = {"this": "obj", **{v.name: "0" for v in c.hidden}}
    made = inputs_of(c, values, {})
    assert not any(k.endswith((".Contents", ".n", ".arr")) for k in made)
    # without the test build the compiled fields are assigned, and the ghost ones are not
    plain, _ = checks(False)["Buffer.Length"]
    assert {f.name for r in plain.objects.roots for f in r.fields if f.settable} == {"arr", "n"}


SIMPLE = """
class Stack {
  var arr: array<int>
  var n: nat
  ghost var Contents: seq<int>
  ghost predicate Valid() reads this, arr { n <= arr.Length && Contents == arr[..n] }
  constructor(c: nat) ensures Valid() && Contents == [] { arr := new int[c]; n := 0; Contents := []; }
  method Push(x: int) requires Valid() && n < arr.Length modifies this, arr ensures Valid() && n == old(n) + 1 { }
  method Pop() returns (x: int) requires Valid() && n > 0 modifies this ensures Valid() && n == old(n) - 1 { }
}
"""


def test_a_predicate_over_the_objects_own_values_is_read_through_its_body_and_a_frame_keeps_it_opaque():
    program = parse_program(SIMPLE, "s.dfy")
    sites = sites_of(program)
    build = TestBuild(lifted=frozenset(n for s in sites for n in s.names), sites=frozenset(s.key for s in sites))
    pop = next(c for c in select(lifted_view(program, build)) if c.name == "Stack.Pop")
    [root] = pop.objects.roots
    # Valid()'s body says n == 0 of a new stack (Contents == []): one Push, and Pop's requires hold
    assert root.driven and "Valid()" not in {f.name for f in root.fields} and root.builds[0].steps == 1
    assert {"arr", "n", "Contents"} <= {f.name for f in root.fields}
    append, _ = checks(True)["Buffer.Append"]
    [buffer] = append.objects.roots
    assert "Valid()" in {f.name for f in buffer.fields} and buffer.builds[0].steps == 3


WINDOW = """
type interval = iv: (int, int) | iv.0 <= iv.1 witness (0, 0)
ghost function length(iv: interval): int { iv.1 - iv.0 }
ghost predicate valid_interval(s: string, iv: interval) {
  && (0 <= iv.0 <= iv.1 <= |s|) && (forall i, j | iv.0 <= i < j < iv.1 :: s[i] != s[j])
}
method Longest(s: string) returns (n: int, ghost best: interval)
  ensures valid_interval(s, best) && length(best) == n
  ensures forall iv | valid_interval(s, iv) :: length(iv) <= n
"""


def test_a_lifted_function_is_still_inlined_where_its_body_bounds_a_quantifier():
    program = parse_program(WINDOW, "w.dfy")
    sites = sites_of(program)
    build = TestBuild(lifted=frozenset(n for s in sites for n in s.names), sites=frozenset(s.key for s in sites))
    view = lifted_view(program, build)
    [c] = select(view)
    got = checks_of(c, EmitContext.of(view))
    # `forall iv | valid_interval(s, iv)` has bounds only through valid_interval's body; the ghost out-param
    # is checked as `exists best' :: ...`, bounded the same way
    assert got.unchecked == () and len(got.ensures) == 2

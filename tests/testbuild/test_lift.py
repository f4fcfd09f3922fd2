"""The test build of real programs, decided by the real Dafny: what it lifts, what it keeps ghost and why,
the copy's layout (a project's files and dfyconfig.toml), the cache, and the fall-back to the program as
written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dspec2test.model.program import load_program
from dspec2test.testbuild import TestBuild, lift
from dspec2test.testbuild import build as build_module
from dspec2test.testbuild.settle import GiveUp
from dspec2test.toolchain import Toolchain

GHOST = Path(__file__).resolve().parents[1] / "fixtures" / "ghost"

CLASS = """class Counter {
  var n: int
  ghost var history: seq<int>
  ghost var total: int
  ghost predicate Valid() reads this { |history| == n && total >= 0 }
  constructor() ensures Valid() && history == [] { n := 0; history := []; total := 0; }
  method Add(x: nat) modifies this requires Valid() ensures Valid() && history == old(history) + [x] {
    ghost var before := history;
    history := before + [x];
    n := n + 1;
    Reset();
  }
  lemma Reset() modifies this { total := 0; }
}
"""


def _lift(path: Path, tmp_path: Path) -> TestBuild:
    loaded = load_program(str(path))
    assert not isinstance(loaded, type(None))
    return lift(loaded, "py", tmp_path / "cache")


@pytest.mark.dafny
def test_the_buffer_lifts_its_abstract_state_and_invariant(tmp_path):
    got = _lift(GHOST / "buffer.dfy", tmp_path)
    assert got.lifted == {"Buffer.Contents", "Buffer.Repr", "Buffer.Valid"} and got.kept == ()
    [copy] = got.files
    original = (GHOST / "buffer.dfy").read_text()
    assert original.splitlines()[6:10] == ["  ghost var Contents: seq<int>", "  ghost var Repr: set<object>", "",
                                           "  ghost predicate Valid()"]
    assert copy.text.splitlines()[6:10] == ["        var Contents: seq<int>", "        var Repr: set<object>", "",
                                            "        predicate Valid()"]
    assert len(copy.text) == len(original)
    placed = got.place(tmp_path / "build")
    assert Path(placed.inputs[0]).read_text() == copy.text


@pytest.mark.dafny
def test_what_dafny_cannot_compile_stays_ghost_with_its_reason(tmp_path):
    square = _lift(GHOST / "square.dfy", tmp_path)
    assert square.as_written and [k.name for k in square.kept] == ["IsSquare"]
    assert "quantifiers in non-ghost contexts must be compilable" in square.kept[0].reason
    program = tmp_path / "counter.dfy"
    program.write_text(CLASS)
    counter = _lift(program, tmp_path)
    # total is assigned in a lemma: ghost it stays, and so does Valid, which reads it; the ghost local that
    # history is assigned from is lifted with it
    assert counter.lifted == {"Counter.history", "Counter.Add.before"}
    assert [(k.name, k.line) for k in counter.kept] == [("Counter.total", 4), ("Counter.Valid", 5)]
    assert "assignment to non-ghost field" in counter.kept[0].reason and "counter.dfy:13" in counter.kept[0].reason
    assert "ghost" in counter.kept[1].reason


@pytest.mark.dafny
def test_a_projects_files_and_options_are_copied_in_their_layout(tmp_path):
    root = tmp_path / "proj"
    (root / "src" / "lib").mkdir(parents=True)
    (root / "dfyconfig.toml").write_text('includes = ["src/**/*.dfy"]\n[options]\nfunction-syntax = 3\n')
    (root / "src" / "lib" / "fib.dfy").write_text("function Fib(n: nat): nat { if n < 2 then n else Fib(n - 1) + Fib(n - 2) }\n")
    (root / "src" / "main.dfy").write_text('include "lib/fib.dfy"\nmethod F(n: nat) returns (r: nat) ensures r == Fib(n) { r := Fib(n); }\n'
                                           .replace("r := Fib(n);", "r := if n < 2 then n else 1;"))
    got = _lift(root / "src" / "main.dfy", tmp_path)
    assert got.lifted == {"Fib"}, got.warning
    assert sorted(f.path for f in got.files) == ["dfyconfig.toml", "src/lib/fib.dfy", "src/main.dfy"]
    assert "function method Fib" in next(f.text for f in got.files if f.path == "src/lib/fib.dfy")
    assert got.inputs == ("dfyconfig.toml",)


@pytest.mark.dafny
def test_a_program_version_asks_dafny_once_however_it_is_named(tmp_path, monkeypatch):
    first = _lift(GHOST / "fib.dfy", tmp_path)
    assert first.lifted == {"Fib"}

    def no_dafny(*args, **kwargs):
        raise AssertionError("dafny asked again")

    monkeypatch.setattr(build_module, "ask", no_dafny)
    assert _lift(GHOST / "fib.dfy", tmp_path) == first
    monkeypatch.chdir(GHOST)
    again = lift(load_program("fib.dfy"), "py", tmp_path / "cache")
    at = (GHOST / "fib.dfy").read_text().index("ghost function Fib")
    assert again.lifted == first.lifted and again.sites == {("fib.dfy", at)}


def test_a_program_without_ghost_state_asks_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(build_module, "ask", lambda *a, **k: pytest.fail("dafny asked"))
    program = tmp_path / "plain.dfy"
    program.write_text("method M(x: int) returns (r: int) ensures r > x { r := x + 1; }\n")
    assert _lift(program, tmp_path) == TestBuild()


def test_without_dafny_the_program_is_tested_as_written_with_a_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(build_module, "find_toolchain", lambda: Toolchain(None, None))
    got = _lift(GHOST / "fib.dfy", tmp_path)
    assert got.as_written and got.lifted == frozenset()
    assert got.warning is not None and "dafny not found" in got.warning.message
    assert os.path.basename(got.warning.file) == "fib.dfy"


def test_a_version_no_copy_of_which_builds_is_not_asked_about_again(tmp_path, monkeypatch):
    calls = []

    def exhausted(copy, sites):
        calls.append(len(sites))
        raise GiveUp("no build found in 16 runs of dafny", lasting=True)

    monkeypatch.setattr(build_module, "settle", exhausted)
    first, again = _lift(GHOST / "fib.dfy", tmp_path), _lift(GHOST / "fib.dfy", tmp_path)
    assert calls == [1] and first == again and first.as_written
    assert first.warning is not None and "no build found in 16 runs of dafny" in first.warning.message


def test_a_dafny_that_could_not_answer_is_asked_again_next_time(tmp_path, monkeypatch):
    calls = []

    def unanswered(copy, sites):
        calls.append(len(sites))
        raise GiveUp("dafny did not translate the copy within 300 s")

    monkeypatch.setattr(build_module, "settle", unanswered)
    _lift(GHOST / "fib.dfy", tmp_path), _lift(GHOST / "fib.dfy", tmp_path)
    assert calls == [1, 1]

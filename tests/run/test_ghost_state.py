"""Ghost state made visible (issue 41): classes in the dynamic-frames idiom (ghost Contents and Repr, a
ghost Valid(), a constructor that ensures only `Valid() && fresh(Repr)`), a ghost function as the oracle,
and a ghost predicate no test can evaluate, run with the real Dafny and default options. Each bug is
also run with the test build turned off, where it passes unseen: the test build is what catches it."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions
from dspec2test import pipeline
from dspec2test.cli import main
from dspec2test.records import Status
from dspec2test.run import RunOptions

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ghost"
_FOLDER = Path()

pytestmark = pytest.mark.dafny


_RUNS: dict[tuple[str, bool, bool], pipeline.TestedProgram] = {}


@pytest.fixture(scope="module", autouse=True)
def _folder(tmp_path_factory):
    """Where the programs are copied and run (each once per module: a real Dafny run is slow)."""
    global _FOLDER
    _FOLDER = tmp_path_factory.mktemp("ghost")
    yield
    _RUNS.clear()


def outcome(name: str, test_build: bool = True, simplify: bool = True) -> pipeline.TestedProgram:
    """The program run as `dspec2test run` runs it, with or without its test build (and the solver's value
    checks, which see some ghost results by another way)."""
    if (name, test_build, simplify) not in _RUNS:
        program = _FOLDER / f"{name}.dfy"
        shutil.copy(FIXTURES / program.name, program)
        options = GenerateOptions(test_build=test_build, simplify=simplify)
        _RUNS[name, test_build, simplify] = pipeline.run_program(str(program), options, RunOptions(target="py"))
    return _RUNS[name, test_build, simplify]


def statuses(name: str, member: str, test_build: bool = True, simplify: bool = True) -> list[Status]:
    return [v.status for v in outcome(name, test_build, simplify).result.verdicts if v.method == member]


def unchecked(name: str, member: str, test_build: bool = True) -> list[str]:
    """The clause texts a member's tests cannot check, as the manifest lists them."""
    entry = next(m for m in outcome(name, test_build).manifest["methods"] if m["name"] == member)
    return [u["text"] for u in entry["unchecked"]]


@pytest.mark.parametrize("name", ["fib", "buffer", "stack", "queue"])
def test_the_correct_versions_pass_every_test(name):
    verdicts = outcome(name).result.verdicts
    ran = [v for v in verdicts if v.scenario]  # a member with no test at all has one verdict, scenario 0
    assert ran and all(v.status is Status.PASSED for v in ran), [(v.test, v.status, v.message) for v in ran]


def test_a_ghost_function_oracle_catches_a_wrong_result():
    assert Status.FAILED in statuses("fib_bug", "ComputeFib")
    assert unchecked("fib_bug", "ComputeFib") == []
    # Fib ghost and no value check: unseen
    assert Status.FAILED not in statuses("fib_bug", "ComputeFib", test_build=False, simplify=False)


def test_the_buffers_append_and_length_check_their_ghost_clauses():
    for member in ("Buffer.Append", "Buffer.Length"):
        before, after = unchecked("buffer", member, test_build=False), unchecked("buffer", member)
        assert len(after) < len(before), (member, before, after)
        assert all("fresh" in text for text in after), after  # fresh() alone stays ghost: allocation
    tests = outcome("buffer").result
    append = next(v for v in tests.verdicts if v.method == "Buffer.Append")
    assert append.status is Status.PASSED


def test_the_manifest_counts_fewer_unchecked_clauses_in_the_buffer():
    def count(test_build: bool) -> int:
        return sum(len(m["unchecked"]) for m in outcome("buffer", test_build).manifest["methods"])

    assert count(True) < count(False)
    assert count(True) == 2  # fresh(Repr) of the constructor and fresh(Repr - old(Repr)) of Append


def test_a_bug_reachable_from_a_fresh_object_is_caught():
    assert Status.FAILED in statuses("buffer_bug_length", "Buffer.Length")
    assert Status.FAILED not in statuses("buffer_bug_length", "Buffer.Length", test_build=False, simplify=False)
    assert Status.FAILED in statuses("stack_bug", "Stack.Push")  # it breaks Valid()
    assert Status.FAILED not in statuses("stack_bug", "Stack.Push", test_build=False, simplify=False)


def test_a_bug_behind_calls_that_fill_the_object_is_caught():
    # the front and the back differ only in a queue of two different elements: the calls that make one
    # are chosen for what the object then holds
    assert Status.FAILED in statuses("queue_bug", "Queue.Dequeue")
    assert Status.FAILED not in statuses("queue_bug", "Queue.Dequeue", test_build=False, simplify=False)


def test_an_all_unchecked_member_is_not_tested_not_passed():
    got = outcome("beyond").result.verdicts
    assert got and {v.status for v in got} == {Status.NOT_TESTED}
    assert got[0].message.startswith("ran; none of its 1 clause can be checked at run time: ensures (line 9) "
                                     "HasLarger(r): HasLarger is ghost in the test build: quantifiers in non-ghost")


def test_get_returning_the_wrong_slot_is_caught():
    # it needs a buffer of several elements: made by calls of Append, chosen for what they leave in it
    assert Status.FAILED in statuses("buffer_bug_get", "Buffer.Get")
    assert Status.FAILED not in statuses("buffer_bug_get", "Buffer.Get", test_build=False, simplify=False)


def test_a_grow_path_that_loses_the_first_element_is_caught():
    assert Status.FAILED in statuses("buffer_bug_grow", "Buffer.Append")
    assert Status.FAILED not in statuses("buffer_bug_grow", "Buffer.Append", test_build=False, simplify=False)


def test_generate_writes_the_test_build_beside_the_tests_and_run_tests_uses_it(tmp_path):
    program = tmp_path / "fib_bug.dfy"
    shutil.copy(FIXTURES / program.name, program)
    tests = tmp_path / "out" / "fib_bug.tests.dfy"
    assert main(["generate", str(program), "-o", str(tests)], io.StringIO(), io.StringIO()) == 0
    text = tests.read_text()
    assert "// @dspec2test-build lifted" in text and "Fib(n)" in text
    copy = (tmp_path / "out" / "fib_bug.tests.build" / "fib_bug.dfy").read_text()
    assert copy == program.read_text().replace("ghost function Fib", "      function Fib")
    assert program.read_text().count("ghost function Fib") == 1  # the user's file as it was
    out = io.StringIO()
    assert main(["run", str(program), "--tests", str(tests)], out, io.StringIO()) == 1  # the wrong Fib is caught
    assert "broke r == Fib(n)" in out.getvalue()

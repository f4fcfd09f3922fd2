"""Generated tests reused between runs (gencache.py): a second run on the same contract takes a member's
tests from the cache, the same tests; a changed contract, a changed option or a changed dependency is a
miss; an edit inside a method's body is not; a cache entry that cannot be read is a miss, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dspec2test.gencache import Cache, hits_line, keepable, program_fingerprint
from dspec2test.records import Limitation, MemberResult
from dspec2test.dafny.parser import parse_file
from dspec2test.generate import GenerateOptions, generate

PROGRAM = """\
function Twice(x: int): int { 2 * x }

method Double(x: int) returns (r: int)
  requires x >= 0
  ensures r == Twice(x)
{
  r := x + x;
}

method Abs(x: int) returns (r: int)
  ensures r >= 0
  ensures r == x || r == -x
{
  if x < 0 { r := -x; } else { r := x; }
}
"""


def gen(tmp_path: Path, text: str = PROGRAM, **options):
    program = tmp_path / "prog.dfy"
    program.write_text(text)
    return generate(str(program), GenerateOptions(cache_dir=str(tmp_path / "cache"), isolate=False, probe=False,
                                                  **options))


def entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").rglob("*.json"))


def test_a_second_run_takes_every_members_tests_from_the_cache(tmp_path):
    first = gen(tmp_path)
    assert first.cached == () and first.looked_up == 2 and len(entries(tmp_path)) == 2
    second = gen(tmp_path)
    assert set(second.cached) == {"Double", "Abs"} and second.looked_up == 2
    assert second.tests_text == first.tests_text and second.cases == first.cases
    assert second.manifest == first.manifest and second.diagnostics == first.diagnostics


def test_an_edit_inside_a_method_body_keeps_the_cache(tmp_path):
    gen(tmp_path)
    again = gen(tmp_path, PROGRAM.replace("r := x + x;", "r := 3 * x - x;"))
    assert set(again.cached) == {"Double", "Abs"}


@pytest.mark.parametrize("edit, misses", [
    (("ensures r >= 0\n", "ensures r >= 0 && r >= x\n"), {"Abs"}),  # Abs's contract, not Double's
    (("{ 2 * x }", "{ x + x }"), {"Double", "Abs"}),  # a function a contract reaches: the program
    (("method Abs", "\nmethod Abs"), {"Abs"}),  # Abs moved down a line: its tests name its lines
])
def test_a_changed_contract_or_dependency_misses(tmp_path, edit, misses):
    gen(tmp_path)
    changed = gen(tmp_path, PROGRAM.replace(*edit))
    assert {"Double", "Abs"} - set(changed.cached) == misses
    assert len(entries(tmp_path)) == 2 + len(misses)


def test_a_changed_option_misses(tmp_path):
    gen(tmp_path)
    assert gen(tmp_path, repeat=2).cached == ()
    assert gen(tmp_path, bva=100).cached == ()
    assert set(gen(tmp_path, jobs=4).cached) == {"Double", "Abs"}  # how the work is shared is not in the key


@pytest.mark.parametrize("damage", ["not json {", '{"format": 1}', "[]", '{"format": 1, "key": "%s", "tests": 3}'])
def test_an_entry_that_cannot_be_read_is_a_miss_and_is_written_anew(tmp_path, damage):
    first = gen(tmp_path)
    for path in entries(tmp_path):
        path.write_text(damage.replace("%s", path.stem))
    again = gen(tmp_path)
    assert again.cached == () and again.tests_text == first.tests_text
    assert all(json.loads(p.read_text())["key"] == p.stem for p in entries(tmp_path))  # repaired
    assert set(gen(tmp_path).cached) == {"Double", "Abs"}


def member(**fields) -> MemberResult:
    return MemberResult("M", "m.dfy", 1, "method", True, **fields)


def test_a_cache_that_cannot_be_written_leaves_the_run_as_it_was(tmp_path):
    (tmp_path / "cache").write_text("a file where the folder should be")
    result = gen(tmp_path)
    assert result.cases and result.cached == ()
    assert not Cache(tmp_path / "cache").store("ab" * 32, member())


def test_a_stopped_member_is_not_kept(tmp_path):
    cache = Cache(tmp_path / "cache")
    assert not keepable(member(stopped="took longer than 1 s"))
    assert not keepable(member(unsupported=(Limitation("solver failure (signal 9)", 3, "generation failed"),)))
    stopped = "generation stopped: took longer than 120 s; stopped (member-timeout)"
    assert not keepable(member(unsupported=(Limitation(stopped, 3, stopped),)))
    assert keepable(member(unsupported=(Limitation("multiset display", 3, "unsupported: multiset display"),)))
    assert cache.load("0" * 64) is None


def test_the_fingerprint_ignores_positions_and_compiled_bodies_only(tmp_path):
    def fingerprint(text: str) -> str:
        path = tmp_path / "p.dfy"
        path.write_text(text)
        return program_fingerprint(parse_file(str(path)))

    base = fingerprint(PROGRAM)
    assert fingerprint("\n\n" + PROGRAM) == base
    assert fingerprint(PROGRAM.replace("r := x + x;", "r := x * 2;")) == base
    lemma = "lemma L(x: int) ensures x + 0 == x { }\n"
    assert fingerprint(PROGRAM + lemma) != fingerprint(PROGRAM + lemma.replace("{ }", "{ assume false; }"))
    assert fingerprint(PROGRAM.replace("ensures r >= 0\n", "")) == base  # a top-level method's own contract
    cls = "class C { var n: int  method Inc() modifies this ensures n == old(n) + 1 { n := n + 1; } }\n"
    assert fingerprint(PROGRAM + cls) != fingerprint(PROGRAM + cls.replace("+ 1 {", "+ 2 {"))  # builds objects
    assert fingerprint(PROGRAM + cls) == fingerprint(PROGRAM + cls.replace("n := n + 1;", "n := 1 + n;"))


def test_hits_line():
    assert hits_line(["A"], 2) == "tests of 1 of 2 members reused from the cache (generation skipped)"
    assert hits_line([], 0) == ""

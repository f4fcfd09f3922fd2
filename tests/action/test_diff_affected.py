"""Diff parsing (git's and GitHub's hunks), affected members, file selection and shards."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from dspec2test.action.affected import Affected, affected_members, change_scope
from dspec2test.action.diff import ChangeKind, FileChange, Git, added_lines, commentable_lines, parse_unified_diff
from dspec2test.action.members import MemberInfo, read_members
from dspec2test.action.select import matches, selected, shard
from tests.action.helpers import commit, make_repo

PROG = "".join(f"line {i}\n" for i in range(1, 21))


def test_git_diff_of_real_commits_modify_add_delete_rename(tmp_path):
    repo, base, head = make_repo(
        tmp_path,
        {"a.dfy": PROG, "gone.dfy": "x\n", "old/name.dfy": "".join(f"keep {i}\n" for i in range(30))},
        {"a.dfy": PROG.replace("line 5\n", "line five\n").replace("line 12\n", ""),
         "b.dfy": "new\nfile\n", "gone.dfy": None},
    )
    git_ = Git(repo)
    git_.run("mv", "old/name.dfy", "new_name.dfy")
    text = (repo / "new_name.dfy").read_text().replace("keep 3\n", "kept 3\n")
    head = commit(repo, {"new_name.dfy": text}, "rename")
    changes = {c.path: c for c in git_.diff(base, head)}
    assert changes["a.dfy"].kind is ChangeKind.MODIFIED
    assert 5 in changes["a.dfy"].touched
    assert {11, 12} & changes["a.dfy"].touched  # the deletion after new line 11
    assert changes["b.dfy"].kind is ChangeKind.ADDED
    assert changes["gone.dfy"].kind is ChangeKind.DELETED
    assert changes["new_name.dfy"].kind is ChangeKind.RENAMED
    assert changes["new_name.dfy"].old_path == "old/name.dfy" and changes["new_name.dfy"].touched == {4}


def test_working_tree_diff_includes_uncommitted_changes(tmp_path):
    repo, base, head = make_repo(tmp_path, {"a.dfy": PROG}, {})
    (repo / "a.dfy").write_text(PROG.replace("line 2\n", "line two\n"))
    assert [(c.path, c.touched) for c in Git(repo).diff("HEAD", None)] == [("a.dfy", frozenset({2}))]


PATCH = """@@ -3,7 +3,8 @@ method M()
 context 3
-old 4
+new 4
+new 5
 context 6
 context 7
 context 8
\\ No newline at end of file
@@ -20,2 +21,2 @@
 c21
-o22
+n22"""


def test_commentable_lines_are_right_side_hunk_lines():
    assert commentable_lines(PATCH) == {3, 4, 5, 6, 7, 8, 21, 22}
    assert added_lines(PATCH) == {4, 5, 22}
    assert commentable_lines(None) == frozenset()


def test_unified_diff_pure_deletion_touches_neighbours():
    text = "diff --git a/x.dfy b/x.dfy\n--- a/x.dfy\n+++ b/x.dfy\n@@ -7,2 +6,0 @@\n-a\n-b\n"
    (change,) = parse_unified_diff(text)
    assert change.touched == {6, 7}


def member(name, line, end, kind="method", contract=(), body=(), file="p.dfy", testable=True):
    return MemberInfo(file, name, kind, line, end, bool(contract) or testable, testable,
                      frozenset(contract), frozenset(body))


def test_affected_by_lines_by_new_file_and_by_changed_functions():
    files = {
        "p.dfy": [member("Helper", 1, 3, "function", body=("x",), testable=False),
                  member("Pred", 5, 7, "predicate", body=("Helper",), testable=False),
                  member("A", 10, 15, contract=("r",)),
                  member("B", 20, 25, contract=("Pred", "r")),
                  member("C", 30, 35, contract=("r",)),
                  member("Lemma", 40, 44, "lemma", contract=("r",), testable=False)],
        "q.dfy": [member("D", 1, 5, contract=("Pred",), file="q.dfy"), member("E", 6, 9, contract=("x",), file="q.dfy")],
        "n.dfy": [member("N", 1, 3, contract=("r",), file="n.dfy")],
    }
    changes = [FileChange("p.dfy", ChangeKind.MODIFIED, "p.dfy", frozenset({2, 12, 42})),
               FileChange("n.dfy", ChangeKind.ADDED),
               FileChange("gone.dfy", ChangeKind.DELETED, "gone.dfy")]
    found = affected_members(changes, lambda path: files[path], lambda: ["p.dfy", "q.dfy", "n.dfy"])
    reasons = {(a.member.file, a.member.name): a.reason for a in found}
    assert reasons == {
        ("p.dfy", "A"): "changed line 12",
        ("p.dfy", "B"): "contract uses Pred (which uses changed Helper)",
        ("q.dfy", "D"): "contract uses Pred (which uses changed Helper)",
        ("n.dfy", "N"): "new file",
    }


def test_callers_through_bodies_transitively_in_any_file_and_nothing_else():
    files = {
        "p.dfy": [member("Helper", 1, 4, body=("x",), testable=False),  # no contract: never tested itself
                  member("Mid", 6, 10, contract=("r",), body=("Helper", "x")),
                  member("Top", 12, 16, contract=("r",), body=("Mid",)),
                  member("Limit", 18, 18, "const", testable=False),
                  member("Bounded", 20, 24, contract=("r",), body=("Limit",)),
                  member("Alone", 26, 30, contract=("r",), body=("x",))],
        "q.dfy": [member("Far", 1, 5, contract=("r",), body=("Top",), file="q.dfy"),
                  member("Other", 6, 9, contract=("Helper",), file="q.dfy", testable=True)],
    }
    changes = [FileChange("p.dfy", ChangeKind.MODIFIED, "p.dfy", frozenset({2, 18}))]
    found = affected_members(changes, lambda path: files[path], lambda: ["p.dfy", "q.dfy"])
    assert {(a.member.file, a.member.name): a.reason for a in found} == {
        ("p.dfy", "Mid"): "calls changed Helper",
        ("p.dfy", "Top"): "calls Mid (which uses changed Helper)",
        ("p.dfy", "Bounded"): "uses changed Limit",
        ("q.dfy", "Far"): "calls Top (which uses Mid -> changed Helper)",
        ("q.dfy", "Other"): "contract uses changed Helper",
    }


def test_renamed_file_is_read_at_its_new_path():
    seen = []
    changes = [FileChange("new.dfy", ChangeKind.RENAMED, "old.dfy", frozenset({2}))]
    found = affected_members(changes, lambda p: seen.append(p) or [member("M", 1, 4, file=p)])
    assert seen == ["new.dfy"] and [a.member.file for a in found] == ["new.dfy"]


def test_globs():
    assert matches("a.dfy", ["**/*.dfy"]) and matches("src/x/a.dfy", ["**/*.dfy"])
    assert matches("src/a.dfy", ["src/*.dfy"]) and not matches("src/x/a.dfy", ["src/*.dfy"])
    assert matches("src/x/a.dfy", ["src"]) and matches("src/x/a.dfy", ["./src/"])
    assert not matches("srcx/a.dfy", ["src"])
    assert selected("src/a.dfy", ["**/*.dfy"], include=["src/**"], exclude=["src/vendor/**"])
    assert not selected("src/vendor/a.dfy", ["**/*.dfy"], include=["src/**"], exclude=["src/vendor/**"])
    assert not selected("README.md", ["**"])


@given(st.lists(st.text(min_size=1, max_size=5), unique=True, max_size=30), st.integers(1, 6))
def test_shards_partition_the_members_evenly_and_deterministically(items, n):
    slices = [shard(items, k, n) for k in range(1, n + 1)]
    assert sorted(x for s in slices for x in s) == sorted(items)
    assert max(map(len, slices)) - min(map(len, slices)) <= 1
    assert shard(list(reversed(items)), 1, n) == slices[0]


def test_only_files_that_mention_a_changed_name_are_parsed_transitively():
    texts = {"p.dfy": "Helper", "q.dfy": "calls Mid", "r.dfy": "calls Far", "s.dfy": "nothing here"}
    files = {"p.dfy": [member("Helper", 1, 4, testable=False), member("Mid", 6, 9, contract=("r",), body=("Helper",))],
             "q.dfy": [member("Far", 1, 5, contract=("r",), body=("Mid",), file="q.dfy")],
             "r.dfy": [member("Farther", 1, 5, contract=("r",), body=("Far",), file="r.dfy")],
             "s.dfy": [member("Else", 1, 5, contract=("r",), file="s.dfy")]}
    parsed = []

    def read(path):
        parsed.append(path)
        return files[path]

    changes = [FileChange("p.dfy", ChangeKind.MODIFIED, "p.dfy", frozenset({2}))]
    found = affected_members(changes, read, lambda: list(texts),
                             lambda path, names: any(n in texts[path] for n in names))
    assert [a.member.name for a in found] == ["Mid", "Far", "Farther"]
    assert parsed == ["p.dfy", "q.dfy", "r.dfy"]  # s.dfy mentions no changed name: never parsed


def test_proved_lemmas_are_counted_not_tested_and_lemmas_taken_on_trust_are_tested_through_their_contract():
    text = ("function F(x: int): int { x }\n"
            "lemma L(x: int) requires x > 0 ensures F(x) > 0 {}\n"
            "lemma {:axiom} A(x: int) requires x > 0 ensures F(x) > 0\n"
            "lemma NoEnsures(x: int) requires x > 0 {}\n"
            "ghost function G(x: int): int { x }\n"
            "method M(x: int) returns (r: int) ensures r == G(x) { r := L2(x); }\n"
            "function L2(x: int): int { x }\n")
    found, _ = read_members("p.dfy", text)
    assert [m.name for m in found if m.testable] == ["A", "M"]
    assert [m.name for m in found if m.proved] == ["L", "NoEnsures"]
    assert {m.name for m in found if m.ghost} == {"L", "A", "NoEnsures", "G"}
    changes = [FileChange("p.dfy", ChangeKind.MODIFIED, "p.dfy", frozenset({1, 2}))]
    scope = change_scope(changes, lambda path: found, lambda: ["p.dfy"])
    assert [(a.member.name, a.reason) for a in scope.affected] == [("A", "contract uses changed F")]
    assert [m.name for m in scope.proved] == ["L"]
    # a ghost function changes no runtime behaviour: M, whose contract uses G, is not selected
    changes = [FileChange("p.dfy", ChangeKind.MODIFIED, "p.dfy", frozenset({5}))]
    assert change_scope(changes, lambda path: found, lambda: ["p.dfy"]).affected == []


def test_names_are_resolved_per_module_so_a_namesake_in_another_module_is_not_a_caller():
    text = ("module A { function Size(): int { 1 } }\n"
            "module B { function Size(): int { 2 }\n"
            "  method UsesOwn() returns (r: int) ensures r > 0 { r := Size(); } }\n"
            "module C { import A\n"
            "  method UsesA() returns (r: int) ensures r > 0 { r := A.Size(); } }\n")
    found, _ = read_members("p.dfy", text)
    changes = [FileChange("p.dfy", ChangeKind.MODIFIED, "p.dfy", frozenset({1}))]
    got = change_scope(changes, lambda path: found, lambda: ["p.dfy"]).affected
    assert [(a.member.name, a.reason) for a in got] == [("C.UsesA", "calls changed Size")]


def test_a_module_name_brings_in_files_only_for_members_of_abstract_modules():
    """A file that imports the changed member's module but names none of the changed members cannot use
    them, unless the module is abstract (a refinement inherits its members without naming them)."""
    texts = {"p.dfy": "", "imports.dfy": "import Lib", "refines.dfy": "module R refines Abs"}
    from dataclasses import replace as with_
    files = {"p.dfy": [member("Lib.Helper", 1, 4, testable=False),
                       with_(member("Abs.Step", 6, 9, testable=False), abstract=True)],
             "imports.dfy": [member("User", 1, 5, contract=("r",), body=("Lib.Helper",), file="imports.dfy")],
             "refines.dfy": [member("R.Step", 1, 5, contract=("r",), body=("Abs.Step",), file="refines.dfy")]}
    parsed = []

    def read(path):
        parsed.append(path)
        return files[path]

    changes = [FileChange("p.dfy", ChangeKind.MODIFIED, "p.dfy", frozenset({2, 7}))]
    found = affected_members(changes, read, lambda: list(texts),
                             lambda path, names: any(n in texts[path] for n in names))
    assert parsed == ["p.dfy", "refines.dfy"]
    assert [a.member.name for a in found] == ["R.Step"]


def test_a_lemma_an_abstract_module_declares_without_a_proof_is_no_trust_for_its_proved_namesakes():
    """dafny-replay's pattern: `abstract module Domain { lemma StepPreservesInv(..) }`, proved in each module
    refining it. Trust was by short name, so every StepPreservesInv was taken on trust and listed as
    not-tested instead of counted as proved; an axiom keeps its own name's trust, not its namesakes'."""
    text = ("abstract module Domain {\n"
            "  function Next(x: int): int\n"
            "  lemma StepPreservesInv(x: int) requires x > 0 ensures Next(x) > 0\n"
            "}\n"
            "module Todo refines Domain {\n"
            "  function Next(x: int): int { x + 1 }\n"
            "  lemma StepPreservesInv(x: int) requires x > 0 ensures Next(x) > 0 {}\n"
            "}\n"
            "module Other {\n"
            "  function F(x: int): int { x }\n"
            "  lemma {:axiom} Same(x: int) requires x > 0 ensures F(x) > 0\n"
            "}\n"
            "module Third {\n"
            "  function F(x: int): int { x }\n"
            "  lemma Same(x: int) requires x > 0 ensures F(x) > 0 {}\n"
            "}\n")
    found, _ = read_members("p.dfy", text)
    proved = {m.name for m in found if m.proved}
    assert {"Todo.StepPreservesInv", "Third.Same"} <= proved
    assert "Other.Same" not in proved and "Other.Same" in {m.name for m in found if m.testable}


def test_a_member_inherited_by_refinement_is_listed_at_the_file_its_lines_are_of():
    """TodoMultiCollaboration refines a spec written in another file: its Dispatch's lines are those of the
    spec's file, and the results file (and replay's rows) said the refining file with them."""
    from dspec2test.action.choose import Choice
    inherited = replace(member("Todo.Dispatch", 131, 140, contract=("r",), file="todo.dfy"), origin="kernels/spec.dfy")
    own = member("Todo.Own", 3, 5, contract=("r",), file="todo.dfy")
    choice = Choice(affected=[Affected(inherited, "changed line 131"), Affected(own, "changed line 3")])
    assert [(r["file"], r["line"]) for r in choice.member_records()] == [("kernels/spec.dfy", 131), ("todo.dfy", 3)]


def test_a_constructor_with_a_contract_is_a_member_a_change_selects():
    text = ("module M {\n"
            "  class Buffer {\n"
            "    var count: nat\n"
            "    constructor (c: nat) ensures count == 0 { count := 0; }\n"
            "    constructor Init(c: nat) ensures count == c { count := c; }\n"
            "    constructor Bare() { count := 0; }\n"
            "  }\n"
            "}\n")
    found, _ = read_members("p.dfy", text)
    assert {m.name for m in found if m.testable} == {"M.Buffer._ctor", "M.Buffer.Init"}
    changes = [FileChange("p.dfy", ChangeKind.MODIFIED, "p.dfy", frozenset({4, 5, 6}))]
    scope = change_scope(changes, lambda path: found, lambda: ["p.dfy"])
    assert [a.member.name for a in scope.affected] == ["M.Buffer._ctor", "M.Buffer.Init"]


def test_a_contract_changed_in_an_abstract_module_selects_the_member_that_refines_it(tmp_path):
    # Impl.Inc declares its body again; its ensures is Spec's: a change there is a change of its contract
    from dspec2test.action.members import ProgramMembers
    (tmp_path / "Spec.dfy").write_text("abstract module Spec {\n  function Inc(x: int): (r: int)\n"
                                       "    ensures r > x\n}\n")
    (tmp_path / "Impl.dfy").write_text('include "Spec.dfy"\nmodule Impl refines Spec {\n'
                                       "  function Inc(x: int): (r: int) { x + 1 }\n"
                                       "  function Other(x: int): (r: int) ensures r == x { x }\n}\n")
    read = ProgramMembers(tmp_path)

    def members(path: str):
        return read(path, (tmp_path / path).read_text())[0]

    changes = [FileChange("Spec.dfy", ChangeKind.MODIFIED, "Spec.dfy", frozenset({3}))]
    got = change_scope(changes, members, lambda: ["Spec.dfy", "Impl.dfy"]).affected
    assert [(a.member.name, a.reason) for a in got] == [("Impl.Inc", "contract uses changed Inc")]

"""A file's program as Dafny sees it: its include closure, or the dfyconfig.toml project that holds it;
names across modules and files, generic members, externs. Parse-level: no Dafny run."""

from __future__ import annotations

from pathlib import Path

from dspec2test.dafny.printer import print_expr, print_type
from dspec2test.emit.tests_file import callee
from dspec2test.errors import Diagnostic, Severity
from dspec2test.model.contracts import select
from dspec2test.model.exports import exported_only
from dspec2test.model.externs import without_code
from dspec2test.model.program import Sources, load_program

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "projects"


def loaded(path: Path, **kw):
    got = load_program(str(path), Sources(base=PROJECTS), **kw)
    assert not isinstance(got, Diagnostic), got
    return got


def test_an_include_chain_is_one_program_read_depth_first():
    got = loaded(PROJECTS / "includes" / "main.dfy")
    assert [Path(p).name for p in got.paths] == ["main.dfy", "stats.dfy", "bytes.dfy", "seqs.dfy"]
    assert got.inputs == (str(PROJECTS / "includes" / "main.dfy"),) and got.project is None
    assert not got.diagnostics


def test_members_are_selected_from_the_named_file_with_names_of_other_files_resolved():
    got = loaded(PROJECTS / "includes" / "main.dfy")
    contracts = {c.name: c for c in select(got.program, ())}
    assert set(contracts) == {"Main.Clamp", "Main.Top", "Main.Sum", "Main.Occurrences"}
    # B.uint8 is the newtype of another file, named through an import alias
    assert print_type(contracts["Main.Clamp"].outputs[0].type) == "B.uint8"


def test_a_generic_member_is_called_at_int_and_says_so():
    got = loaded(PROJECTS / "includes" / "lib" / "seqs.dfy")
    contracts = {c.name: c for c in select(got.program, ())}
    index_of = contracts["Seqs.IndexOf"]
    assert index_of.instantiated() == {"T": "int"}
    assert callee(index_of) == "Seqs.IndexOf<int>"
    assert print_type(index_of.params[0].type) == "seq<int>"


def test_a_type_parameter_bounded_by_a_trait_blocks_the_member_with_its_reason(tmp_path):
    (tmp_path / "g.dfy").write_text(
        "trait Ord { }\nmethod Pick<T extends Ord>(a: T, b: T) returns (r: T) ensures r == a || r == b { r := a; }\n")
    got = load_program(str(tmp_path / "g.dfy"))
    (pick,) = select(got.program, ())
    assert pick.blocked.startswith("type parameter bounded by a trait (T extends Ord)")


def test_type_parameters_in_clauses_are_the_instantiation(tmp_path):
    (tmp_path / "h.dfy").write_text(
        "function C<T(==)>(s: seq<T>, x: T): nat { if |s| == 0 then 0 else C(s[1..], x) }\n"
        "method M<T(==)>(s: seq<T>, x: T) returns (n: nat) ensures n == C<T>(s, x) ensures forall y: T :: y in s ==> true\n"
        "{ n := 0; }\n")
    (m,) = select(load_program(str(tmp_path / "h.dfy")).program, ())
    assert [print_expr(cl.expr) for cl in m.ensures] == ["n == C<int>(s, x)", "forall y: int :: y in s ==> true"]


def test_a_project_file_joins_files_that_do_not_include_each_other():
    got = loaded(PROJECTS / "config" / "src" / "App.dfy")
    assert got.project is not None and got.inputs == (str(PROJECTS / "config" / "dfyconfig.toml"),)
    assert sorted(Path(p).name for p in got.paths) == ["App.dfy", "Clock.dfy", "Helper.dfy"]
    names = {c.name for c in select(got.program, ())}
    assert names == {"App.Scale", "App.Vowels", "App.Stamp"}  # only the named file's members


def test_an_extern_without_code_for_the_target_blocks_its_callers_naming_it():
    got = loaded(PROJECTS / "config" / "src" / "App.dfy")
    contracts, code = without_code(got.program, select(got.program, ()), "py", PROJECTS)
    blocked = {c.name: c.blocked for c in contracts if c.blocked}
    assert list(blocked) == ["App.Stamp"]
    assert blocked["App.Stamp"].startswith("extern Clock.Now has no implementation for target py")
    assert code == ()
    # Java has its code beside the Dafny file: nothing is blocked and the file is built with the program
    contracts, code = without_code(got.program, select(got.program, ()), "java", PROJECTS)
    assert not any(c.blocked for c in contracts)
    assert [Path(f).name for f in code] == ["Clock.java"]


def test_a_missing_include_is_a_located_error_and_the_rest_is_read(tmp_path):
    (tmp_path / "a.dfy").write_text('include "b.dfy"\ninclude "gone.dfy"\nmethod A() {}\n')
    (tmp_path / "b.dfy").write_text('include "a.dfy"\nmethod B() {}\n')
    got = load_program(str(tmp_path / "a.dfy"))
    errors = [d for d in got.diagnostics if d.severity is Severity.ERROR]
    assert [(Path(d.file).name, d.line, d.message) for d in errors] == [
        ("a.dfy", 2, "included file gone.dfy not found")]
    cycle = [d for d in got.diagnostics if "include cycle" in d.message]
    assert cycle and Path(cycle[0].file).name == "b.dfy" and cycle[0].line == 1
    assert [Path(p).name for p in got.paths] == ["a.dfy", "b.dfy"]


def test_members_the_default_export_set_hides_are_blocked_with_that_reason(tmp_path):
    (tmp_path / "e.dfy").write_text(
        "module M {\n  export provides Shown, C\n  export Full provides Shown, Other, C\n"
        "  method Shown(x: int) returns (y: int) ensures y == x { y := x; }\n"
        "  method Other(x: int) returns (y: int) ensures y == x { y := x; }\n"
        "  class C { constructor () {} method Get(x: int) returns (y: int) ensures y == x { y := x; } }\n}\n"
        "module Open {\n  method Any(x: int) returns (y: int) ensures y == x { y := x; }\n}\n")
    program = load_program(str(tmp_path / "e.dfy")).program
    blocked = {c.name: c.blocked for c in exported_only(program, select(program, ()))}
    assert blocked["M.Shown"] == "" and blocked["Open.Any"] == "" and blocked["M.C.Get"] == ""
    assert blocked["M.Other"].startswith("not exported (the default export set of module M does not provide Other)")


def test_a_heap_reading_function_parameter_gets_a_total_lambda(tmp_path):
    from dspec2test.generate import GenerateOptions, generate

    (tmp_path / "m.dfy").write_text(
        "function Apply<T, R>(f: T ~> R, x: T): R\n  requires f.requires(x)\n  reads f.reads(x)\n"
        "  ensures Apply(f, x) == f(x)\n{ f(x) }\n")
    got = generate(str(tmp_path / "m.dfy"), GenerateOptions(isolate=False))
    assert not got.manifest["methods"][0]["unsupported"], got.manifest
    assert "var f: int ~> int := x => " in got.tests_text
    assert "Apply<int, int>(f, x)" in got.tests_text


def test_a_file_the_project_leaves_out_that_imports_its_modules_is_read_with_the_project(tmp_path):
    project = tmp_path / "config"
    import shutil
    shutil.copytree(PROJECTS / "config", project)
    (project / "tests").mkdir()
    (project / "tests" / "T.dfy").write_text(
        'include "gone.dfy"\nmodule T {\n  import Helper\n'
        "  method Twice(x: int) returns (r: int) ensures r == Helper.Double(x) { r := 2 * x; }\n}\n")
    (project / "tests" / "Alone.dfy").write_text("method A(x: int) returns (r: int) ensures r == x { r := x; }\n")
    got = load_program(str(project / "tests" / "T.dfy"))
    assert got.inputs == (str(project / "tests" / "T.dfy"), str(project / "dfyconfig.toml"))
    assert "Helper.dfy" in {Path(p).name for p in got.paths}
    # its own include is read once: its missing file is one error, not one per reading
    assert [d.message for d in got.diagnostics] == ["included file gone.dfy not found"]
    alone = load_program(str(project / "tests" / "Alone.dfy"))
    assert alone.inputs == (str(project / "tests" / "Alone.dfy"),) and len(alone.paths) == 1


def test_a_project_file_listing_another_targets_extern_code_holds_only_its_dafny_files(tmp_path):
    from dspec2test.model.project import read_project
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "A.dfy").write_text("module A { function F(): int { 1 } }\n")
    (tmp_path / "cs").mkdir()
    (tmp_path / "cs" / "Z3Interface.cs").write_text("namespace Z3 { }\n")
    (tmp_path / "dfyconfig.toml").write_text('includes = ["src/**/*.dfy", "cs/Z3Interface.cs"]\n')
    project = read_project(tmp_path / "dfyconfig.toml")
    assert [p.name for p in project.files()] == ["A.dfy"]


def test_a_datatype_refined_with_an_ellipsis_keeps_its_constructors(tmp_path):
    """`datatype D ... { members }` in a refining module is the refined module's D with more members: its
    constructors and the inherited members stay (read alone, it had no constructor at all)."""
    src = tmp_path / "refined.dfy"
    src.write_text("abstract module A {\n  datatype D = X | Y(n: int) {\n    function g(): int { 0 }\n  }\n"
                   "  newtype N = x: int | 0 <= x < 10 {\n    function h(): int { 1 }\n  }\n}\n"
                   "module B refines A {\n  datatype D ... {\n    function f(): int { 1 }\n  }\n"
                   "  newtype N ... {\n    function k(): int { 2 }\n  }\n}\n")
    got = load_program(str(src))
    assert not isinstance(got, Diagnostic), got
    b = next(m for m in got.program.decls if getattr(m, "name", "") == "B")
    d = next(x for x in b.decls if getattr(x, "name", "") == "D")
    assert [c.name for c in d.ctors] == ["X", "Y"] and [m.name for m in d.members] == ["g", "f"]
    n = next(x for x in b.decls if getattr(x, "name", "") == "N")
    assert print_type(n.base) == "int" and n.var == "x" and [m.name for m in n.members] == ["h", "k"]

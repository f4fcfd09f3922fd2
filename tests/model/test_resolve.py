"""Names in contracts: module-qualified functions, consts, members' own module scope, synonyms."""

import pytest

from dspec2test.dafny import ast as A
from dspec2test.model.resolve import Resolver
from dspec2test.errors import Unsupported
from dspec2test.solve import Solver
from tests.solve.build import T, call, function, i, n, op, program, sel

K = A.Const("K", T("int"), i(3))
F = function("F", [("x", T("int"))], T("int"), op("+", n("x"), n("K")))
METHOD = A.Method("method", "M1", (A.Formal("y", T("int")),), (), A.Spec(), None)
PROG = program(A.Module("M", (K, F, METHOD)))


def test_module_qualified_function_and_const():
    s = Solver(PROG, [("y", T("int"), False)])
    m = s.solve([op("==", A.Call(sel(n("M"), "F"), (n("y"),)), i(10))])
    assert m.values["y"] == "7"


def test_member_scope_resolves_unqualified_names():
    s = Solver(PROG, [("y", T("int"), False)], member=METHOD)
    assert s.solve([op("==", call("F", n("y")), n("K"))]).values["y"] == "0"


def test_unknown_name_is_unsupported_from_top_level():
    s = Solver(PROG, [("y", T("int"), False)])
    with pytest.raises(Unsupported):
        s.check([op("==", call("F", n("y")), i(1))])


def test_type_synonym_expands_and_subset_keeps_its_name():
    prog = program(A.TypeSynonym("Row", T("seq", T("nat"))))
    r = Resolver(prog)
    t = r.rtype(T("Row"), r.scope_of(None))
    assert t.kind == "seq" and t.args[0].kind == "subset" and t.args[0].name == "nat"


def test_types_of_dotted_modules_and_of_imports_of_imports_resolve(tmp_path):
    """`module JSON.Utils.Views` has no entry for JSON.Utils; `import Small = Large.Small`, where Large is
    itself an import, names the module Large imports (the refinements of abstract modules do this)."""
    from dspec2test.model.program import load_program
    from dspec2test.model.resolve import Scope

    (tmp_path / "m.dfy").write_text(
        "module JSON.Utils.Views { type View = s: seq<int> | |s| < 10 }\n"
        "module JSON.Grammar { import opened Utils.Views  type J = v: View | |v| == 1 }\n"
        "module Inner { type uint = x: int | 0 <= x < 8 }\n"
        "module Outer { import Small = Inner }\n"
        "module User { import Large = Outer  import Small = Large.Small  type U = Small.uint }\n")
    program = load_program(str(tmp_path / "m.dfy")).program
    r = Resolver(program)
    found = r.lookup(Scope(r, ("JSON", "Grammar")), "View")
    assert found is not None and getattr(found[0], "name", "") == "View"
    found = r.lookup(Scope(r, ("User",)), "Small.uint")
    assert found is not None and getattr(found[0], "name", "") == "uint"

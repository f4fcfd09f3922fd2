"""The literals the solver emits, for every type family, compile with real Dafny and mean what was asked."""

import subprocess

import pytest

from dspec2test.dafny import ast as A
from dspec2test.solve import Solver
from dspec2test.toolchain import find_toolchain
from tests.solve.build import T, call, card, chain, i, idx, n, op, program, sel
from tests.solve.test_functions import LENGTH, LIST

PROGRAM = """
datatype List<T> = Nil | Cons(head: T, tail: List<T>)
function Length<T>(l: List<T>): nat { match l case Nil => 0 case Cons(_, t) => 1 + Length(t) }
module M { datatype Color = Red | Green | Blue(shade: int) }
type Even = v: int | v % 2 == 0
newtype Small = v: int | 0 <= v < 5
"""

EVEN = A.SubsetType("Even", "v", T("int"), op("==", op("%", n("v"), i(2)), i(0)))
SMALL = A.Newtype("Small", "v", T("int"), chain(0, "<=", n("v"), "<", i(5)))
COLOR = A.Datatype("Color", (A.Ctor("Red", ()), A.Ctor("Green", ()), A.Ctor("Blue", (A.Formal("shade", T("int")),))))
AST = program(LIST, LENGTH, A.Module("M", (COLOR,)), EVEN, SMALL)

S = A.SeqDisplay
CH = A.CharLit

# (Dafny type text, AST type, constraint AST, the same constraint as Dafny text over `v`)
CASES = [
    ("int", T("int"), op("<", n("v"), i(-5)), "v < -5"),
    ("nat", T("nat"), op(">", n("v"), i(3)), "v > 3"),
    ("bool", T("bool"), n("v"), "v"),
    ("char", T("char"), op("==", n("v"), CH("'")), "v == '\\''"),
    ("char", T("char"), op("==", n("v"), CH("\\")), "v == '\\\\'"),
    ("char", T("char"), op("==", n("v"), CH("\u00e9")), "v == '\\U{E9}'"),
    ("string", T("string"), op("&&", op("==", card(n("v")), i(3)), op("&&", op("==", idx(n("v"), 0), CH('"')),
                                                                  op("==", idx(n("v"), 2), CH("\n")))),
     "|v| == 3 && v[0] == '\"' && v[2] == '\\n'"),
    ("real", T("real"), op("==", op("*", n("v"), i(3)), i(-1)), "v * 3.0 == -1.0"),
    ("real", T("real"), op("==", op("*", n("v"), i(4)), i(-6)), "v * 4.0 == -6.0"),
    ("bv8", T("bv8"), op(">", n("v"), i(200)), "v > 200"),
    ("seq<int>", T("seq", T("int")), op("&&", op("==", card(n("v")), i(2)), op(">", idx(n("v"), 0), idx(n("v"), 1))),
     "|v| == 2 && v[0] > v[1]"),
    ("seq<int>", T("seq", T("int")), op("==", card(n("v")), i(0)), "|v| == 0"),
    ("seq<seq<bool>>", T("seq", T("seq", T("bool"))), op("&&", op("==", card(n("v")), i(2)), op("==", card(idx(n("v"), 1)), i(1))),
     "|v| == 2 && |v[1]| == 1"),
    ("set<int>", T("set", T("int")), op("&&", op("==", card(n("v")), i(3)), op("in", i(-2), n("v"))), "|v| == 3 && -2 in v"),
    ("set<char>", T("set", T("char")), op("==", card(n("v")), i(0)), "|v| == 0"),
    ("multiset<int>", T("multiset", T("int")), op("&&", op("==", idx(n("v"), 4), i(2)), op("==", card(n("v")), i(3))),
     "v[4] == 2 && |v| == 3"),
    ("map<int, char>", T("map", T("int"), T("char")), op("&&", op("in", i(1), n("v")), op("==", card(n("v")), i(2))),
     "1 in v && |v| == 2"),
    ("(int, bool, char)", A.TupleType((T("int"), T("bool"), T("char"))), op("==", sel(n("v"), "0"), i(-1)), "v.0 == -1"),
    ("List<int>", T("List", T("int")), op("==", call("Length", n("v")), i(2)), "Length(v) == 2"),
    ("M.Color", T("M.Color"), sel(n("v"), "Blue?"), "v.Blue?"),
    ("Even", T("Even"), op(">", n("v"), i(7)), "v > 7"),
    ("Small", T("Small"), op(">", n("v"), i(2)), "v > 2"),
    ("int -> int", A.ArrowType((T("int"),), T("int")), op("&&", op("==", call("v", i(1)), i(2)), op("==", call("v", i(-3)), i(4))),
     "v(1) == 2 && v(-3) == 4"),
    # functions whose model has a rule beyond its table: the lambda must carry it
    ("int -> bool", A.ArrowType((T("int"),), T("bool")),
     op("&&", op("&&", call("v", i(3)), A.UnOp("!", call("v", i(50)))),
        A.Quantifier("forall", (A.BoundVar("k"),), op(">", n("k"), i(100)), call("v", n("k")))),
     "v(3) && !v(50) && forall k | 100 < k <= 200 :: v(k)"),
    ("int -> bool", A.ArrowType((T("int"),), T("bool")),
     A.Quantifier("forall", (A.BoundVar("k"),), None, op("<==>", call("v", n("k")), op("==", op("%", n("k"), i(2)), i(0)))),
     "forall k | -50 <= k <= 50 :: v(k) == (k % 2 == 0)"),
]


@pytest.mark.dafny
def test_emitted_literals_compile_and_satisfy_their_constraints(tmp_path):
    tc = find_toolchain()
    if tc.dafny is None:
        pytest.skip("dafny not installed")
    tests = []
    for k, (text, typ, cons, dafny_cons) in enumerate(CASES):
        m = Solver(AST, [("v", typ, False)]).solve([cons])
        assert m is not None, text
        tests.append(f"method {{:test}} T{k}() {{\n  var v: {text} := {m.values['v']};\n"
                     f"  expect {dafny_cons}, \"case {k}\";\n}}\n")
    prog = tmp_path / "prog.dfy"
    prog.write_text(PROGRAM + "\n" + "\n".join(tests))
    proc = subprocess.run([tc.dafny, "test", "--no-verify", "--allow-warnings", "--target", "py", str(prog)],
                          capture_output=True, text=True, timeout=300, env=tc.dafny_env(), cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out + prog.read_text()
    assert out.count("PASSED") == len(CASES), out

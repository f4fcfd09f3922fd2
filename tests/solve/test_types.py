"""One constraint per type family: solve it, check the model's values satisfy it and the literal text."""

from fractions import Fraction

from dspec2test.dafny import ast as A
from dspec2test.solve import Solver
from tests.solve.build import T, call, card, chain, exists, forall, i, idx, ite, n, op, program, sel

EMPTY = program()


def solve(vars, constraints, prog=EMPTY, **kw):
    s = Solver(prog, [(name, t, out) for name, t, *rest in vars for out in [bool(rest and rest[0])]], **kw)
    m = s.solve(constraints)
    assert m is not None, s.status_of_last
    return m


def test_int_and_nat():
    m = solve([("x", T("int")), ("y", T("nat"))], [op("<", n("x"), i(-3)), op("<", n("y"), i(2))])
    assert m.raw["x"] < -3 and m.values["x"] == str(m.raw["x"]) and m.values["x"].startswith("-")
    assert 0 <= m.raw["y"] < 2


def test_seq_of_int_two_descending():
    s = T("seq", T("int"))
    m = solve([("s", s)], [op("==", card(n("s")), i(2)), op(">", idx(n("s"), 0), idx(n("s"), 1))])
    a, b = m.raw["s"]
    assert a > b and m.values["s"] == f"[{a}, {b}]"


def test_empty_seq_literal():
    m = solve([("s", T("seq", T("int")))], [op("==", n("s"), A.SeqDisplay(()))])
    assert m.values["s"] == "[]"


def test_bool_and_ite():
    m = solve([("b", T("bool")), ("x", T("int"))], [op("==", ite(n("b"), i(1), i(2)), n("x")), op(">", n("x"), i(1))])
    assert m.values == {"b": "false", "x": "2"}


def test_char_literals_escape_and_prefer_alphanumerics():
    m = solve([("c", T("char"))], [op("==", n("c"), A.CharLit("'"))])
    assert m.values["c"] == "'\\''"
    m = solve([("c", T("char"))], [op("==", n("c"), A.CharLit("\\"))])
    assert m.values["c"] == "'\\\\'"
    m = solve([("c", T("char"))], [op("!=", n("c"), A.CharLit("a"))])
    assert m.values["c"][1].isalnum()


def test_string_with_quote():
    s = T("string")
    m = solve([("s", s)], [op("==", card(n("s")), i(3)), op("==", idx(n("s"), 1), A.CharLit('"')),
                           op("==", idx(n("s"), 2), A.CharLit("\n"))])
    assert m.values["s"].startswith('"') and m.values["s"].endswith('\\"\\n"')
    assert m.raw["s"][1:] == (ord('"'), ord("\n"))


def test_string_membership_and_concat():
    s = T("string")
    m = solve([("s", s), ("t", s)], [op("in", A.CharLit("z"), n("s")), op("==", n("t"), op("+", n("s"), A.StringLit("ab")))])
    assert ord("z") in m.raw["s"] and m.raw["t"] == m.raw["s"] + (ord("a"), ord("b"))


def test_real_literals():
    m = solve([("x", T("real"))], [op("==", op("*", n("x"), A.RealLit("2.0")), A.RealLit("-3.0"))])
    assert m.values["x"] == "-1.5" and m.raw["x"] == Fraction(-3, 2)
    m = solve([("x", T("real"))], [op("==", op("*", n("x"), i(3)), i(1))])
    assert m.values["x"] == "(1.0 / 3.0)"
    m = solve([("x", T("real"))], [op("==", n("x"), i(4))])
    assert m.values["x"] == "4.0"


def test_real_int_casts():
    m = solve([("x", T("real")), ("k", T("int"))],
              [op("==", n("x"), A.RealLit("2.5")), op("==", n("k"), A.Cast(n("x"), T("int")))])
    assert m.values["k"] == "2"


def test_bitvectors():
    m = solve([("b", T("bv8"))], [op("==", op("&", n("b"), i(15)), i(10)), op(">", n("b"), i(200))])
    v = m.raw["b"]
    assert v & 15 == 10 and v > 200 and v < 256 and m.values["b"] == str(v)


def test_euclidean_division_and_modulo():
    m = solve([("x", T("int")), ("q", T("int")), ("r", T("int"))],
              [op("==", n("x"), i(-7)), op("==", n("q"), op("/", n("x"), i(2))), op("==", n("r"), op("%", n("x"), i(2)))])
    assert (m.raw["q"], m.raw["r"]) == (-4, 1)  # Dafny: -7 / 2 == -4, -7 % 2 == 1


def test_set():
    st = T("set", T("int"))
    m = solve([("s", st)], [op("==", card(n("s")), i(3)), op("in", i(7), n("s")), op("!in", i(1), n("s"))])
    assert len(set(m.raw["s"])) == 3 and 7 in m.raw["s"] and 1 not in m.raw["s"]
    items = sorted(m.raw["s"])
    assert m.values["s"] == "{" + ", ".join(map(str, items)) + "}"


def test_set_union_and_subset():
    st = T("set", T("int"))
    m = solve([("a", st), ("b", st)], [op("==", op("+", n("a"), n("b")), A.SetDisplay((i(1), i(2), i(3)))),
                                       op("!!", n("a"), n("b")), op("==", card(n("a")), i(1))])
    a, b = set(m.raw["a"]), set(m.raw["b"])
    assert a | b == {1, 2, 3} and not a & b and len(a) == 1


def test_multiset():
    ms = T("multiset", T("int"))
    m = solve([("m", ms)], [op("==", idx(n("m"), 5), i(2)), op("==", card(n("m")), i(3))])
    assert sorted(m.raw["m"]).count(5) == 2 and len(m.raw["m"]) == 3
    assert m.values["m"].startswith("multiset{") and m.values["m"].count("5") >= 2


def test_multiset_of_sequence_is_a_permutation():
    s = T("seq", T("int"))
    m = solve([("a", s), ("b", s)], [op("==", A.MultisetConv(n("a")), A.MultisetConv(n("b"))),
                                     op("!=", n("a"), n("b")), op("==", card(n("a")), i(2))])
    assert sorted(m.raw["a"]) == sorted(m.raw["b"]) and m.raw["a"] != m.raw["b"]


def test_map():
    mt = T("map", T("int"), T("int"))
    m = solve([("m", mt)], [op("in", i(1), n("m")), op("==", idx(n("m"), 1), i(2)), op("==", card(n("m")), i(2))])
    d = dict(m.raw["m"])
    assert d[1] == 2 and len(d) == 2 and m.values["m"].startswith("map[") and "1 := 2" in m.values["m"]


def test_map_display_and_update():
    mt = T("map", T("int"), T("int"))
    disp = A.MapDisplay(((i(1), i(2)),))
    m = solve([("m", mt)], [op("==", n("m"), A.Update(disp, i(3), i(4)))])
    assert m.values["m"] == "map[1 := 2, 3 := 4]"


def test_tuple():
    tt = A.TupleType((T("int"), T("bool")))
    m = solve([("p", tt)], [op("==", sel(n("p"), "0"), i(3)), sel(n("p"), "1")])
    assert m.values["p"] == "(3, true)"


def test_array_as_sequence():
    at = T("array", T("int"))
    m = solve([("a", at)], [op("==", sel(n("a"), "Length"), i(2)), op("==", idx(n("a"), 0), i(-1)),
                            op("==", A.Slice(n("a"), i(1), None), A.SeqDisplay((i(9),)))])
    assert m.values["a"] == "[-1, 9]"


def test_function_parameter_as_lambda():
    ft = A.ArrowType((T("int"),), T("int"))
    m = solve([("f", ft)], [op("==", call("f", i(1)), i(2)), op("==", call("f", i(3)), i(4))])
    f = m.raw["f"]

    def apply(x):
        return next((v for args, v in f.entries if args == (x,)), f.default)

    assert apply(1) == 2 and apply(3) == 4
    assert m.values["f"].startswith("x => if x == ") and "then 4" in m.values["f"]


def test_subset_type_constraint_is_asserted():
    even = A.SubsetType("Even", "v", T("int"), op("==", op("%", n("v"), i(2)), i(0)))
    prog = program(even)
    m = solve([("x", T("Even"))], [op(">", n("x"), i(10)), op("<", n("x"), i(13))], prog)
    assert m.values["x"] == "12"


def test_newtype_and_synonym():
    small = A.Newtype("Small", "v", T("int"), chain(0, "<=", n("v"), "<", i(5)))
    syn = A.TypeSynonym("Ints", T("seq", T("Small")))
    prog = program(small, syn)
    m = solve([("s", T("Ints"))], [op("==", card(n("s")), i(4)), op(">", idx(n("s"), 0), i(3))], prog)
    assert all(0 <= v < 5 for v in m.raw["s"]) and m.raw["s"][0] == 4


def test_quantifier_over_index_range():
    s = T("seq", T("int"))
    body = op("==>", chain(0, "<=", n("k"), "<", card(n("s"))), op(">", idx(n("s"), n("k")), i(5)))
    m = solve([("s", s)], [forall("k", body), op("==", card(n("s")), i(4))])
    assert len(m.raw["s"]) == 4 and all(v > 5 for v in m.raw["s"])


def test_sorted_with_two_bound_variables():
    s = T("seq", T("int"))
    q = A.Quantifier("forall", (A.BoundVar("p"), A.BoundVar("q")), None,
                     op("==>", chain(0, "<=", n("p"), "<", n("q"), "<", card(n("s"))),
                        op("<", idx(n("s"), n("p")), idx(n("s"), n("q")))))
    m = solve([("s", s)], [q, op("==", card(n("s")), i(5))])
    v = m.raw["s"]
    assert len(v) == 5 and list(v) == sorted(set(v))


def test_quantifier_over_members_and_exists():
    s = T("seq", T("int"))
    m = solve([("s", s)], [forall("x", op("==>", op("in", n("x"), n("s")), op(">", n("x"), i(0)))),
                           exists("x", op("&&", op("in", n("x"), n("s")), op("==", n("x"), i(42)))),
                           op("==", card(n("s")), i(3))])
    assert 42 in m.raw["s"] and all(v > 0 for v in m.raw["s"])


def test_unbounded_quantifier_is_a_real_quantifier():
    m = solve([("x", T("int"))], [forall("y", op("==>", op(">", n("y"), n("x")), op(">", n("y"), i(3))))])
    assert m.raw["x"] >= 3


def test_let():
    let = A.Let((A.PatVar("y"),), (op("+", n("x"), i(1)),), op("==", op("*", n("y"), n("y")), i(16)))
    m = solve([("x", T("int"))], [let, op(">", n("x"), i(0))])
    assert m.values["x"] == "3"


def test_set_comprehension_over_indices():
    s = T("seq", T("int"))
    comp = A.SetComprehension((A.BoundVar("k"),), chain(0, "<=", n("k"), "<", card(n("s"))), idx(n("s"), n("k")))
    m = solve([("s", s), ("t", T("set", T("int")))], [op("==", n("t"), comp), op("==", card(n("s")), i(3)),
                                                      op("==", card(n("t")), i(2))])
    assert set(m.raw["t"]) == set(m.raw["s"]) and len(set(m.raw["s"])) == 2


def test_input_sequences_prefer_pairwise_distinct_elements():
    s = T("seq", T("int"))
    m = solve([("s", s)], [op("==", card(n("s")), i(4))])
    assert len(set(m.raw["s"])) == 4, m.values


def test_distinct_elements_are_only_a_preference():
    s = T("seq", T("int"))
    m = solve([("s", s)], [op("==", card(n("s")), i(2)), op("==", idx(n("s"), 0), idx(n("s"), 1))])
    a, b = m.raw["s"]
    assert a == b

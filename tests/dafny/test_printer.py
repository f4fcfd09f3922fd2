"""The printer puts parentheses exactly where precedence and associativity need them."""

from build import b, card, chain, i, n

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr, print_pattern, print_type

x, y, z = n("x"), n("y"), n("z")


def test_arithmetic_associativity():
    assert print_expr(b("-", b("-", x, y), z)) == "x - y - z"
    assert print_expr(b("-", x, b("-", y, z))) == "x - (y - z)"
    assert print_expr(b("*", b("+", x, y), z)) == "(x + y) * z"
    assert print_expr(b("+", x, b("*", y, z))) == "x + y * z"


def test_logic_mixing_and_implication():
    assert print_expr(b("&&", b("||", x, y), z)) == "(x || y) && z"
    assert print_expr(b("&&", b("&&", x, y), z)) == "x && y && z"
    assert print_expr(b("==>", x, b("==>", y, z))) == "x ==> y ==> z"
    assert print_expr(b("==>", b("==>", x, y), z)) == "(x ==> y) ==> z"
    assert print_expr(b("<==", b("<==", x, y), z)) == "x <== y <== z"
    assert print_expr(b("<==>", b("==>", x, y), z)) == "x ==> y <==> z"
    assert print_expr(b("==", b("==", x, y), z)) == "(x == y) == z"


def test_unary_and_negative_literals():
    assert print_expr(ast.UnOp("!", b("<", x, i(0)))) == "!(x < 0)"
    assert print_expr(ast.UnOp("-", i(-1))) == "-(-1)"
    assert print_expr(b("-", x, i(-1))) == "x - -1"
    assert print_expr(ast.UnOp("!", ast.Call(n("P"), (x,)))) == "!P(x)"


def test_open_forms_are_parenthesised_as_operands():
    q = ast.Quantifier("forall", (ast.BoundVar("k", ast.NamedType("int")),), b("<=", i(0), n("k")), b(">", n("k"), x))
    assert print_expr(q) == "forall k: int | 0 <= k :: k > x"
    assert print_expr(b("==>", b("&&", y, q), z)) == "y && (forall k: int | 0 <= k :: k > x) ==> z"
    ite = ast.IfThenElse(x, y, z)
    assert print_expr(b("&&", ite, y)) == "(if x then y else z) && y"


def test_chain_suffixes_and_displays():
    s = n("s")
    assert print_expr(chain(i(0), "<=", x, "<", card(s))) == "0 <= x < |s|"
    assert print_expr(ast.Index(b("+", s, s), (x,))) == "(s + s)[x]"
    assert print_expr(ast.Slice(s, None, b("+", x, i(1)))) == "s[..x + 1]"
    assert print_expr(ast.MapDisplay(((i(1), i(2)),))) == "map[1 := 2]"
    assert print_expr(ast.MultisetConv(s)) == "multiset(s)"
    assert print_expr(ast.MemberSelect(n("a"), "Length")) == "a.Length"
    assert print_expr(ast.StringLit('a"b\n')) == '"a\\"b\\n"'


def test_types_and_patterns():
    assert print_type(ast.NamedType("map", (ast.NamedType("int"), ast.NamedType("seq", (ast.NamedType("char"),))))) \
        == "map<int, seq<char>>"
    assert print_type(ast.ArrowType((ast.NamedType("int"),), ast.NamedType("bool"))) == "int -> bool"
    assert print_type(ast.ArrowType((ast.NamedType("int"), ast.NamedType("int")), ast.NamedType("int"), "~>")) \
        == "(int, int) ~> int"
    assert print_pattern(ast.PatCtor("Cons", (ast.PatVar("h"), ast.PatWild()))) == "Cons(h, _)"
    m = ast.MatchExpr(x, (ast.MatchCase(ast.PatCtor("Nil", ()), y), ast.MatchCase(ast.PatWild(), z)))
    assert print_expr(b("&&", m, y)) == "(match x { case Nil() => y case _ => z }) && y"

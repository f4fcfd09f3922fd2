"""Expressions: every precedence level, every form, with spans."""

from __future__ import annotations

import pytest

from dspec2test.dafny import ast as A
from parse_helpers import expr, pos


def shape(e: A.Node) -> str:
    """A compact rendering of the operator structure, to assert precedence and associativity."""
    if isinstance(e, A.BinOp):
        return f"({shape(e.left)} {e.op} {shape(e.right)})"
    if isinstance(e, A.UnOp):
        return f"{e.op}{shape(e.operand)}"
    if isinstance(e, A.Chain):
        parts = [shape(e.operands[0])]
        for op, operand in zip(e.ops, e.operands[1:]):
            parts += [op, shape(operand)]
        return "chain(" + " ".join(parts) + ")"
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.IntLit):
        return e.text
    if isinstance(e, A.BoolLit):
        return str(e.value).lower()
    if isinstance(e, A.Cast):
        return f"({shape(e.expr)} as {e.type.name})"
    if isinstance(e, A.TypeTest):
        return f"({shape(e.expr)} is {e.type.name})"
    if isinstance(e, A.Cardinality):
        return f"|{shape(e.expr)}|"
    return type(e).__name__


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("a <==> b ==> c", "(a <==> (b ==> c))"),
        ("a <==> b <==> c", "((a <==> b) <==> c)"),
        ("a ==> b ==> c", "(a ==> (b ==> c))"),  # right associative
        ("a <== b <== c", "((a <== b) <== c)"),  # left associative
        ("a ==> b && c", "(a ==> (b && c))"),
        ("a && b || c", "((a && b) || c)"),  # not Dafny (needs parentheses), read left to right
        ("a || b && c == d", "((a || b) && (c == d))"),
        ("a && b == c", "(a && (b == c))"),
        ("x == y + 1", "(x == (y + 1))"),
        ("x < y << 1", "(x < (y << 1))"),
        ("x << 1 + 2", "(x << (1 + 2))"),
        ("x >> 1", "(x >> 1)"),
        ("a + b * c", "(a + (b * c))"),
        ("a - b - c", "((a - b) - c)"),
        ("a * b | c", "(a * (b | c))"),  # bitwise binds tighter than *
        ("a | b & c", "((a | b) & c)"),
        ("a as int + 1", "((a as int) + 1)"),
        ("-a as int", "(-a as int)"),
        ("x is int && y", "((x is int) && y)"),
        ("-a * b", "(-a * b)"),
        ("!a && b", "(!a && b)"),
        ("- -a", "--a"),
        ("x in s && y !in s", "((x in s) && (y !in s))"),
        ("A !! B", "(A !! B)"),
        ("0 <= i < j <= |s|", "chain(0 <= i < j <= |s|)"),
        ("a == b == c", "chain(a == b == c)"),
        ("x in s == true", "((x in s) == true)"),  # mixed membership and comparison: no chain
        ("&& a && b", "(a && b)"),  # leading operator (multi-line style)
        ("|| a || b", "(a || b)"),
    ],
)
def test_precedence(src: str, expected: str) -> None:
    assert shape(expr(src)) == expected


def test_binop_spans_cover_operands_and_parentheses() -> None:
    e = expr("(a + b) * c")
    assert isinstance(e, A.BinOp) and e.op == "*"
    assert pos(e) == (3, 1, 3, 12)
    assert pos(e.left) == (3, 1, 3, 8)  # the parentheses belong to the operand
    assert pos(e.right) == (3, 11, 3, 12)


def test_chain_span_and_operands() -> None:
    e = expr("0 <= i < n")
    assert isinstance(e, A.Chain)
    assert e.ops == ("<=", "<")
    assert pos(e) == (3, 1, 3, 11)
    assert [pos(o)[1] for o in e.operands] == [1, 6, 10]


@pytest.mark.parametrize(
    ("src", "cls", "value", "text"),
    [
        ("42", A.IntLit, 42, "42"),
        ("1_000", A.IntLit, 1000, "1_000"),
        ("0x1F", A.IntLit, 31, "0x1F"),
        ("0xFF_FF", A.IntLit, 65535, "0xFF_FF"),
        ("'a'", A.CharLit, "a", "'a'"),
        ("'\\''", A.CharLit, "'", "'\\''"),
        ("'\\n'", A.CharLit, "\n", "'\\n'"),
        ("'\\\\'", A.CharLit, "\\", "'\\\\'"),
        ("'\"'", A.CharLit, '"', "'\"'"),
        ("'\\u0041'", A.CharLit, "A", "'\\u0041'"),
        ("'\\U{1F600}'", A.CharLit, "\U0001F600", "'\\U{1F600}'"),
        ('"a\\"b\\n"', A.StringLit, 'a"b\n', '"a\\"b\\n"'),
        ('""', A.StringLit, "", '""'),
        ('@"C:\\dir ""q"""', A.StringLit, 'C:\\dir "q"', '@"C:\\dir ""q"""'),
    ],
)
def test_literals(src: str, cls: type, value: object, text: str) -> None:
    e = expr(src)
    assert isinstance(e, cls)
    assert e.value == value
    assert e.text == text


def test_other_literals() -> None:
    real = expr("3.14")
    assert isinstance(real, A.RealLit) and real.text == "3.14"
    assert expr("true") == A.BoolLit(True)
    assert expr("false") == A.BoolLit(False)
    assert isinstance(expr("null"), A.NullLit)
    assert isinstance(expr("this"), A.ThisExpr)
    assert expr('@"x"').verbatim


def test_member_call_index_slice() -> None:
    e = expr("a.b.c(1, x := 2)[i]")
    assert isinstance(e, A.Index)
    call = e.seq
    assert isinstance(call, A.Call)
    assert call.callee == A.MemberSelect(A.MemberSelect(A.Name("a"), "b"), "c")
    assert call.args == (A.IntLit(1, "1"), A.IntLit(2, "2"))
    assert call.arg_names == (None, "x")
    assert pos(call) == (3, 1, 3, 17)
    assert pos(e) == (3, 1, 3, 20)


@pytest.mark.parametrize(
    ("src", "lo", "hi"),
    [("s[1..2]", "1", "2"), ("s[..2]", None, "2"), ("s[1..]", "1", None), ("s[..]", None, None)],
)
def test_slices(src: str, lo: str | None, hi: str | None) -> None:
    e = expr(src)
    assert isinstance(e, A.Slice)
    assert (e.lo.text if e.lo else None, e.hi.text if e.hi else None) == (lo, hi)


def test_multi_index_update_and_datatype_update() -> None:
    e = expr("a[i, j]")
    assert isinstance(e, A.Index) and len(e.indices) == 2
    u = expr("s[i := v]")
    assert u == A.Update(A.Name("s"), A.Name("i"), A.Name("v"))
    m = expr("m[1 := 2, 3 := 4]")
    assert isinstance(m, A.Update) and isinstance(m.seq, A.Update)
    assert m.seq.index == A.IntLit(1, "1") and m.index == A.IntLit(3, "3")
    d = expr("d.(f := 1, g := x)")
    assert d == A.DatatypeUpdate(A.Name("d"), (("f", A.IntLit(1, "1")), ("g", A.Name("x"))))


def test_tuple_selectors_are_members_not_reals() -> None:
    e = expr("t.0.1")
    assert e == A.MemberSelect(A.MemberSelect(A.Name("t"), "0"), "1")


def test_discriminator_and_primed_names() -> None:
    assert expr("d.Nil?") == A.MemberSelect(A.Name("d"), "Nil?")
    assert expr("x' + y_1") == A.BinOp("+", A.Name("x'"), A.Name("y_1"))


def test_cardinality_including_set_comprehension_with_inner_bars() -> None:
    e = expr("|set i | 0 <= i < |a| && a[i] > 0|")
    assert isinstance(e, A.Cardinality)
    comp = e.expr
    assert isinstance(comp, A.SetComprehension)
    assert comp.vars == (A.BoundVar("i"),)
    assert comp.term is None
    assert isinstance(comp.range, A.BinOp) and comp.range.op == "&&"
    assert pos(e) == (3, 1, 3, 35)


def test_cardinality_then_operator() -> None:
    e = expr("|s| - 1 == |t|")
    assert shape(e) == "((|s| - 1) == |t|)"


def test_bitwise_or_outside_cardinality() -> None:
    assert shape(expr("|s| | x")) == "(|s| | x)"


def test_displays() -> None:
    assert expr("[1, 2]") == A.SeqDisplay((A.IntLit(1, "1"), A.IntLit(2, "2")))
    assert expr("[]") == A.SeqDisplay(())
    assert expr("{1}") == A.SetDisplay((A.IntLit(1, "1"),))
    assert expr("{}") == A.SetDisplay(())
    assert expr("iset{1}") == A.SetDisplay((A.IntLit(1, "1"),), infinite=True)
    assert expr("multiset{1, 1}") == A.MultisetDisplay((A.IntLit(1, "1"), A.IntLit(1, "1")))
    assert expr("multiset(s)") == A.MultisetConv(A.Name("s"))
    assert expr("map[1 := 2]") == A.MapDisplay(((A.IntLit(1, "1"), A.IntLit(2, "2")),))
    assert expr("imap[]") == A.MapDisplay((), infinite=True)


def test_seq_init() -> None:
    e = expr("seq(n, i => i * 2)")
    assert isinstance(e, A.SeqInit) and e.length == A.Name("n") and e.elem_type is None
    assert isinstance(e.init, A.Lambda) and e.init.params == (A.BoundVar("i"),)
    typed = expr("seq<int>(3, i => 0)")
    assert typed.elem_type == A.NamedType("int")


def test_comprehensions() -> None:
    s = expr("set x | x in s :: x * 2")
    assert isinstance(s, A.SetComprehension) and s.range == A.BinOp("in", A.Name("x"), A.Name("s"))
    assert s.term == A.BinOp("*", A.Name("x"), A.IntLit(2, "2"))
    i = expr("iset x: int | x > 0")
    assert i.infinite and i.vars == (A.BoundVar("x", A.NamedType("int")),) and i.term is None
    m = expr("map x | x in s :: x + 1")
    assert isinstance(m, A.MapComprehension) and m.key is None and m.value == A.BinOp("+", A.Name("x"), A.IntLit(1, "1"))
    mk = expr("map x | x in s :: f(x) := x")
    assert mk.key is not None and mk.value == A.Name("x")
    nr = expr("imap x: int :: x")
    assert nr.range is None and nr.infinite


def test_quantifiers() -> None:
    q = expr("forall x: int, y | 0 <= x < y :: x < y")
    assert isinstance(q, A.Quantifier) and q.kind == "forall"
    assert q.vars == (A.BoundVar("x", A.NamedType("int")), A.BoundVar("y"))
    assert isinstance(q.range, A.Chain)
    assert q.body == A.BinOp("<", A.Name("x"), A.Name("y"))
    assert pos(q) == (3, 1, 3, 39)
    assert pos(q.vars[0]) == (3, 8, 3, 14)


def test_quantifier_attributes_and_body_extends_right() -> None:
    q = expr("exists i {:trigger f(i)} :: f(i) && g(i) ==> h")
    assert q.kind == "exists"
    assert [a.name for a in q.attributes] == ["trigger"]
    assert isinstance(q.body, A.BinOp) and q.body.op == "==>"  # the body is everything to the right
    inside = expr("a && forall x :: P(x)")
    assert inside.op == "&&" and isinstance(inside.right, A.Quantifier)


def test_lambdas() -> None:
    typed = expr("(x: int, y) => x + y")
    assert isinstance(typed, A.Lambda)
    assert typed.params == (A.BoundVar("x", A.NamedType("int")), A.BoundVar("y"))
    one = expr("x => x")
    assert one == A.Lambda((A.BoundVar("x"),), A.Name("x"))
    none = expr("() => 1")
    assert none.params == ()
    spec = expr("x reads o requires x > 0 => x")
    assert spec.reads == (A.Name("o"),) and spec.requires == (A.BinOp(">", A.Name("x"), A.IntLit(0, "0")),)


def test_let_and_let_such_that() -> None:
    e = expr("var x, y := 1, 2; x + y")
    assert isinstance(e, A.Let)
    assert e.pats == (A.PatVar("x"), A.PatVar("y")) and len(e.values) == 2
    assert e.body == A.BinOp("+", A.Name("x"), A.Name("y"))
    pat = expr("var (a, b) := t; a")
    assert pat.pats == (A.PatTuple((A.PatVar("a"), A.PatVar("b"))),)
    st = expr("var x :| x > 0; x")
    assert st.such_that == A.BinOp(">", A.Name("x"), A.IntLit(0, "0")) and st.values == ()
    fail = expr("var x :- F(); x")
    assert fail.fail_op


def test_if_then_else_and_match() -> None:
    ite = expr("if a then 1 else 2 + 3")
    assert isinstance(ite, A.IfThenElse)
    assert ite.els == A.BinOp("+", A.IntLit(2, "2"), A.IntLit(3, "3"))  # else extends right
    m = expr("match d case A => 1 case B(x, _) => x")
    assert isinstance(m, A.MatchExpr) and len(m.cases) == 2
    assert m.cases[1].pattern == A.PatCtor("B", (A.PatVar("x"), A.PatWild()))
    braces = expr("match d { case A => 1 case B(x) => x }")
    assert len(braces.cases) == 2
    assert pos(braces.cases[0]) == (3, 11, 3, 22)


def test_old_fresh_allocated_unchanged() -> None:
    assert expr("old(x)") == A.Old(A.Name("x"))
    assert expr("old@L(x)") == A.Old(A.Name("x"), "L")
    assert expr("fresh(x)") == A.Fresh(A.Name("x"))
    assert expr("allocated(x)") == A.Allocated(A.Name("x"))
    assert expr("unchanged(x, y)") == A.Unchanged((A.Name("x"), A.Name("y")))


def test_tuples_and_unit() -> None:
    assert expr("(1, true)") == A.TupleExpr((A.IntLit(1, "1"), A.BoolLit(True)))
    assert expr("()") == A.TupleExpr(())
    # a ghost component, erased at run time: read as the plain component
    assert expr("(1, ghost x)") == A.TupleExpr((A.IntLit(1, "1"), A.Name("x")))
    assert expr("(x)") == A.Name("x")


def test_statement_expressions() -> None:
    a = expr("assert x > 0; x")
    assert isinstance(a, A.StmtExpr) and isinstance(a.stmt, A.AssertStmt) and a.expr == A.Name("x")
    call = expr("Lemma(x); x + 1")
    assert isinstance(call, A.StmtExpr) and isinstance(call.stmt, A.Assign)
    assert call.stmt.rhs[0].expr == A.Call(A.Name("Lemma"), (A.Name("x"),))
    chained = expr("var y := x; L1(y); L2(y); y")
    assert isinstance(chained, A.Let) and isinstance(chained.body, A.StmtExpr)
    assert isinstance(chained.body.expr, A.StmtExpr)
    calc = expr("calc { x; x + 0; } x")
    assert isinstance(calc.stmt, A.Calc)
    rev = expr("reveal P(); x")
    assert isinstance(rev.stmt, A.Reveal)


def test_generic_instantiation_versus_less_than() -> None:
    g = expr("f<int>(x)")
    assert g == A.Call(A.Name("f", (A.NamedType("int"),)), (A.Name("x"),))
    lt = expr("a < b && c > d")
    assert lt == A.BinOp("&&", A.BinOp("<", A.Name("a"), A.Name("b")), A.BinOp(">", A.Name("c"), A.Name("d")))
    nested = expr("Foo<seq<int>, B>.Bar")
    assert isinstance(nested, A.MemberSelect) and nested.obj.type_args[0] == A.NamedType("seq", (A.NamedType("int"),))
    cast = expr("x as int < y")
    assert cast == A.BinOp("<", A.Cast(A.Name("x"), A.NamedType("int")), A.Name("y"))


def test_type_forms_in_casts() -> None:
    assert expr("x as bv8").type == A.NamedType("bv8")
    assert expr("x as M.T<int>").type == A.NamedType("M.T", (A.NamedType("int"),))


def test_two_state_call_label() -> None:
    e = expr("f@L(x)")
    assert isinstance(e, A.Call) and e.label == "L" and e.args == (A.Name("x"),)


def test_parenthesized_lambda_with_spec_and_arrow_types() -> None:
    prog_expr = expr("(a, b) requires a > 0 reads o => a < b")
    assert isinstance(prog_expr, A.Lambda) and len(prog_expr.params) == 2
    assert prog_expr.requires == (A.BinOp(">", A.Name("a"), A.IntLit(0, "0")),)
    assert prog_expr.reads == (A.Name("o"),)


def test_nested_tuple_selectors_and_generic_calls() -> None:
    assert expr("tt.1.0") == A.MemberSelect(A.MemberSelect(A.Name("tt"), "1"), "0")
    call = expr("Size<int>(t) + 1")
    assert call.left == A.Call(A.Name("Size", (A.NamedType("int"),)), (A.Name("t"),))


def test_dafny4_quantifier_domains() -> None:
    q = expr("forall i | 0 <= i < n, k: nat <- s {:trigger f(k)} | k > i :: f(k)")
    assert [v.name for v in q.vars] == ["i", "k"] and q.vars[1].type == A.NamedType("nat")
    # ranges and collections are conjoined in order: (0 <= i < n) && (k in s) && (k > i)
    assert shape(q.range) == "((chain(0 <= i < n) && (k in s)) && (k > i))"
    assert [a.name for a in q.attributes] == ["trigger"]
    attrs_first = expr("exists p, q {:trigger g(p, q)} | p in s && q in s :: g(p, q)")
    assert [v.name for v in attrs_first.vars] == ["p", "q"] and attrs_first.attributes[0].name == "trigger"
    coll = expr("set x <- s :: x + 1")
    assert coll.range == A.BinOp("in", A.Name("x"), A.Name("s"))


def test_leading_operator_inside_an_implication() -> None:
    e = expr("a ==>\n  && b\n  && c")
    assert shape(e) == "(a ==> (b && c))"


def test_prefix_predicates_and_prefix_equality() -> None:
    p = expr("P#[k](s)")
    assert p == A.Call(A.Index(A.Name("P#"), (A.Name("k"),)), (A.Name("s"),))
    eq = expr("a ==#[k + 1] b && c")
    assert eq == A.BinOp("&&", A.BinOp("==#[k + 1]", A.Name("a"), A.Name("b")), A.Name("c"))


def test_fail_let_without_a_variable_and_leading_zero_numbers() -> None:
    e = expr(":- Need(ok); 07")
    assert isinstance(e, A.Let) and e.fail_op and e.pats == () and e.values == (A.Call(A.Name("Need"), (A.Name("ok"),)),)
    assert e.body == A.IntLit(7, "07")


def test_comma_after_a_comprehension_range_ends_it_unless_a_variable_follows() -> None:
    call = expr("Sum(set k | 2 <= k <= 10, (k: int) => k)")
    assert isinstance(call, A.Call) and len(call.args) == 2
    assert isinstance(call.args[0], A.SetComprehension) and isinstance(call.args[1], A.Lambda)
    two = expr("forall i | 0 <= i < n, k: nat | k < i :: f(i, k)")
    assert [v.name for v in two.vars] == ["i", "k"]


def test_generic_types_inside_comprehensions_and_type_tests() -> None:
    comp = expr("iset e: iset<Result<A>> | P(e)")
    assert comp.vars[0].type == A.NamedType("iset", (A.NamedType("Result", (A.NamedType("A"),)),))
    test = expr("f is int -> bool")
    assert test == A.TypeTest(A.Name("f"), A.ArrowType((A.NamedType("int"),), A.NamedType("bool")))


@pytest.mark.parametrize("text", [
    "forall i {:trigger ys[i], xs[i]} | 0 <= i < pos :: ys[i] == xs[i]",
    "exists p, q {:trigger g(p, q)} | p in s && q in s :: g(p, q)",
    "forall i {:trigger f(i)} :: f(i)",
])
def test_a_quantifier_with_attributes_prints_them_after_its_variables_and_reads_back(text):
    from dspec2test.dafny.printer import print_expr

    printed = print_expr(expr(text))
    assert printed == text
    assert print_expr(expr(printed)) == printed


def test_a_function_type_of_one_tuple_parameter_keeps_it_one_parameter():
    from dspec2test.dafny.parser import parse_program
    from dspec2test.dafny.printer import print_type

    m = parse_program("method M(p: ((int, nat)) -> string, q: (int, nat) -> int) {}\n", "x.dfy").decls[0]
    assert len(m.params[0].type.params) == 1 and len(m.params[1].type.params) == 2
    assert [print_type(f.type) for f in m.params] == ["((int, nat)) -> string", "(int, nat) -> int"]

"""Forms of Dafny 4.11's grammar (reference manual, and Dafny's own integration tests) the parser once
stopped at: each is read into the AST it means, with its span."""

from __future__ import annotations

import pytest

from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import ParseError
from parse_helpers import expr, pos, program, stmt, text_of


# ---------------------------------------------------------------- declarations


def test_extreme_predicate_and_lemma_with_their_depth_type() -> None:
    prog = program("greatest predicate P<A>[nat](s: A)\n{ true }\n"
                   "least lemma L[ORDINAL](x: int)\n{ }\n"
                   "predicate Q(x: int) { x > 0 }\n")
    p, lemma, q = prog.decls
    assert (p.kind, p.name, p.k_type, [t.name for t in p.type_params]) == ("greatest predicate", "P", "nat", ["A"])
    assert (lemma.kind, lemma.k_type) == ("least lemma", "ORDINAL")
    assert q.k_type == ""
    assert pos(p) == (1, 1, 2, 9)


def test_prefix_predicate_through_a_module_and_with_type_arguments() -> None:
    e = expr("M.P#[3](x) && R#<char>[k - 1]()")
    left, right = e.left, e.right
    assert isinstance(left.callee, A.Index) and left.callee.seq == A.MemberSelect(A.Name("M"), "P#")
    assert left.callee.indices == (A.IntLit(3, "3"),)
    assert right.callee.seq == A.Name("R#", (A.NamedType("char"),))


def test_ghost_constructors_and_constructor_formal_modifiers() -> None:
    prog = program('datatype D = ghost G(a: int) | C({:extern "0"} nameonly x: int, ghost y: int)\n'
                   "datatype E = | ghost Only\n")
    d, e = prog.decls
    g, c = d.ctors
    assert g.ghost and not c.ghost
    x, y = c.params
    assert (x.name, x.nameonly, x.ghost, [a.name for a in x.attributes]) == ("x", True, False, ["extern"])
    assert (y.name, y.ghost) == ("y", True)
    assert e.ctors[0].ghost and e.ctors[0].name == "Only"


def test_formal_attributes_and_lemma_chain_default() -> None:
    (m,) = program("method M({:a} x: int := L(); 2)\n").decls
    (x,) = m.params
    assert [a.name for a in x.attributes] == ["a"]
    assert isinstance(x.default, A.StmtExpr)


def test_extends_on_abstract_types_and_newtypes() -> None:
    prog = program("type B extends A<string> {\n  function F(): int { 1 }\n}\n"
                   "newtype N extends Tr = x: int | 0 <= x < 10\n"
                   "newtype G<T> = int witness 7\n"
                   "type C(==)<X>\n")
    b, n, g, c = prog.decls
    assert isinstance(b, A.TypeSynonym) and b.rhs is None
    assert b.extends == (A.NamedType("A", (A.NamedType("string"),)),)
    assert [m.name for m in b.members] == ["F"]
    assert isinstance(n, A.Newtype) and n.extends == (A.NamedType("Tr"),) and n.var == "x"
    assert (g.base, g.witness, [t.name for t in g.type_params]) == (A.NamedType("int"), A.IntLit(7, "7"), ["T"])
    assert c.characteristics == ("==",) and [t.name for t in c.type_params] == ["X"]


def test_refining_declarations_with_an_ellipsis() -> None:
    prog = program("module B refines A {\n  datatype D ... {\n    function f(): int { 1 }\n  }\n"
                   "  newtype N ... { }\n  type T ... { }\n  export Spec ... provides f\n  const c ...\n}\n")
    d, n, t, export, c = prog.decls[0].decls
    assert isinstance(d, A.Datatype) and d.refining and d.ctors == () and [m.name for m in d.members] == ["f"]
    assert isinstance(n, A.Newtype) and n.refining
    assert isinstance(t, A.TypeSynonym) and t.refining
    assert export == A.Export("Spec", provides=("f",))
    assert isinstance(c, A.Const) and c.name == "c"


def test_replaceable_module_and_its_replacement() -> None:
    prog = program("replaceable module Foo { }\nmodule Bar replaces Foo { }\nmodule Baz refines Foo { }\n")
    foo, bar, baz = prog.decls
    assert foo.replaceable
    assert (bar.replaces, bar.refines) == ("Foo", None)
    assert (baz.replaces, baz.refines) == (None, "Foo")


def test_abstract_import_of_an_export_set() -> None:
    (m,) = program("module M {\n  import AF : A`Spec\n  import G = A`{X, Y}\n}\n").decls
    assert m.decls == (A.Import("A", alias="AF", abstract=True, exports=("Spec",)),
                       A.Import("A", alias="G", exports=("X", "Y")))


def test_members_named_by_digits() -> None:
    (c,) = program("class C {\n  var 7: bool\n  const 90 := 1\n  ghost function 70(): int { 80 }\n"
                   "  method 567() { }\n}\n").decls
    assert [m.name for m in c.members] == ["7", "90", "70", "567"]


# ---------------------------------------------------------------- expressions


@pytest.mark.parametrize(("src", "text"), [
    ("1.23e2", "123.0"), ("5e-1", "0.5"), ("1_000.5e2", "100050.0"), ("1.", "1.0"), (".5", "0.5"),
    (".1_23e-2", "0.00123"), ("3.14", "3.14"),
])
def test_real_literals_with_exponents_and_short_forms(src: str, text: str) -> None:
    assert expr(src) == A.RealLit(text)


def test_tuple_components_are_not_leading_dot_reals() -> None:
    e = expr("t.0 + t.1.0 + u.5")
    assert e.left.left == A.MemberSelect(A.Name("t"), "0")
    assert e.left.right == A.MemberSelect(A.MemberSelect(A.Name("t"), "1"), "0")
    assert e.right == A.MemberSelect(A.Name("u"), "5")


def test_names_may_start_with_a_prime() -> None:
    (s, t) = program("method M() {\n  var 'x := 'R';\n  var x' := 'x;\n}\n").decls[0].body.stmts
    assert s.pats == (A.PatVar("'x"),) and s.rhs[0].expr == A.CharLit("R", "'R'")
    assert t.rhs[0].expr == A.Name("'x")


def test_decreases_to_as_an_expression() -> None:
    e = expr("x decreases to x - 1")
    assert isinstance(e, A.DecreasesTo) and e.olds == (A.Name("x"),) and not e.allow_equal
    assert e.news == (A.BinOp("-", A.Name("x"), A.IntLit(1, "1")),)
    group = expr("(a, b nonincreases to a, b - 1)")
    assert isinstance(group, A.DecreasesTo) and group.allow_equal
    assert (len(group.olds), len(group.news)) == (2, 2)
    assert pos(group) == (3, 1, 3, 32)


def test_decreases_to_is_told_from_a_decreases_clause() -> None:
    (lemma,) = program("lemma L(x: nat)\n  requires x decreases to 0\n  decreases x\n  ensures true\n{ }\n").decls
    (req,) = lemma.spec.requires
    assert isinstance(req.expr, A.DecreasesTo)
    (dec,) = lemma.spec.decreases
    assert dec.exprs == (A.Name("x"),)
    # `to` is a name where no `decreases to` can stand
    (m,) = program("method M(to: nat)\n  decreases to\n{ }\n").decls
    assert m.spec.decreases[0].exprs == (A.Name("to"),)


def test_lemma_call_chained_inside_a_lambda_body_and_in_arguments() -> None:
    e = expr("seq(n, i requires 0 <= i < n => L(i); f(i))")
    body = e.init.body
    assert isinstance(body, A.StmtExpr) and body.expr == A.Call(A.Name("f"), (A.Name("i"),))
    arg = expr("F(L(x); x)").args[0]
    assert isinstance(arg, A.StmtExpr)
    assert isinstance(expr("old(L(); 5)").expr, A.StmtExpr)


def test_binding_guards_in_if_expressions_and_alternatives() -> None:
    e = expr("if i :| 0 <= i < 10 then i else 0")
    assert isinstance(e, A.IfThenElse) and [v.name for v in e.binding] == ["i"]
    s = stmt("if\ncase j :| lo <= j < hi => lo := j;\ncase x: bool {:nowarn} :| true => return;\n"
             "case lo == hi => return;")
    first, second, third = s.alts
    assert [v.name for v in first.binding] == ["j"] and isinstance(first.guard, A.Chain)
    assert [(v.name, v.type) for v in second.binding] == [("x", A.NamedType("bool"))]
    assert third.binding == () and isinstance(third.guard, A.BinOp)


def test_set_comprehension_over_several_untyped_variables() -> None:
    (p,) = stmt("print set i,j,k | 0 <= i < j < k < 3 :: (i, j, k), \"\\n\";").args[:1]
    assert [v.name for v in p.vars] == ["i", "j", "k"] and isinstance(p.term, A.TupleExpr)


def test_tuples_with_ghost_items_and_bindings() -> None:
    assert expr("(1 := 300, 0 := 10)") == A.TupleExpr((A.IntLit(10, "10"), A.IntLit(300, "300")))
    e = expr("(20, 2 := 50, ghost 1 := 30)")
    assert e == A.TupleExpr((A.IntLit(20, "20"), A.IntLit(30, "30"), A.IntLit(50, "50")))
    g = expr("(ghost u + 50, u)")
    assert g.elems[0] == A.BinOp("+", A.Name("u"), A.IntLit(50, "50"))
    let = expr("(ghost var x := 1; x)")
    assert isinstance(let, A.Let) and let.ghost
    with pytest.raises(ParseError, match="tuple component 0"):
        expr("(0 := 1, 0 := 2)")


def test_field_locations_of_referrers() -> None:
    e = expr("`x == this`x && locals`i == o`f")
    assert e.left.left == A.FrameField(A.ThisExpr(), "x")
    assert e.left.right == A.FrameField(A.ThisExpr(), "x")
    assert e.right.left == A.FrameField(A.Name("locals"), "i")


def test_frames_with_fields_keep_their_reading() -> None:
    (f,) = program("function F(): int\n  reads this`x, (set l | l in s)`y, `z\n{ 0 }\n").decls
    frames = f.spec.reads[0].exprs
    assert frames[0] == A.FrameField(A.ThisExpr(), "x")
    assert isinstance(frames[1], A.FrameField) and isinstance(frames[1].obj, A.SetComprehension)
    assert frames[2] == A.FrameField(A.ThisExpr(), "z")


def test_attributes_on_a_lambda_reads_clause() -> None:
    e = expr("x reads {:a} o => o.f + x")
    assert isinstance(e, A.Lambda) and e.reads == (A.Name("o"),)


def test_cast_to_an_arrow_type() -> None:
    e = expr("a as bool -> Y")
    assert isinstance(e, A.Cast) and isinstance(e.type, A.ArrowType)


def test_empty_matches() -> None:
    e = program("function F(c: Empty): int { match c }\n").decls[0].body
    assert isinstance(e, A.MatchExpr) and e.cases == ()
    (m,) = program("method M(c: Empty) {\n  match c\n}\n").decls
    assert isinstance(m.body.stmts[0], A.MatchStmt) and m.body.stmts[0].cases == ()


def test_or_pattern_with_a_leading_bar() -> None:
    s = stmt("match i\ncase | ONE | TWO => return;\ncase | _ => return;")
    first, second = s.cases
    assert first.pattern == A.PatAlt((A.PatVar("ONE"), A.PatVar("TWO")))
    assert second.pattern == A.PatWild()


# ---------------------------------------------------------------- statements


def test_attributes_on_local_variables_such_that_and_fail_operators() -> None:
    s = stmt("ghost var {:assumption} a1: bool, a2: bool, {:assumption} a3: bool;")
    assert [p.name for p in s.pats] == ["a1", "a2", "a3"] and len(s.attributes) == 2
    t = stmt("var x: int :- assume {:axiom} Success(1);")
    assert t.op == ":- assume" and isinstance(t.rhs[0].expr, A.Call)
    u = stmt("var y {:nowarn} :| y > 0;")
    assert u.op == ":|" and isinstance(u.such_that, A.BinOp)


def test_forall_without_bound_variables() -> None:
    s = stmt("forall () ensures P() { }")
    assert isinstance(s, A.ForallStmt) and s.vars == () and len(s.ensures) == 1
    t = stmt("forall {\n  L(8);\n}")
    assert isinstance(t, A.ForallStmt) and t.ensures == () and len(t.body.stmts) == 1


def test_opaque_block_and_statement_attributes() -> None:
    s = stmt("opaque\n  ensures x > 3\n{\n  x := 4;\n}")
    assert isinstance(s, A.OpaqueBlock) and s.spec[0].kind == "ensures" and len(s.body.stmts) == 1
    (m,) = program("method M() returns (r: int) {\n  if x { } else {:split true} { }\n  m0() {:a true};\n"
                   "  return {:isolate \"paths\"};\n}\n").decls
    assert [type(s).__name__ for s in m.body.stmts] == ["If", "Assign", "Return"]


def test_old_at_a_numbered_label_and_an_open_slice() -> None:
    e = expr("old@00(x) == s[10:][0]")
    assert e.left == A.Old(A.Name("x"), "00")
    assert isinstance(e.right, A.Index) and isinstance(e.right.seq, A.Slice)


def test_new_forms_keep_their_text() -> None:
    src = "greatest predicate P[nat](x: int) { x decreases to 0 }\n"
    prog = program(src)
    assert text_of(prog, prog.decls[0].body) == "x decreases to 0"

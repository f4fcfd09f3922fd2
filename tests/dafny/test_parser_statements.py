"""Statements: every form of ast.Stmt, with spans on representative nodes."""

from __future__ import annotations

from dspec2test.dafny import ast as A
from parse_helpers import pos, program, stmt, stmts

X, Y = A.Name("x"), A.Name("y")
ONE = A.IntLit(1, "1")


def test_var_declarations() -> None:
    a, b, c, d, e, f, g = stmts(
        "var x := 1;\nvar y: int, z: bool := 2, true;\nghost var g := 3;\nvar (p, q) := t;\n"
        "var Cons(h, _) := xs;\nvar w :| w > 0;\nvar v :- Foo();"
    )
    assert a == A.VarDecl((A.PatVar("x"),), (A.ExprRhs(ONE),), ":=")
    assert pos(a) == (2, 1, 2, 12)
    assert b.pats == (A.PatVar("y", A.NamedType("int")), A.PatVar("z", A.NamedType("bool")))
    assert c.ghost
    assert d.pats == (A.PatTuple((A.PatVar("p"), A.PatVar("q"))),)
    assert e.pats == (A.PatCtor("Cons", (A.PatVar("h"), A.PatWild())),)
    assert f.op == ":|" and f.such_that == A.BinOp(">", A.Name("w"), A.IntLit(0, "0"))
    assert g.op == ":-"
    bare = stmt("var n: nat;")
    assert bare.op is None and bare.rhs == ()


def test_assignments_and_calls() -> None:
    swap, elem, such, call, method_call, fail = stmts(
        "x, y := y, x;\na[i] := 1;\nx :| x > 0;\nCall(x);\nobj.M(1);\n:- Check();"
    )
    assert swap == A.Assign((X, Y), (A.ExprRhs(Y), A.ExprRhs(X)), ":=")
    assert elem.lhs == (A.Index(A.Name("a"), (A.Name("i"),)),)
    assert such.op == ":|" and such.rhs == ()
    assert call.op is None and call.lhs == () and call.rhs[0].expr == A.Call(A.Name("Call"), (X,))
    assert pos(call) == (5, 1, 5, 9)
    assert method_call.rhs[0].expr.callee == A.MemberSelect(A.Name("obj"), "M")
    assert fail.op == ":-" and fail.lhs == ()


def test_a_statement_may_end_in_a_proof_which_is_dropped() -> None:
    # Dafny 4: `by { ... }` after a call, an assignment or a declaration proves it well-formed
    call, assign, such, decl = stmts(
        "L(x) by { reveal F(); }\nx := F(y) by { assert y > 0; }\nx :| x > 0 by { L(x); }\n"
        "var d :| d > 0 by { L(d); }"
    )
    assert call == A.Assign((), (A.ExprRhs(A.Call(A.Name("L"), (X,))),), None)
    assert assign == A.Assign((X,), (A.ExprRhs(A.Call(A.Name("F"), (Y,))),), ":=")
    assert such.op == ":|" and such.lhs == (X,) and such.rhs == ()
    assert decl.op == ":|" and decl.pats == (A.PatVar("d"),)


def test_new_and_havoc() -> None:
    arr, arr2, lit, init, obj, ctor, sized, havoc = [
        s.rhs[0]
        for s in stmts(
            "a := new int[10];\na := new int[3, 4];\na := new int[] [1, 2];\na := new int[5](i => i);\n"
            "c := new C(1);\nc := new C.Init();\na := new int[3][1, 2, 3];\nx := *;"
        )
    ]
    assert arr == A.NewArray(A.NamedType("int"), (A.IntLit(10, "10"),))
    assert len(arr2.dims) == 2
    assert lit.elems == (ONE, A.IntLit(2, "2")) and lit.dims == ()
    assert isinstance(init.init, A.Lambda) and len(init.dims) == 1
    assert obj == A.NewObject(A.NamedType("C"), None, (ONE,))
    assert ctor == A.NewObject(A.NamedType("C"), "Init", ())
    assert sized.dims == (A.IntLit(3, "3"),) and len(sized.elems) == 3
    assert havoc == A.HavocRhs()


def test_if_forms() -> None:
    s = stmt("if x > 0 { x := 1; } else if x < 0 { x := 2; } else { x := 3; }")
    assert isinstance(s, A.If) and isinstance(s.els, A.If) and isinstance(s.els.els, A.Block)
    assert pos(s) == (2, 1, 2, 64)
    assert stmt("if * { }").guard is None
    alt = stmt("if { case x > 0 => x := 1; case x <= y => x := 2; }")
    assert isinstance(alt, A.AltIf) and len(alt.alts) == 2
    assert alt.alts[1].guard == A.BinOp("<=", X, Y)  # `y =>` is not read as a lambda
    bind = stmt("if i, j :| 0 <= i < j { }")
    assert [v.name for v in bind.binding] == ["i", "j"]


def test_loops() -> None:
    w = stmt("while x < 10 invariant 0 <= x decreases 10 - x { x := x + 1; }")
    assert isinstance(w, A.While) and [c.kind for c in w.spec] == ["invariant", "decreases"]
    assert stmt("while * { break; }").guard is None
    f = stmt("for i := 0 to n invariant true { continue; }")
    assert isinstance(f, A.For) and f.var == A.BoundVar("i") and not f.down and f.hi == A.Name("n")
    assert f.body.stmts == (A.Break(is_continue=True),)
    down = stmt("for i: int := 10 downto 0 { }")
    assert down.down and down.var.type == A.NamedType("int")
    assert stmt("for i := 0 to * { }").hi is None


def test_match_statements() -> None:
    braces = stmt("match x { case 0 => y := 0; case -1 => y := 2; case _ => y := 1; }")
    assert isinstance(braces, A.MatchStmt)
    assert braces.cases[0].pattern == A.PatLit(A.IntLit(0, "0"))
    assert braces.cases[1].pattern.value == A.UnOp("-", ONE)
    assert braces.cases[2].pattern == A.PatWild()
    bare = stmt("match xs\n  case Nil => r := 0;\n  case Cons(h, _) => r := h; r := r + 1;")
    assert len(bare.cases) == 2 and len(bare.cases[1].body) == 2
    alt = stmt("match c { case Red | Green => r := 1; case Blue => r := 2; }")
    assert alt.cases[0].pattern == A.PatAlt((A.PatVar("Red"), A.PatVar("Green")))


def test_assert_assume_expect_print() -> None:
    a, labeled, assume, expect, pr = stmts(
        'assert x > 0;\nassert L: x > 0 by { Lemma(); }\nassume {:axiom} x > 0;\nexpect x > 0, "msg";\nprint x, "\\n";'
    )
    assert a == A.AssertStmt("assert", A.BinOp(">", X, A.IntLit(0, "0")))
    assert labeled.label == "L" and isinstance(labeled.by, A.Block)
    assert assume.kind == "assume" and assume.attributes[0].name == "axiom"
    assert expect.kind == "expect" and expect.message == A.StringLit("msg", '"msg"')
    assert pr == A.Print((X, A.StringLit("\n", '"\\n"')))
    assert pos(labeled) == (3, 1, 3, 32)


def test_calc() -> None:
    c = stmt("calc == {\n  x;\n  { Lemma(); }\n  x + 0;\n  < x + 1;\n}")
    assert isinstance(c, A.Calc) and c.op == "=="
    assert [s.op for s in c.steps] == [None, None, "<"]
    assert len(c.steps[1].hint) == 1 and isinstance(c.steps[1].hint[0], A.Block)
    assert pos(c.steps[0]) == (3, 3, 3, 5)


def test_forall_modify_label_break_reveal_return() -> None:
    fa, mod, lab, rev, ret = stmts(
        "forall i | 0 <= i < n ensures a[i] == 0 { a[i] := 0; }\nmodify a, b;\n"
        "label Outer: while true { break Outer; }\nreveal P(), Q;\nreturn 1, 2;"
    )
    assert isinstance(fa, A.ForallStmt) and fa.vars == (A.BoundVar("i"),) and len(fa.ensures) == 1
    assert fa.ensures[0].text == "a[i] == 0"
    assert mod == A.Modify((A.Name("a"), A.Name("b")))
    assert isinstance(lab, A.Labeled) and lab.label == "Outer"
    assert lab.stmt.body.stmts[0] == A.Break("Outer")
    assert rev == A.Reveal((A.Call(A.Name("P"), ()), A.Name("Q")))
    assert ret == A.Return((A.ExprRhs(ONE), A.ExprRhs(A.IntLit(2, "2"))))
    assert stmt("break break;").count == 2


def test_block_and_nested_statement_spans() -> None:
    (blk,) = stmts("{\n  x := 1;\n}")
    assert isinstance(blk, A.Block)
    assert pos(blk) == (2, 1, 4, 2)
    assert pos(blk.stmts[0]) == (3, 3, 3, 10)


def test_constructor_new_phase() -> None:
    a, phase, b = stmts("x := 1;\nnew;\ny := 2;")
    assert phase == A.NewPhase() and pos(phase) == (3, 1, 3, 5)
    assert isinstance(a, A.Assign) and isinstance(b, A.Assign)


def test_old_style_parentheses_and_semicolons() -> None:
    s, w = stmts("if (x > 0) { x := 0; }\nwhile (x < 10)\n  invariant x <= 10;\n{ x := x + 1; }")
    assert s.guard == A.BinOp(">", X, A.IntLit(0, "0"))
    assert w.spec[0].text == "x <= 10"
    assert stmt("if (*) { }").guard is None


def test_braceless_alternatives_and_untyped_arrays() -> None:
    alt = stmt("if\ncase x <= y => x := 1;\ncase x > y => x := 2;")
    assert isinstance(alt, A.AltIf) and len(alt.alts) == 2
    arr, elems = stmts("a := new [n + 1];\nb := new [] [1, 2];")
    assert arr.rhs[0] == A.NewArray(None, (A.BinOp("+", A.Name("n"), ONE),))
    assert elems.rhs[0].elems == (ONE, A.IntLit(2, "2"))


def test_refinement_ellipses() -> None:
    src = "class C ... {\n  method Inc... {\n    ...;\n    assert ...;\n  }\n  ghost predicate Valid...\n}\n"
    (cls,) = program(src).decls
    inc, valid = cls.members
    assert inc.name == "Inc" and inc.params == ()
    assert inc.body.stmts == (A.Skeleton(), A.AssertStmt("assert", None))
    assert pos(inc.body.stmts[0]) == (3, 5, 3, 9)
    assert isinstance(valid, A.Function) and valid.ghost and valid.body is None


def test_fail_operator_forms() -> None:
    a, b, c = stmts("var js :- expect Parse(s);\nx :- assert Check(x);\n:- Need(ok);")
    assert a.op == ":- expect" and a.rhs[0].expr == A.Call(A.Name("Parse"), (A.Name("s"),))
    assert b.op == ":- assert" and b.lhs == (X,)
    assert c.op == ":-" and c.lhs == ()
    plain = stmt("var v :- Foo();")
    assert plain.op == ":-"


def test_untyped_sized_array_with_elements() -> None:
    assert stmt("a := new [3] [2, 5, 8];").rhs[0] == A.NewArray(
        None, (A.IntLit(3, "3"),), None, (A.IntLit(2, "2"), A.IntLit(5, "5"), A.IntLit(8, "8"))
    )


def test_a_forall_statement_without_variables_proves_its_ensures() -> None:
    (fa,) = stmts("forall ensures 0 == n * z { LemmaMulAuto(); }")
    assert isinstance(fa, A.ForallStmt) and fa.vars == () and fa.range is None
    assert [c.text for c in fa.ensures] == ["0 == n * z"] and len(fa.body.stmts) == 1

"""Declarations: modules, imports, exports, types, datatypes, classes, members, attributes, with spans."""

from __future__ import annotations

from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import iter_members
from parse_helpers import pos, program


def test_include_and_nested_comments() -> None:
    prog = program('include "lib/a.dfy"\n/* a /* nested */ comment */\n// line\nconst x := 1\n')
    assert prog.includes == (A.Include("lib/a.dfy"),)
    assert pos(prog.includes[0]) == (1, 1, 1, 20)
    (const,) = prog.decls
    assert const == A.Const("x", None, A.IntLit(1, "1"))
    assert pos(const) == (4, 1, 4, 13)


def test_comment_markers_inside_strings_are_text() -> None:
    prog = program('const s := "/* not a comment */ // nor this"\n')
    assert prog.decls[0].value.value == "/* not a comment */ // nor this"


def test_modules_imports_exports() -> None:
    src = """module A.B refines C {
  import opened D
  import E = F.G
  import opened H`{X, Y}
  import I : J
  export Sig provides f, g reveals T extends Base
  export reveals *
  module Inner { }
}
abstract module Abs { }
"""
    prog = program(src)
    mod, abs_mod = prog.decls
    assert mod.name == "A.B" and mod.refines == "C"
    imports = mod.decls[:4]
    assert imports == (
        A.Import("D", opened=True),
        A.Import("F.G", alias="E"),
        A.Import("H", opened=True, exports=("X", "Y")),
        A.Import("J", alias="I", abstract=True),
    )
    assert pos(imports[1]) == (3, 3, 3, 17)
    assert mod.decls[4] == A.Export("Sig", provides=("f", "g"), reveals=("T",), extends=("Base",))
    assert mod.decls[5] == A.Export(None, reveals=("*",))
    assert isinstance(mod.decls[6], A.Module) and mod.decls[6].name == "Inner"
    assert abs_mod.abstract and pos(abs_mod) == (10, 1, 10, 24)


def test_datatypes() -> None:
    src = """datatype List<T> = Nil | Cons(head: T, tail: List<T>) {
  function Length(): nat { 0 }
}
datatype Color = | Red | Green
codatatype Stream<T> = SCons(T, Stream<T>)
"""
    lst, color, stream = program(src).decls
    assert lst.name == "List" and lst.type_params == (A.TypeParam("T"),)
    assert [c.name for c in lst.ctors] == ["Nil", "Cons"]
    assert lst.ctors[1].params == (
        A.Formal("head", A.NamedType("T")),
        A.Formal("tail", A.NamedType("List", (A.NamedType("T"),))),
    )
    assert pos(lst.ctors[1]) == (1, 26, 1, 54)
    assert [m.name for m in lst.members] == ["Length"]
    assert [c.name for c in color.ctors] == ["Red", "Green"]
    assert stream.co and stream.ctors[0].params[0] == A.Formal("", A.NamedType("T"))


def test_type_declarations() -> None:
    src = """type Pos = x: int | x > 0 witness 1
type Empty = x: int | false witness *
type G = x: int | x > 0 ghost witness 1
type Syn<A> = seq<A>
type Opaque(==)
newtype Byte = x: int | 0 <= x < 256
newtype Word = int
ghost method After() { }
"""
    pos_t, empty, g, syn, opaque, byte, word, after = program(src).decls
    assert pos_t == A.SubsetType("Pos", "x", A.NamedType("int"), A.BinOp(">", A.Name("x"), A.IntLit(0, "0")), A.IntLit(1, "1"))
    assert pos(pos_t) == (1, 1, 1, 36)
    assert empty.witness is None and empty.witness_kind == "*"
    assert g.witness_kind == "ghost" and g.witness == A.IntLit(1, "1")
    assert syn == A.TypeSynonym("Syn", A.NamedType("seq", (A.NamedType("A"),)), type_params=(A.TypeParam("A"),))
    assert opaque == A.TypeSynonym("Opaque", None, characteristics=("==",))
    assert isinstance(byte, A.Newtype) and byte.var == "x" and isinstance(byte.constraint, A.Chain)
    assert word == A.Newtype("Word", None, A.NamedType("int"), None)
    assert isinstance(after, A.Method) and after.ghost  # `ghost` after a subset type is not its witness


def test_a_subset_type_or_newtype_without_a_base_type_takes_the_one_its_literals_say() -> None:
    r0, pos_r, n, small = program("type R0 = r | r >= 0.0 witness 0.0\nnewtype PosR = r | 0.0 < r witness 1.0\n"
                                  "type N = x | 0 <= x < 10\ntype Small = x | x < 2.5 && x > 0.0 witness 1.0\n").decls
    assert r0.base == pos_r.base == small.base == A.NamedType("real")
    assert n.base == A.NamedType("int")


def test_consts_and_fields() -> None:
    src = """class C extends T1, T2<int> {
  var v: int
  ghost var g: set<object>, h: bool
  const k: int := 3
  static const s := 1
  constructor (x: int) { v := x; }
  constructor Init() { }
}
trait T1 { method Abstract() }
"""
    cls, trait = program(src).decls
    assert cls.kind == "class" and cls.extends == (A.NamedType("T1"), A.NamedType("T2", (A.NamedType("int"),)))
    v, g, h, k, s, anon, init = cls.members
    assert v == A.Field("v", A.NamedType("int"))
    assert pos(v) == (2, 3, 2, 13)
    assert g.ghost and h.ghost and h.name == "h"
    assert k == A.Const("k", A.NamedType("int"), A.IntLit(3, "3"))
    assert s.static
    assert anon.kind == "constructor" and anon.name == "" and init.name == "Init"
    assert trait.kind == "trait" and trait.members[0].body is None


def test_functions() -> None:
    src = """function method Old(x: int): int { x }
ghost function Gh(x: int): (r: int) ensures r == x { x }
function ByM(x: int): int { x } by method { return x; }
twostate predicate TP(c: C) reads c { old(c.v) <= c.v }
least predicate Ev(n: nat) { n == 0 }
greatest predicate Inf(n: nat) { true }
predicate P<T(==)>(x: T) { true }
function Decl(x: int): int
"""
    old, gh, bym, tp, ev, inf, p, decl = program(src).decls
    assert old.kind == "function" and not old.ghost and old.result == A.Formal("", A.NamedType("int"))
    assert gh.ghost and gh.result == A.Formal("r", A.NamedType("int"))
    assert pos(gh) == (2, 1, 2, 57)
    assert bym.by_method is not None and isinstance(bym.by_method.stmts[0], A.Return)
    assert tp.kind == "twostate predicate" and tp.result is None and tp.result_type == A.NamedType("bool")
    assert ev.kind == "least predicate" and inf.kind == "greatest predicate"
    assert p.type_params == (A.TypeParam("T", characteristics=("==",)),)
    assert decl.body is None


def test_methods_and_lemmas() -> None:
    src = """method {:test} {:timeLimit 10} M<T>(x: int, ghost y: T) returns (r: int, s: bool)
  requires x > 0
{
  r := x;
}
lemma L() ensures true { }
twostate lemma TL() { }
greatest lemma GL() { }
method {:axiom} Ax(x: int) returns (y: int) ensures y > x
"""
    m, lemma, tl, gl, ax = program(src).decls
    assert m.kind == "method" and m.name == "M" and not m.ghost
    assert [a.name for a in m.attributes] == ["test", "timeLimit"]
    assert m.attributes[1].args == (A.IntLit(10, "10"),)
    assert m.params == (A.Formal("x", A.NamedType("int")), A.Formal("y", A.NamedType("T"), ghost=True))
    assert [f.name for f in m.returns] == ["r", "s"]
    assert pos(m) == (1, 1, 5, 2)
    assert lemma.kind == "lemma" and lemma.ghost
    assert tl.kind == "twostate lemma" and gl.kind == "greatest lemma"
    assert ax.body is None and ax.spec.ensures[0].text == "y > x"


def test_iterator_is_kept_with_span() -> None:
    prog = program("iterator Gen(n: nat) yields (x: nat)\n  yield ensures x < n\n{ }\nmethod After() { }\n")
    it, after = prog.decls
    assert it == A.Iterator("Gen")
    assert pos(it) == (1, 1, 3, 4)
    assert after.name == "After"


def test_iter_members_qualifies_names() -> None:
    src = """method Top() { }
module M {
  class C { method Meth() { } function F(): int { 1 } }
  module N { lemma L() { } }
  datatype D = A { predicate P() { true } }
}
"""
    names = [(name, m.kind) for name, m in iter_members(program(src))]
    assert names == [
        ("Top", "method"), ("M.C.Meth", "method"), ("M.C.F", "function"), ("M.N.L", "lemma"), ("M.D.P", "predicate"),
    ]


def test_types_in_signatures() -> None:
    src = """method M<+A, -B, T(0), U(==, !new)>(f: int -> int, g: (int, bool) --> real, h: () ~> int,
    a: array2<int>, o: object?, b: bv8, t: (int, (bool, char)), u: ())
"""
    (m,) = program(src).decls
    assert [(p.name, p.variance, p.characteristics) for p in m.type_params] == [
        ("A", "+", ()), ("B", "-", ()), ("T", "", ("0",)), ("U", "", ("==", "!new")),
    ]
    types = {f.name: f.type for f in m.params}
    assert types["f"] == A.ArrowType((A.NamedType("int"),), A.NamedType("int"))
    assert types["g"] == A.ArrowType((A.NamedType("int"), A.NamedType("bool")), A.NamedType("real"), "-->")
    assert types["h"] == A.ArrowType((), A.NamedType("int"), "~>")
    assert types["a"] == A.NamedType("array2", (A.NamedType("int"),))
    assert types["o"] == A.NamedType("object?")
    assert types["t"] == A.TupleType((A.NamedType("int"), A.TupleType((A.NamedType("bool"), A.NamedType("char")))))
    assert types["u"] == A.TupleType(())
    (f,) = program("function Get(i: nat): (ret: (int, ghost nat)) { (i, ghost i) }").decls
    assert f.result.type == A.TupleType((A.NamedType("int"), A.NamedType("nat")))
    assert pos(m.params[0]) == (1, 37, 1, 50)


def test_at_attributes_before_declarations() -> None:
    src = 'module M {\n  const k := f\n  @Test\n  @ResourceLimit("1e7")\n  method T() { }\n}\n'
    (mod,) = program(src).decls
    const, meth = mod.decls
    assert const.value == A.Name("f")  # `f` then a line starting with `@` is not the two-state call f@Test
    assert [a.name for a in meth.attributes] == ["Test", "ResourceLimit"]
    assert meth.attributes[1].args == (A.StringLit("1e7", '"1e7"'),)
    assert pos(meth) == (3, 3, 5, 17)


def test_constructor_defaults_and_numeric_labels() -> None:
    src = "datatype L<T> = Nil | Cons(T, tail: L<T> := Nil)\nlemma X(y: int) requires 8: 0 <= y { label 0: assert y >= 0; }\n"
    dt, lemma = program(src).decls
    assert dt.ctors[1].params[1] == A.Formal("tail", A.NamedType("L", (A.NamedType("T"),)), default=A.Name("Nil"))
    assert lemma.spec.requires[0].label == "8"
    assert lemma.body.stmts[0].label == "0"

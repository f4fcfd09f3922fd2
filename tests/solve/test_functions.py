"""Datatypes (generic, recursive), user functions (inlined and recursive), match."""

from dspec2test.dafny import ast as A
from dspec2test.solve import Solver
from tests.solve.build import T, call, card, exists, function, i, idx, ite, n, op, program, sel

SEQ = T("seq", T("int"))

# function Sum(s: seq<int>): int { if |s| == 0 then 0 else s[0] + Sum(s[1..]) }
SUM = function("Sum", [("s", SEQ)], T("int"),
               ite(op("==", card(n("s")), i(0)), i(0),
                   op("+", idx(n("s"), 0), call("Sum", A.Slice(n("s"), i(1), None)))))

# datatype List<T> = Nil | Cons(head: T, tail: List<T>)
LIST = A.Datatype("List", (A.Ctor("Nil", ()), A.Ctor("Cons", (A.Formal("head", T("T")), A.Formal("tail", T("List", T("T")))))),
                  type_params=(A.TypeParam("T"),))
# function Length<T>(l: List<T>): nat { match l case Nil => 0 case Cons(_, t) => 1 + Length(t) }
LENGTH = function("Length", [("l", T("List", T("T")))], T("nat"),
                  A.MatchExpr(n("l"), (A.MatchCase(A.PatVar("Nil"), i(0)),
                                       A.MatchCase(A.PatCtor("Cons", (A.PatWild(), A.PatVar("t"))),
                                                   op("+", i(1), call("Length", n("t")))))),
                  type_params=("T",))


def test_recursive_sum_of_a_sequence():
    prog = program(SUM)
    s = Solver(prog, [("s", SEQ, False), ("r", T("int"), True)])
    cons = [op("==", card(n("s")), i(3)), op("==", n("r"), call("Sum", n("s"))), op("==", n("r"), i(10)),
            op(">", idx(n("s"), 0), i(4))]
    m = s.solve(cons)
    assert m is not None and sum(m.raw["s"]) == 10 and m.raw["r"] == 10 and m.raw["s"][0] > 4
    assert s.outputs_unique(cons[:2], m)


def test_non_recursive_function_is_inlined():
    double = function("Double", [("x", T("int"))], T("int"), op("*", n("x"), i(2)))
    pos = function("Pos", [("x", T("int"))], None, op(">", n("x"), i(0)), kind="predicate")
    s = Solver(program(double, pos), [("y", T("int"), False)])
    m = s.solve([op("==", call("Double", n("y")), i(14)), call("Pos", n("y"))])
    assert m.values["y"] == "7"


def test_generic_list_with_recursive_length():
    s = Solver(program(LIST, LENGTH), [("l", T("List", T("int")), False)])
    m = s.solve([op("==", call("Length", n("l")), i(2)), op("==", sel(n("l"), "head"), i(5))])
    assert m is not None
    text = m.values["l"]
    assert text.startswith("Cons(5, Cons(") and text.endswith(", Nil))")
    assert m.raw["l"].ctor == "Cons" and m.raw["l"].args[1].args[1].ctor == "Nil"


def test_datatype_recognizer_and_constructor_call():
    s = Solver(program(LIST), [("l", T("List", T("int")), False)])
    m = s.solve([sel(n("l"), "Cons?"), op("==", n("l"), call("Cons", i(-2), n("Nil")))])
    assert m.values["l"] == "Cons(-2, Nil)"


def test_datatype_in_module_is_qualified():
    color = A.Datatype("Color", (A.Ctor("Red", ()), A.Ctor("Green", ())))
    mod = A.Module("M", (color,))
    s = Solver(program(mod), [("c", T("M.Color"), False)])
    m = s.solve([sel(n("c"), "Green?")])
    assert m.values["c"] == "M.Color.Green"


def test_quantified_call_of_recursive_function_with_nat_bound():
    # function sum(s: seq<int>, n: nat): int { if |s| == 0 || n == 0 then 0 else s[0] + sum(s[1..], n-1) }
    sum2 = function("sum", [("s", SEQ), ("k", T("nat"))], T("int"),
                    ite(op("||", op("==", card(n("s")), i(0)), op("==", n("k"), i(0))), i(0),
                        op("+", idx(n("s"), 0), call("sum", A.Slice(n("s"), i(1), None), op("-", n("k"), i(1))))))
    s = Solver(program(sum2), [("ops", SEQ, False)])
    below = exists("k", op("&&", op("<=", n("k"), card(n("ops"))), op("<", call("sum", n("ops"), n("k")), i(0))), T("nat"))
    m = s.solve([below])
    assert m is not None
    prefix_sums = [sum(m.raw["ops"][:k]) for k in range(len(m.raw["ops"]) + 1)]
    assert min(prefix_sums) < 0
    m = s.solve([A.UnOp("!", below), op("==", card(n("ops")), i(3))])
    assert m is not None and all(sum(m.raw["ops"][:k]) >= 0 for k in range(4))


def test_an_untyped_bound_variable_passed_to_a_function_takes_its_parameter_type():
    from dspec2test.dafny.parser import parse_program
    from dspec2test.model.contracts import select

    prog = parse_program("""
type interval = iv: (int, int) | iv.0 <= iv.1 witness (0, 0)
predicate inside(n: int, iv: interval) { iv.0 <= n < iv.1 }
method M(n: int) returns (r: bool)
  ensures r == exists iv | inside(n, iv) :: iv.1 - iv.0 == 1 && iv.0 == 3
""", "p.dfy")
    [c] = select(prog)
    s = Solver(prog, [(v.name, v.type, v.is_output) for v in c.vars], member=c.member)
    m = s.solve([c.ensures[0].expr, A.Name("r")])  # int for iv was a Z3 sort error
    assert m is not None and m.raw["n"] == 3

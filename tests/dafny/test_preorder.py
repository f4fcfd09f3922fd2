"""ast.preorder visits every node once, parents first, in field order."""

from dspec2test.dafny import ast as A


def test_preorder_order_and_tuples():
    e = A.BinOp("+", A.Call(A.Name("f"), (A.Name("x"), A.IntLit(1))), A.Name("y"))
    kinds = [type(n).__name__ + (f":{n.name}" if isinstance(n, A.Name) else "") for n in A.preorder(e)]
    assert kinds == ["BinOp", "Call", "Name:f", "Name:x", "IntLit", "Name:y"]
    assert list(A.preorder((A.Name("a"), (A.Name("b"),)))) == [A.Name("a"), A.Name("b")]

"""A test's Dafny literal read back as a plain value of its type (the inverse of solve/literal.literal), so a
failing test's inputs can be shrunk whichever stage wrote them. The literal is read by the parser, as an
expression of a one-line program; what is not a literal of the type is None."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from dspec2test.dafny import ast
from dspec2test.dafny.parser import parse_program
from dspec2test.errors import DspecError
from dspec2test.model.resolve import RType
from dspec2test.solve.literal import Data

HOLDER = "Dspec2testLiteral"

Fields = Callable[[RType, ast.Ctor], list[tuple[str, RType]]]


class NotALiteral(Exception):
    pass


def value_of(text: str, t: RType, fields: Fields) -> Any | None:
    """The plain value the literal `text` of type t denotes, or None."""
    try:
        program = parse_program(f"const {HOLDER} := {text}\n", "<literal>")
    except DspecError:
        return None
    decl = next((d for d in program.decls if isinstance(d, ast.Const) and d.name == HOLDER), None)
    if decl is None or decl.value is None:
        return None
    try:
        return _value(decl.value, t, fields)
    except (NotALiteral, ValueError, IndexError):
        return None


def _value(e: ast.Expr, t: RType, fields: Fields) -> Any:
    b = t.base
    k = b.kind
    if k in ("int", "bv"):
        return _int(e)
    if k == "bool":
        if isinstance(e, ast.BoolLit):
            return e.value
        raise NotALiteral()
    if k == "char":
        if isinstance(e, ast.CharLit) and e.value:
            return ord(e.value[0])
        raise NotALiteral()
    if k == "real":
        if isinstance(e, ast.UnOp) and e.op == "-":
            return -_value(e.operand, t, fields)
        if isinstance(e, ast.RealLit):
            return Fraction(e.text.replace("_", ""))
        return Fraction(_int(e))
    if k in ("seq", "array"):
        if isinstance(e, ast.StringLit) and b.args[0].base.kind == "char":
            return tuple(ord(c) for c in e.value)
        if isinstance(e, ast.SeqDisplay):
            return tuple(_value(x, b.args[0], fields) for x in e.elems)
        raise NotALiteral()
    if k == "set":
        if isinstance(e, ast.SetDisplay) and not e.infinite:
            return frozenset(_value(x, b.args[0], fields) for x in e.elems)
        raise NotALiteral()
    if k == "multiset":
        if isinstance(e, ast.MultisetDisplay):
            return tuple(_value(x, b.args[0], fields) for x in e.elems)
        raise NotALiteral()
    if k == "map":
        if isinstance(e, ast.MapDisplay) and not e.infinite:
            return tuple((_value(kk, b.args[0], fields), _value(v, b.args[1], fields)) for kk, v in e.items)
        raise NotALiteral()
    if k == "tuple":
        if isinstance(e, ast.TupleExpr) and len(e.elems) == len(b.args):
            return tuple(_value(x, a, fields) for x, a in zip(e.elems, b.args))
        raise NotALiteral()
    if k == "data":
        decl, _ = b.datatype
        callee, args = (e.callee, e.args) if isinstance(e, ast.Call) else (e, ())
        name = callee.name if isinstance(callee, (ast.Name, ast.MemberSelect)) else ""
        ctor = next((c for c in decl.ctors if c.name == name.split(".")[-1]), None)
        if ctor is None:
            raise NotALiteral()
        fts = fields(b, ctor)
        if len(fts) != len(args):
            raise NotALiteral()
        return Data(ctor.name, tuple(_value(x, ft, fields) for x, (_, ft) in zip(args, fts)))
    raise NotALiteral()


def _int(e: ast.Expr) -> int:
    if isinstance(e, ast.IntLit):
        return e.value
    if isinstance(e, ast.UnOp) and e.op == "-" and isinstance(e.operand, ast.IntLit):
        return -e.operand.value
    raise NotALiteral()

"""Helpers shared by the transformer modules: spans from lark metas, picking typed children, a wrapper.

The grammar's optional parts arrive as None placeholders or are absent; rules pick their children by
type. `Wrap` carries values that are not AST nodes (keyword words, lists, optional parts) up one level.
"""

from __future__ import annotations

from typing import Any

from lark import Token
from lark.tree import Meta

from dspec2test.dafny import ast as A
from dspec2test.errors import DspecError

TYPES = (A.NamedType, A.TupleType, A.ArrowType)
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


class TransformError(DspecError):
    """A tree the grammar accepts but Dafny does not (e.g. a typed name used as an expression)."""


def span(meta: Meta) -> A.Span:
    if getattr(meta, "empty", True):
        return A.NO_SPAN
    return A.Span(meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos)


def tok_span(tok: Token) -> A.Span:
    # a token the lexer made has every position (lark types them as optional for tokens made by hand)
    return A.Span(tok.line or 0, tok.column or 0, tok.end_line or 0, tok.end_column or 0, tok.start_pos or 0,
                  tok.end_pos or 0)


def join(a: A.Span, b: A.Span) -> A.Span:
    return A.Span(a.line, a.col, b.end_line, b.end_col, a.start, b.end)


def decode_escapes(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt == "u":
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:  # \U{1F600}
            close = body.index("}", i)
            out.append(chr(int(body[i + 3 : close].replace("_", ""), 16)))
            i = close + 1
    return "".join(out)


def fail_op(tok: Token) -> str:
    """`:-`, or `:- expect` (and assert, assume) with the spacing normalized."""
    keyword = str(tok)[2:].strip()
    return f":- {keyword}" if keyword else ":-"


def int_value(text: str) -> int:
    digits = text.replace("_", "")
    return int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)


def real_text(text: str) -> str:
    """A real literal as a plain decimal: `1.23e2` is "123.0", `5e-1` is "0.5", `1.` is "1.0", `.5` is "0.5"
    (the exponent and short forms are Dafny 4.11's; the decimal reads in every Dafny and in Z3)."""
    if "e" not in text and not text.startswith(".") and not text.endswith("."):
        return text
    mantissa, _, exponent = text.replace("_", "").partition("e")
    exponent = exponent or "0"
    whole, _, frac = mantissa.partition(".")
    digits, point = whole + frac, len(whole) + int(exponent)
    if point <= 0:
        digits, point = "0" * (1 - point) + digits, 1
    if point >= len(digits):
        digits += "0" * (point - len(digits) + 1)
    return f"{digits[:point].lstrip('0') or '0'}.{digits[point:].rstrip('0') or '0'}"


def strs(children: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(str(c) for c in children if isinstance(c, Token))


def of_type(children: tuple[Any, ...], cls: type | tuple[type, ...]) -> list[Any]:
    return [c for c in children if isinstance(c, cls)]


def first_of(children: tuple[Any, ...], cls: type | tuple[type, ...]) -> Any:
    for c in children:
        if isinstance(c, cls):
            return c
    return None


def exprs_of(children: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(c for c in children if c is not None and not isinstance(c, (Token, list, tuple)))


class Wrap:
    """Intermediate values that are not AST nodes (lists, keyword words, optional parts)."""

    __slots__ = ("kind", "value", "span")

    def __init__(self, kind: str, value: Any, sp: A.Span = A.NO_SPAN):
        self.kind, self.value, self.span = kind, value, sp

    def __repr__(self) -> str:
        return f"Wrap({self.kind!r}, {self.value!r})"


def wraps(children: tuple[Any, ...], kind: str) -> list[Wrap]:
    return [c for c in children if isinstance(c, Wrap) and c.kind == kind]


def wrap_value(children: tuple[Any, ...], kind: str, default: Any = None) -> Any:
    for c in children:
        if isinstance(c, Wrap) and c.kind == kind:
            return c.value
    return default


def fold(op: str, operands: tuple[Any, ...]) -> Any:
    result = operands[0]
    for right in operands[1:]:
        result = A.BinOp(op, result, right, span=join(result.span, right.span))
    return result

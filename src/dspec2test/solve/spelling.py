"""How a resolved type is spelled in Z3 sort names and casts: one spelling for types.py and the datatype
groups of recursive.py, which types.py builds."""

from __future__ import annotations

from dspec2test.model.resolve import RType


def rtype_str(t: RType) -> str:
    """Dafny spelling of a resolved type (used in sort names and casts)."""
    if t.kind in ("data", "subset", "newtype"):
        if t.kind == "subset" and t.name == "nat":
            return "nat"
        return t.name + (f"<{', '.join(rtype_str(a) for a in t.args)}>" if t.kind == "data" and t.args else "")
    if t.kind == "bv":
        return f"bv{t.width}"
    if t.kind == "seq" and t.is_string:
        return "string"
    if t.kind == "tuple":
        return "(" + ", ".join(rtype_str(a) for a in t.args) + ")"
    if t.kind == "arrow":
        params = ", ".join(rtype_str(a) for a in t.args[:-1])
        return f"({params}) -> {rtype_str(t.args[-1])}"
    if t.args:
        return f"{t.kind}<{', '.join(rtype_str(a) for a in t.args)}>"
    return t.kind

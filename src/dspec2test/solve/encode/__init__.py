"""Dafny contract expressions to Z3, with the Dafny type of every subterm (see values.TV).

Names resolve through `dafny.resolve`; user functions are inlined (non-recursive) or become Z3 recursive
functions; quantifiers with an integer lower bound (or over a collection) are expanded a few steps and
keep a residual Z3 quantifier for the rest, dropped when the bound provably leaves no rest.

The encoder is one class put together from the concerns of this package: base.py (state, dispatch, literals
and names, typing helpers, what several concerns use), operators.py, collections.py, control.py, calls.py
(names, objects and calls).
"""

from __future__ import annotations

from dspec2test.solve.encode.base import ANY, NULL, AtomMisuse
from dspec2test.solve.encode.calls import CallsMixin
from dspec2test.solve.encode.collections import CollectionsMixin
from dspec2test.solve.encode.control import ControlMixin
from dspec2test.solve.encode.operators import OperatorsMixin


class Encoder(OperatorsMixin, CollectionsMixin, ControlMixin, CallsMixin):
    """Dafny contract expressions to Z3 terms with their Dafny types (values.TV)."""


__all__ = ["ANY", "NULL", "AtomMisuse", "Encoder"]

"""How an input a test makes by calling a function of the program is written (factories.py makes them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Made:
    """An input made by a call: the callee as the tests file writes it, and its arguments' solver variables."""

    callee: str
    args: tuple[str, ...]

    def text(self, values: dict[str, str]) -> str:
        return f"{self.callee}({', '.join(values[a] for a in self.args)})"

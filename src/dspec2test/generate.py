"""Front door of generation: program file -> partitions -> scenarios -> solved test cases -> tests text.

Implemented by the partition/solve/emit stages; this module only wires them (see `generate`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dspec2test.errors import Diagnostic
from dspec2test.records import TestCase


@dataclass(frozen=True)
class GenerateOptions:
    methods: tuple[str, ...] = ()  # --method NAME (qualified or short); empty: every member with a contract
    fdnf: bool = False  # --fdnf
    bva: int | None = None  # --bva [N]: None off, else the default extreme (100)
    simplify: bool = False  # --simplify: concrete expected outputs where unique
    repeat: int = 1  # --repeat N (ignored with bva)
    max_partitions: int = 64
    length_limit: int = 10
    timeout_s: float = 10.0  # Z3 time limit per query
    unverified: tuple[str, ...] | None = None  # members selected by `dafny verify` failures, plus {:testEntry}


@dataclass(frozen=True)
class Generated:
    program: str  # path of the program file
    tests_text: str  # the Dafny tests file (to be compiled together with the program)
    cases: tuple[TestCase, ...]
    manifest: dict  # the `generate --json` manifest (DESIGN.md section 5)
    diagnostics: tuple[Diagnostic, ...] = field(default_factory=tuple)  # parse errors, unsupported, caps

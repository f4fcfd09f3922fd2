"""What running tests on one compiled program told us: per test, and per build."""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.records import Status


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # not a pytest class, despite the name
    name: str  # as Dafny prints it: qualified (`Mod.Test_x`) for tests inside a module
    status: Status
    message: str = ""


@dataclass(frozen=True)
class RunResult:
    results: tuple[TestResult, ...]  # in the order the test runner lists them
    build_error: str | None = None  # Dafny's message when program plus tests do not build
    seconds: float = 0.0  # wall time of the whole run, build included
    build_seconds: float = 0.0

    def by_name(self) -> dict[str, TestResult]:
        return {r.name: r for r in self.results}

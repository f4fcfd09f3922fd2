"""What running tests on one compiled program told us: per test, and per build."""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.records import Status


SUBJECT_MODULE = "BenchSubject"  # batched runs wrap program version k in module BenchSubject<kkk>


def subject_of(test_name: str) -> str:
    """The wrapping module of a batched test's printed name; "" for a run of one version."""
    head = test_name.partition(".")[0]
    return head if head.startswith(SUBJECT_MODULE) and head[len(SUBJECT_MODULE):].isdigit() else ""


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
    slowest_test_cpu_s: float = 0.0  # the most CPU time a single test took (py driver only; 0: not measured)

    def by_name(self) -> dict[str, TestResult]:
        return {r.name: r for r in self.results}

"""Shrinking (issue 42): a finding's first input is the smallest that still fails the same clause in the same
partition, found by running the implementation on smaller candidates; the other inputs follow."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.generate import GenerateOptions
from dspec2test.model.program import load_program
from dspec2test.model.resolve import Resolver
from dspec2test.pipeline import run_program
from dspec2test.records import ScenarioKind, Status
from dspec2test.report.findings import group
from dspec2test.run import RunOptions
from dspec2test.search.literals import value_of
from dspec2test.search.shrink import smaller_values
from dspec2test.toolchain import find_toolchain

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conditional_get.dfy"
SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "search" / "shapes.dfy"


@pytest.mark.dafny
def test_the_examples_first_failing_input_is_two_small_elements():
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    tested = run_program(str(EXAMPLE), GenerateOptions(jobs=2), RunOptions(target="py"))
    findings, _ = group(tested.result.verdicts)
    [finding] = [f for f in findings if f.method == "LastOrDefault"]
    first = finding.first
    assert first.status is Status.FAILED
    s = [int(x) for x in first.inputs["s"].strip("[]").split(", ")]
    assert len(s) == 2 and all(-2 <= x <= 2 for x in s), first.inputs
    # the shrunk test is a real test of its own, run like the others, in the failing input's partition
    shrunk = [tc for tc in tested.cases if tc.kind is ScenarioKind.SHRUNK]
    assert shrunk and all(tc.method == "LastOrDefault" for tc in shrunk)
    by_test = {v.test: v for v in tested.result.verdicts}
    assert all(by_test[tc.name].status is Status.FAILED for tc in shrunk)


def test_without_the_search_nothing_is_shrunk():
    if not find_toolchain().dafny:
        pytest.skip("dafny not found")
    tested = run_program(str(EXAMPLE), GenerateOptions(jobs=2, search=False), RunOptions(target="py"))
    assert not [tc for tc in tested.cases if tc.kind is ScenarioKind.SHRUNK]


def test_smaller_values_are_smaller_and_literals_read_back():
    program = load_program(str(SHAPES)).program
    resolver = Resolver(program)
    from dspec2test.dafny import ast
    t = resolver.rtype(ast.NamedType("seq", (ast.NamedType("Shape"),)), resolver.scope_of(None))
    value = value_of("[Rect(4, 4), Circle(7)]", t, resolver.ctor_fields)
    assert value is not None and len(value) == 2
    smaller = list(smaller_values(value, t, resolver.ctor_fields))
    assert () in smaller and value[:1] in smaller
    assert all(len(v) < 2 or v != value for v in smaller)
    # a nat field never goes below 0
    assert all(x.args[0] >= 0 for v in smaller for x in v if x.ctor == "Circle")

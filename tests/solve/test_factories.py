"""Inputs a test makes by calling the program's function that returns their type (solve/factories.py): a
parser, a datatype holding a function under a quantified constraint with no witness a test could write."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.dafny.parser import parse_program
from dspec2test.generate import GenerateOptions, generate
from dspec2test.generation.member import default_solver_factory
from dspec2test.model.contracts import iter_members, member_contract
from dspec2test.records import Status
from dspec2test.run import RunOptions, run_tests

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "functions"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    prog = tmp_path_factory.mktemp("parser") / "parser.dfy"
    prog.write_text((FIXTURES / "parser.dfy").read_text())
    return prog, generate(str(prog), GenerateOptions(bva=100))


def test_an_input_parser_is_made_by_the_function_that_returns_its_type(generated):
    _, got = generated
    assert {tc.method for tc in got.cases} == {"Parsers.Make", "Parsers.Run", "Parsers.Twice"}
    for tc in got.cases:
        if tc.method != "Parsers.Make":
            assert tc.inputs["p"].startswith("Parsers.Make(")
            assert int(tc.inputs["p"][len("Parsers.Make("):-1]) >= 0  # the function's own requires
            if tc.method == "Parsers.Run":  # x >= p.start, decided through Make's body
                assert int(tc.inputs["x"]) >= int(tc.inputs["p"][len("Parsers.Make("):-1])
    assert any("p is made by Parsers.Make(start)" in d.message for d in got.diagnostics)


@pytest.mark.dafny
@pytest.mark.parametrize("name, failing", [("parser.dfy", set()), ("parser_bug.dfy", {"Parsers.Run", "Parsers.Twice"})])
def test_tests_with_a_made_parser_pass_and_catch_planted_bugs(generated, tmp_path, name, failing):
    _, got = generated
    target = tmp_path / "parser.dfy"
    target.write_text((FIXTURES / name).read_text())
    verdicts = run_tests(target, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert verdicts and {v.status for v in verdicts} <= {Status.PASSED, Status.FAILED}
    assert {v.method for v in verdicts if v.status is Status.FAILED} == failing


OPAQUE = """
module Parsers {
  datatype P_ = P(ghost start: int, fn: int -> int)
  ghost predicate Good(p: P_) { forall x :: p.fn(x) >= x }
  type Parser = p: P_ | Good(p) witness *
  function Make(start: int): (p: Parser) { P(start, (x: int) => x + |seq(2, i => i)|) }
  method Peek(p: Parser, x: int) returns (r: int)
    requires x >= p.start
    requires p.fn(x) > x
  { r := p.fn(x); }
}
"""


def test_what_reads_a_function_whose_body_does_not_encode_is_not_decided():
    """Make's lambda builds a sequence the encoder does not model: the parser holds an opaque function, so
    admission decides the requires on start but not the one on fn (no test rests on a guess of it)."""
    program = parse_program(OPAQUE, "opaque.dfy")
    member = next(d for _, d in iter_members(program.decls) if getattr(d, "name", "") == "Peek")
    contract = member_contract(program, member)
    assert contract is not None
    solver = default_solver_factory(GenerateOptions(isolate=False))(
        program, [(v.name, v.type, v.is_output) for v in contract.solver_vars], member)
    assert solver.make_from_functions() == ["p is made by Parsers.Make(start), the program's function that returns "
                                            "its type, with its arguments solved for"]
    on_start, on_fn = ([c.expr] for c in contract.requires)
    assert solver.admits({"p": "Parsers.Make(5)", "x": "6"}, on_start) is True
    assert solver.admits({"p": "Parsers.Make(5)", "x": "4"}, on_start) is False
    assert solver.admits({"p": "Parsers.Make(5)", "x": "6"}, on_fn) is None


HIDDEN = Path(__file__).resolve().parents[1] / "fixtures" / "modules"


@pytest.mark.dafny
@pytest.mark.parametrize("name, failing", [("hidden_factory.dfy", set()), ("hidden_factory_bug.dfy", {"Q.Size"})])
def test_an_input_of_a_datatype_exported_opaque_is_made_by_a_provided_function(tmp_path, name, failing):
    prog = tmp_path / "hidden_factory.dfy"
    prog.write_text((HIDDEN / "hidden_factory.dfy").read_text())
    got = generate(str(prog), GenerateOptions(bva=100))
    assert [tc.inputs["q"] for tc in got.cases] == ["Q.Empty()"]
    prog.write_text((HIDDEN / name).read_text())
    verdicts = run_tests(prog, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    assert verdicts and {v.status for v in verdicts} <= {Status.PASSED, Status.FAILED}
    assert {v.method for v in verdicts if v.status is Status.FAILED} == failing


@pytest.mark.dafny
@pytest.mark.parametrize("name, failing", [("witnessed_parser.dfy", set()), ("witnessed_parser_bug.dfy", {"Parsers.Parse"})])
def test_an_input_parser_is_made_by_its_types_witness_call(tmp_path, name, failing):
    """`type Parser<T> = ... witness Never<T>()`: no function returns a Parser<int>, but the witness's call
    does, instantiated by the input's type (the lambda in its body, `_ => Fail`, is a Result<int> one)."""
    prog = tmp_path / "witnessed_parser.dfy"
    prog.write_text((FIXTURES / "witnessed_parser.dfy").read_text())
    got = generate(str(prog), GenerateOptions(bva=100))
    assert {tc.inputs["p"] for tc in got.cases if tc.method == "Parsers.Parse"} == {"Parsers.Never()"}
    assert any("p is made by Parsers.Never(), its type's witness" in d.message for d in got.diagnostics)
    prog.write_text((FIXTURES / name).read_text())
    verdicts = run_tests(prog, got.tests_text, got.cases, RunOptions(target="py")).verdicts
    # Never's one ensures, Good(p), quantifies over every integer: its test runs and checks nothing
    never = {v.status for v in verdicts if v.method == "Parsers.Never"}
    assert never <= {Status.NOT_TESTED} and all(v.message.startswith("ran; none of its 1 clause")
                                                for v in verdicts if v.method == "Parsers.Never")
    assert verdicts and {v.status for v in verdicts if v.method != "Parsers.Never"} <= {Status.PASSED, Status.FAILED}
    assert {v.method for v in verdicts if v.status is Status.FAILED} == failing


def test_a_member_whose_requires_reads_an_opaque_function_of_a_made_input_gets_no_test():
    """Admission cannot decide `p.fn(x) > x` on a Make(..) whose lambda does not encode: Peek gets no test (a
    test on inputs its requires may reject, unchecked where the requires is ghost, would be a false alarm
    waiting); From's requires reads the start only, which Make's body decides."""
    got = generate(str(FIXTURES / "opaque_parser.dfy"), GenerateOptions(bva=100))
    assert {tc.method for tc in got.cases} == {"Parsers.From"}
    assert any("Parsers.Peek" in d.message and "not known to meet the requires" in d.message for d in got.diagnostics)

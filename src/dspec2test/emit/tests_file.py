"""The Dafny tests file: one `{:test}` method per solved scenario, in the format of TEAM.md.

Inside a test, in order: inputs as typed `var`s named like the parameters (so the contract's clauses
print unchanged), precondition and subset-type `expect`s that blame the input, the call, a print of
each actual output, then the oracles. Text is built as lists of lines and joined once; nothing here
depends on dict or set iteration order beyond insertion order, so output is byte-for-byte stable.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr, print_type, string_literal
from dspec2test.emit.compilable import GhostIndex, why_not_compilable
from dspec2test.emit.metadata import write_metadata
from dspec2test.emit.old import Snapshots, strip_old
from dspec2test.errors import Unsupported
from dspec2test.partition.contracts import Contract, ContractClause, Var
from dspec2test.partition.types import TypeIndex
from dspec2test.partition.walk import free_names, rebuild, substitute
from dspec2test.records import Check, CheckKind, TestCase
from dspec2test.emit.markers import MARK, Event

BAD_INPUT = "the generated input is wrong, not the program"
INSTANCE = "dspec2test_obj"  # the receiver for instance members; Dafny names cannot start with "_"
_VALUE_KINDS = {"int", "bool", "char", "real", "seq", "set", "multiset", "map", "datatype"}


@dataclass(frozen=True)
class EmitContext:
    program: ast.Program
    types: TypeIndex
    ghosts: GhostIndex

    @staticmethod
    def of(program: ast.Program) -> "EmitContext":
        return EmitContext(program, TypeIndex.of(program), GhostIndex.of(program))


@dataclass(frozen=True)
class Checks:
    """The clauses of a contract as `expect`s, and those that cannot be compiled (with the reason)."""

    requires: tuple[tuple[ContractClause, ast.Expr], ...]
    ensures: tuple[tuple[ContractClause, ast.Expr], ...]
    unchecked: tuple[tuple[ContractClause, str], ...]
    snapshots: tuple[str, ...] = ()  # declarations, before the call, of the values old() reads


def test_name(contract: Contract, partition: int, scenario: int) -> str:
    return f"Test_{member_tag(contract.name)}_p{partition}_s{scenario}"


def member_tag(qualified: str) -> str:
    """The member's qualified name as one Dafny identifier, injectively: a dot becomes a prime and a
    prime of the name is doubled. A name never starts with a prime, so in a run of primes an odd count
    ends in a dot: `M.A_B` -> `M'A_B`, `M_A.B` -> `M_A'B`, and top-level names stay as they are."""
    return "'".join(part.replace("'", "''") for part in qualified.split("."))


def dafny_string(text: str) -> str:
    """A Dafny string literal holding `text` on one line (a message may quote a multi-line clause)."""
    return string_literal(" ".join(text.split()))


def checks_of(contract: Contract, ctx: EmitContext) -> Checks:
    """Split the clauses into compiled checks (rewritten for the test's scope) and unchecked ones."""
    reqs, enss, unchecked = [], [], []
    snapshots = Snapshots(contract, lambda e: in_test_scope(contract, e))
    for c in contract.clauses:
        expr = strip_old(c.expr) if c.kind == "requires" else snapshots.rewrite(c.expr)
        # judged on the clause as written (a snapshot hides what it calls), old() aside where it compiles
        reason = why_not_compilable(c.expr if expr is None else strip_old(c.expr), ctx.ghosts)
        ghost = sorted(free_names(c.expr) & {v.name for v in contract.vars if v.ghost})
        if reason is None and ghost:
            reason = f"{ghost[0]} is ghost"
        if reason is not None:
            snapshots.discard()
            unchecked.append((c, reason))
            continue
        snapshots.keep()
        (reqs if c.kind == "requires" else enss).append((c, in_test_scope(contract, expr)))
    return Checks(tuple(reqs), tuple(enss), tuple(unchecked), tuple(snapshots.decls))


def in_test_scope(contract: Contract, e: ast.Expr) -> ast.Expr:
    """Members of the enclosing class are reached through the receiver (or the class, when static)."""
    if contract.cls is None:
        return e
    receiver: ast.Expr = ast.Name(INSTANCE)
    owner = ast.Name(".".join([*contract.module, contract.cls.name]))
    locals_ = {v.name for v in contract.vars}
    mapping: dict[str, ast.Expr] = {}
    for m in contract.cls.members:
        name = getattr(m, "name", "")
        if name and name not in locals_:
            static = getattr(m, "static", False)
            mapping[name] = ast.MemberSelect(owner if static else receiver, name)
    e = substitute(e, mapping)
    return rebuild(e, lambda n: receiver if isinstance(n, ast.ThisExpr) else None)  # type: ignore[return-value]


def receiver_decl(contract: Contract) -> str | None:
    """`var dspec2test_obj := new C();` for instance members, or None for static ones."""
    if contract.is_static or contract.cls is None:
        return None
    cls = contract.cls
    cname = ".".join([*contract.module, cls.name])
    if cls.kind != "class" or cls.type_params:
        raise Unsupported(f"instance member of {cls.kind} {cls.name}", contract.line, contract.col,
                          f"cannot create a receiver for {cls.kind} {cls.name}")
    ctors = [m for m in cls.members if isinstance(m, ast.Method) and m.kind == "constructor"]
    if not ctors:
        return f"var {INSTANCE} := new {cname};"
    for c in ctors:
        if not c.params:
            return f"var {INSTANCE} := new {cname}{'.' + c.name if c.name else ''}();"
    raise Unsupported("constructor with parameters", contract.line, contract.col,
                      f"class {cls.name} has no parameterless constructor to create a receiver with")


@dataclass(frozen=True)
class PlannedCheck:
    check: Check
    condition: str  # Dafny, in the test's scope
    message: str  # what Dafny shows when the test is run by hand


def plan_checks(contract: Contract, checks: Checks, ctx: EmitContext, outputs: dict[str, str] | None) -> tuple[
        tuple[PlannedCheck, ...], tuple[PlannedCheck, ...]]:
    """The checks a test makes before the call (on our input: type constraints, requires) and after it
    (compiled ensures, then with `outputs` the concrete values the contract makes unique), numbered."""
    before: list[tuple[CheckKind, int, str, str, str]] = []
    for v in contract.params:
        for cons in ctx.types.constraints(v.name, v.type):
            text = f"{v.name} is a {print_type(v.type)}"
            before.append((CheckKind.TYPE, contract.line, text, print_expr(cons),
                           f"dspec2test: bad test input: {v.name} is not a {print_type(v.type)}; {BAD_INPUT}"))
    for c, e in checks.requires:
        before.append((CheckKind.REQUIRES, c.line, c.text, print_expr(e),
                       f"dspec2test: bad test input: requires (line {c.line}) does not hold; {BAD_INPUT}"))
    after: list[tuple[CheckKind, int, str, str, str]] = []
    for c, e in checks.ensures:
        after.append((CheckKind.ENSURES, c.line, c.text, print_expr(e), f"dspec2test: ensures (line {c.line}) violated: {c.text}"))
    for v in contract.outputs:
        if outputs is None or v.ghost:
            continue
        line = next((c.line for c in contract.ensures if v.name in free_names(c.expr)), contract.line)
        text = f"{v.name} == {outputs[v.name]}"
        after.append((CheckKind.VALUE, line, text, text, f"dspec2test: expected {text} (ensures, line {line})"))
    numbered = [PlannedCheck(Check(f"c{i}", kind, line, one_line(text)), condition, message)
                for i, (kind, line, text, condition, message) in enumerate(before + after, 1)]
    return tuple(numbered[:len(before)]), tuple(numbered[len(before):])


def concrete_outputs(contract: Contract, tc: TestCase, ctx: EmitContext, simplify: bool) -> dict[str, str] | None:
    """With --simplify, the outputs to expect as values: only when every one is unique and a plain value."""
    if simplify and tc.unique and contract.outputs and all(
            ctx.types.kind(v.type) in _VALUE_KINDS and v.name in tc.outputs for v in contract.outputs):
        return tc.outputs
    return None


def checks_for(contract: Contract, tc: TestCase, checks: Checks, ctx: EmitContext, simplify: bool) -> tuple[Check, ...]:
    """The checks the test of `tc` makes, as its TestCase records them."""
    before, after = plan_checks(contract, checks, ctx, concrete_outputs(contract, tc, ctx, simplify))
    return tuple(p.check for p in before + after)


def marker(event: Event, rest: str = "") -> str:
    """A line the test prints for the runner (emit/markers.py): MARK is stamped with a nonce per run."""
    return f'print "\\n{MARK} {event.value}{" " + rest if rest else ""}\\n";'


def check_stmt(planned: PlannedCheck) -> str:
    """The test stops at the first failed check, after printing the check's id."""
    return (f"if !({planned.condition}) {{ {marker(Event.FAIL, planned.check.id)} "
            f"expect false, {dafny_string(planned.message)}; }}")


def emit_test(contract: Contract, tc: TestCase, checks: Checks, ctx: EmitContext, simplify: bool,
              instead_of_call: list[str] | None = None) -> str:
    """The test of `tc`. `instead_of_call`: statements that stand in for the call (an oracle probe's
    outputs assigned from the solver's model)."""
    before, after = plan_checks(contract, checks, ctx, concrete_outputs(contract, tc, ctx, simplify))
    lines = [write_metadata(tc), f"// partition {tc.partition}: {one_line(tc.label)}"]
    lines.append(f"// scenario {tc.scenario} ({tc.kind.value})" + (f": {one_line(tc.pin)}" if tc.pin else ""))
    for scenario, pin in tc.also:
        lines.append(f"// and scenario {scenario}, same inputs" + (f": {one_line(pin)}" if pin else ""))
    lines += [f"method {{:test}} {tc.name}()", "{"]
    body: list[str] = [marker(Event.START, tc.name)]
    receiver = receiver_decl(contract)
    for v in contract.params:
        body += input_decl(v, tc.inputs[v.name], ctx)
    if receiver:
        body.append(receiver)
    body += [check_stmt(p) for p in before]
    body += checks.snapshots
    body.append(marker(Event.CALL))
    body += [call_stmt(contract)] if instead_of_call is None else instead_of_call
    body.append(marker(Event.RETURNED))
    for v in contract.outputs:
        if not v.ghost:
            body.append(f'print "\\n{MARK} {Event.ACTUAL.value} {v.name} = ", {v.name}, "\\n";')
    body += [check_stmt(p) for p in after]
    body.append(marker(Event.DONE))
    for c, why in checks.unchecked:  # listed in the manifest too; said here so a reader is not misled
        body.append(f"// unchecked: {c.kind} (line {c.line}) {one_line(c.text)}: {why}")
    lines += ["  " + b for b in body] + ["}"]
    return "\n".join(lines)


def one_line(text: str) -> str:
    return " ".join(text.split())


def input_decl(v: Var, literal: str, ctx: EmitContext) -> list[str]:
    kind = ctx.types.kind(v.type)
    if kind == "array":
        base = ctx.types.base(v.type)
        if not isinstance(base, ast.NamedType) or base.name not in ("array", "array?") or len(base.args) != 1:
            raise Unsupported("multi-dimensional array input", v.type.span.line, v.type.span.col)
        elem = print_type(base.args[0])
        init = f"dspec2test_{v.name}"
        return [f"var {init}: seq<{elem}> := {literal};",
                f"var {v.name} := new {elem}[|{init}|];",
                f"forall dspec2test_i | 0 <= dspec2test_i < |{init}| {{ {v.name}[dspec2test_i] := {init}[dspec2test_i]; }}"]
    if kind == "class":
        raise Unsupported(f"object input of type {print_type(v.type)}", v.type.span.line, v.type.span.col,
                          f"parameter {v.name}: objects other than arrays cannot be generated")
    return [f"var {v.name}: {print_type(v.type)} := {literal};"]


def callee(contract: Contract) -> str:
    if contract.cls is not None and not contract.is_static:
        return f"{INSTANCE}.{contract.short}"
    return contract.name


def call_stmt(contract: Contract) -> str:
    args = ", ".join(v.name for v in contract.params)
    call = f"{callee(contract)}({args})"
    if not contract.outputs:
        return call + ";"
    return f"var {', '.join(v.name for v in contract.outputs)} := {call};"


def modules_to_open(contracts: list[Contract]) -> list[str]:
    return sorted({".".join(c.module) for c in contracts if c.module})


def emit_file(program_path: str, opened: list[str], tests: list[str]) -> str:
    name = os.path.basename(program_path)
    head = [f"// Tests generated by dspec2test from {name}: compile them together with the program,",
            f"//   dafny test --no-verify --allow-warnings {name} <this file>"]
    head += [f"import opened {m}" for m in opened]
    return "\n".join(head) + "\n" + "".join("\n" + t + "\n" for t in tests)

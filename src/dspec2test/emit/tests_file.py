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
from dspec2test.records import TestCase

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
    return f"Test_{contract.name.replace('.', '_')}_p{partition}_s{scenario}"


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


def emit_test(contract: Contract, tc: TestCase, checks: Checks, ctx: EmitContext, simplify: bool) -> str:
    lines = [write_metadata(tc), f"// partition {tc.partition}: {one_line(tc.label)}"]
    lines.append(f"// scenario {tc.scenario} ({tc.kind.value})" + (f": {one_line(tc.pin)}" if tc.pin else ""))
    lines += [f"method {{:test}} {tc.name}()", "{"]
    body: list[str] = []
    receiver = receiver_decl(contract)
    for v in contract.params:
        body += input_decl(v, tc.inputs[v.name], ctx)
    if receiver:
        body.append(receiver)
    for v in contract.params:
        for cons in ctx.types.constraints(v.name, v.type):
            body.append(f"expect {print_expr(cons)}, " + dafny_string(
                f"dspec2test: bad test input: {v.name} is not a {print_type(v.type)}; {BAD_INPUT}") + ";")
    for c, e in checks.requires:
        body.append(f"expect {print_expr(e)}, " + dafny_string(
            f"dspec2test: bad test input: requires (line {c.line}) does not hold; {BAD_INPUT}") + ";")
    body += checks.snapshots
    body.append(call_stmt(contract))
    for v in contract.outputs:
        if not v.ghost:
            body.append(f'print "\\n[dspec2test] actual {v.name} = ", {v.name}, "\\n";')
    body += oracles(contract, tc, checks, ctx, simplify)
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


def oracles(contract: Contract, tc: TestCase, checks: Checks, ctx: EmitContext, simplify: bool) -> list[str]:
    concrete = simplify and tc.unique and contract.outputs and all(
        ctx.types.kind(v.type) in _VALUE_KINDS and v.name in tc.outputs for v in contract.outputs)
    if concrete:
        out = []
        for v in (v for v in contract.outputs if not v.ghost):
            line = next((c.line for c in contract.ensures if v.name in free_names(c.expr)), contract.line)
            expected = f"{v.name} == {tc.outputs[v.name]}"
            out.append(f"expect {expected}, " + dafny_string(f"dspec2test: expected {expected} (ensures, line {line})")
                       + ";")
        return out
    return [f"expect {print_expr(e)}, " + dafny_string(f"dspec2test: ensures (line {c.line}) violated: {c.text}") + ";"
            for c, e in checks.ensures]


def modules_to_open(contracts: list[Contract]) -> list[str]:
    return sorted({".".join(c.module) for c in contracts if c.module})


def emit_file(program_path: str, opened: list[str], tests: list[str]) -> str:
    name = os.path.basename(program_path)
    head = [f"// Tests generated by dspec2test from {name}: compile them together with the program,",
            f"//   dafny test --no-verify --allow-warnings {name} <this file>"]
    head += [f"import opened {m}" for m in opened]
    return "\n".join(head) + "\n" + "".join("\n" + t + "\n" for t in tests)

"""The Dafny tests file: one `{:test}` method per solved scenario, in the format of TEAM.md.

Inside a test, in order: inputs as typed `var`s named like the parameters (so the contract's clauses
print unchanged), precondition and subset-type `expect`s that blame the input, the call, a print of
each actual output, then the oracles. Text is built as lists of lines and joined once; nothing here
depends on dict or set iteration order beyond insertion order, so output is byte-for-byte stable.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, replace

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr, print_type, string_literal
from dspec2test.emit.compilable import GhostIndex, rank_comparison, unghosted, why_not_compilable
from dspec2test.emit.expected import OutputPin, pins
from dspec2test.emit.membership import membership_bounded
from dspec2test.emit.metadata import BUILD_MARKER, write_metadata
from dspec2test.model.names import TestNames
from dspec2test.emit.objects import INSTANCE, array_lines, element_lines, in_code, setup_lines, test_var
from dspec2test.emit.old import Snapshots, strip_old
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import Contract, ContractClause, Var
from dspec2test.model.classes import ClassIndex
from dspec2test.model.objects import explicit_this
from dspec2test.model.types import TypeIndex
from dspec2test.model.walk import conjuncts, free_names, rebuild, substitute, walk
from dspec2test.records import Check, CheckKind, TestCase
from dspec2test.emit.markers import MARK, Marker

BAD_INPUT = "the generated input is wrong, not the program"
_VALUE_KINDS = {"int", "bool", "char", "real", "seq", "set", "multiset", "map", "datatype"}


@dataclass(frozen=True)
class EmitContext:
    program: ast.Program
    types: TypeIndex
    ghosts: GhostIndex
    names: TestNames
    classes: ClassIndex
    may_loop: bool = False  # some method of the program is `decreases *`: a test calling it must be too

    @staticmethod
    def of(program: ast.Program, kept: tuple[tuple[str, str], ...] = ()) -> "EmitContext":
        """`program` as the tests run it (testbuild.lifted_view marks what its test build compiles), and
        why its test build kept the other ghost declarations ghost, by short name."""
        names = TestNames(program)
        ghosts = GhostIndex.of(program, kept)
        # a ghost function's body is inlined into checks of members of other modules: its names in full,
        # as its own module reads them (`Account.ComputeBalanceFromHistory` where Account is not opened);
        # ghost names stay short, as inlining and the ghost checks find them
        ghosts = replace(ghosts, inlinable=tuple(
            (name, replace(d, body=names.expr(d.body, names.scope(d), {p.name for p in d.params} | ghosts.names)))
            for name, d in ghosts.inlinable if d.body is not None))
        return EmitContext(program, TypeIndex.of(program), ghosts, names, ClassIndex.of(program), _may_loop(program))

    def type_text(self, t: ast.Type, contract: Contract) -> str:
        """A type as the tests file writes it (names in modules in full)."""
        return print_type(self.names.type(t, self.names.scope(contract.member)))


def _may_loop(program: ast.Program) -> bool:
    """Whether a method of the program may not terminate (`decreases *`): Dafny then accepts calls to it
    only from methods that say the same, and the constructor or method a test calls may reach it."""
    return any(isinstance(n, ast.Method) and any(isinstance(x, ast.Wildcard) for c in n.spec.decreases
                                                  for x in c.exprs)
               for n in walk(program))


@dataclass(frozen=True)
class Checks:
    """The clauses of a contract as `expect`s, and those that cannot be compiled (with the reason)."""

    requires: tuple[tuple[ContractClause, ast.Expr], ...]
    ensures: tuple[tuple[ContractClause, ast.Expr], ...]
    unchecked: tuple[tuple[ContractClause, str], ...]
    snapshots: tuple[str, ...] = ()  # declarations, before the call, of the values old() reads
    # the unchecked clauses (indices into `unchecked`) a test's value check checks where it has one: the
    # outputs equal to the only values the contract allows on the inputs meet every clause (values_check)
    by_value: tuple[int, ...] = ()
    # clauses checked in a form the verifier's knowledge made compilable, with what it rests on (the bound
    # of a witness search proved complete: witness_search.py)
    sources: tuple[tuple[ContractClause, str], ...] = ()


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
    reqs: list[tuple[ContractClause, ast.Expr]] = []
    enss: list[tuple[ContractClause, ast.Expr]] = []
    unchecked: list[tuple[ContractClause, str]] = []
    snapshots = Snapshots(contract, lambda e: in_test_scope(contract, e, ctx.names))
    ghosts = {v.name for v in contract.vars if v.ghost}
    var_types = {v.name: v.type for v in contract.vars}
    for c in (piece for whole in contract.clauses for piece in _pieces(whole, ctx, ghosts, contract)):
        expr = strip_old(c.expr) if c.kind == "requires" else snapshots.rewrite(c.expr)
        # judged on the clause as written (a snapshot hides what it calls), old() aside where it compiles
        reason = why_not_compilable(c.expr if expr is None else strip_old(c.expr), ctx.ghosts) \
            or rank_comparison(c.expr, var_types, ctx.ghosts.types)
        ghost = sorted(free_names(c.expr) & {v.name for v in contract.vars if v.ghost})
        if reason is None and ghost:
            reason = ctx.ghosts.ghost_reason(ghost[0])
        if reason is not None:
            snapshots.discard()
            unchecked.append((c, reason))
            continue
        snapshots.keep()
        assert expr is not None  # an old() no snapshot can take is not compilable (a reason above)
        (reqs if c.kind == "requires" else enss).append((c, in_test_scope(contract, expr, ctx.names)))
    return Checks(tuple(reqs), tuple(enss), tuple(unchecked), tuple(snapshots.decls))


def _pieces(c: ContractClause, ctx: EmitContext, ghosts: set[str],
            contract: Contract | None = None) -> list[ContractClause]:
    """A clause that cannot be compiled whole, split into its conjuncts where it is a conjunction: the
    ones that can are still checked (`Valid() && n == old(n) - 1` checks the second)."""
    if why_not_compilable(strip_old(c.expr), ctx.ghosts) is None and not free_names(c.expr) & ghosts:
        return [c]
    bounded = membership_bounded(c.expr)  # `forall x :: x !in a ==> x !in r`, bounded by r
    if bounded != c.expr and why_not_compilable(strip_old(bounded), ctx.ghosts) is None \
            and not free_names(bounded) & ghosts:
        return [replace(c, expr=bounded)]
    inlined = unghosted(c.expr, ctx.ghosts)
    if inlined is not None and not free_names(inlined) & ghosts:
        return [replace(c, expr=inlined)]
    witnessed = _witnessed(c, contract, ctx, ghosts) if contract is not None else None
    if witnessed is not None:
        return [witnessed]
    if not (isinstance(c.expr, ast.BinOp) and c.expr.op == "&&"):
        return _inlined(c, contract, ctx) if contract is not None else [c]
    out = []
    for part in conjuncts(c.expr):
        # a conjunct of a precondition may be wrapped in old() (objects.in_pre_state): the source is inside
        span = part.expr.span if isinstance(part, ast.Old) and part.span.end <= part.span.start else part.span
        source = ctx.program.source(contract.file) if contract is not None else ctx.program
        text = source.text[span.start:span.end] if source.text and span.end > span.start else ""
        piece = replace(c, expr=part, text=text or print_expr(part))
        # a conjunct over a ghost predicate (`sorted(a)` beside `multiset(a[..]) == old(...)`): its body,
        # where that compiles (the whole clause's old() keeps the clause itself from being inlined)
        body = unghosted(part, ctx.ghosts) if why_not_compilable(strip_old(part), ctx.ghosts) is not None else None
        if body is not None and not free_names(body) & ghosts:
            out.append(replace(piece, expr=body))
            continue
        witnessed = _witnessed(piece, contract, ctx, ghosts) if contract is not None else None
        if witnessed is not None:
            out.append(witnessed)
            continue
        out += _inlined(piece, contract, ctx) if contract is not None else [piece]
    return out


def _witnessed(c: ContractClause, contract: Contract, ctx: EmitContext, ghosts: set[str]) -> ContractClause | None:
    """An ensures over ghost out-parameters and compiled outputs (`valid(s, best) && length(best) == n`),
    checked as `exists best :: ...`: the ghost value the method returned is one witness, so this holds
    whenever the clause does, and it still pins the compiled outputs. None when that does not compile."""
    names = free_names(c.expr)
    witnesses = [v for v in contract.outputs if v.ghost and v.name in names]
    compiled = [v for v in contract.outputs if not v.ghost and v.name in names]
    if c.kind != "ensures" or not witnesses or not compiled or names & ghosts - {v.name for v in witnesses}:
        return None
    taken = {n.name for n in walk(c.expr) if isinstance(n, ast.Name)} | {v.name for v in contract.vars}
    mapping: dict[str, ast.Expr] = {}
    bound = []
    for v in witnesses:
        name = v.name + "'"
        while name in taken:
            name += "'"
        taken.add(name)
        mapping[v.name] = ast.Name(name)
        bound.append(ast.BoundVar(name, v.type))
    q = ast.Quantifier("exists", tuple(bound), None, substitute(c.expr, mapping))
    if why_not_compilable(q, ctx.ghosts) is None:
        return replace(c, expr=q)
    body = unghosted(q, ctx.ghosts)
    return replace(c, expr=body) if body is not None else None


def _inlined(c: ContractClause, contract: Contract, ctx: EmitContext) -> list[ContractClause]:
    """A call of a ghost predicate of an object (`this.Valid()`), which no test can make: its body's
    conjuncts instead, those the test can evaluate checked (`arr.Length == cap`), the others listed."""
    call = strip_old(c.expr)
    if not (isinstance(call, ast.Call) and not call.args and isinstance(call.callee, ast.MemberSelect)):
        return [c]
    obj, name = call.callee.obj, call.callee.name
    root = contract.objects.root("this" if isinstance(obj, ast.ThisExpr) else print_expr(obj))
    if root is None or len(root.builds) != 1:
        return [c]
    cls = root.builds[0].cls
    pred = ctx.classes.member(cls, name)
    if not isinstance(pred, ast.Function) or pred.params or pred.body is None or name not in ctx.ghosts.names:
        return [c]
    body = explicit_this(pred.body, ctx.classes, cls, set())
    body = rebuild(body, lambda n: obj if isinstance(n, ast.ThisExpr) else None)
    return [replace(c, expr=part, text=f"{print_expr(part)} (of {print_expr(call)})")
            for part in conjuncts(body)]


def in_test_scope(contract: Contract, e: ast.Expr, names: TestNames | None = None) -> ast.Expr:
    """Members of the enclosing class are reached through the receiver (or the class, when static);
    declarations in modules by their full path (model/names.py)."""
    if names is not None:
        e = names.expr(e, names.scope(contract.member), {v.name for v in contract.vars})
    if contract.datatype is not None:
        return rebuild(e, lambda n: ast.Name(INSTANCE) if isinstance(n, ast.ThisExpr) else None)
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
    return rebuild(e, lambda n: receiver if isinstance(n, ast.ThisExpr) else None)


def unbuildable(contract: Contract) -> Unsupported | None:
    """Why a test cannot make the member's object inputs (None: it can)."""
    if contract.objects.unsupported:
        why = contract.objects.unsupported[0]
        return Unsupported(why.split(": ", 1)[-1], contract.line, contract.col, f"cannot build {why}")
    return None


@dataclass(frozen=True)
class PlannedCheck:
    check: Check
    condition: str  # Dafny, in the test's scope
    message: str  # what Dafny shows when the test is run by hand
    # statements that print `expected X = V` for the values the clause pins its outputs to (emit/expected.py)
    expected: tuple[str, ...] = ()


def plan_checks(contract: Contract, checks: Checks, ctx: EmitContext, outputs: dict[str, str] | None,
                source: str = "") -> tuple[tuple[PlannedCheck, ...], tuple[PlannedCheck, ...]]:
    """The checks a test makes before the call (on our input: type constraints, requires) and after it
    (compiled ensures, then with `outputs` the concrete values the contract makes unique; `source`: where
    those come from beyond the clauses), numbered."""
    before: list[tuple[CheckKind, int, str, str, str]] = []
    for v in contract.params + settable_fields(contract):
        scoped = {v.name: field_in_test(v.name)} if "." in v.name else {}
        # the type named in full from the member's module: a subset type of a refined module has a namesake
        # in every module refining it (Utf8EncodingForm.WellFormedCodeUnitSeq, Utf16EncodingForm....)
        declared = ctx.names.type(v.type, ctx.names.scope(contract.member))
        for cons, owner in ctx.types.sourced_constraints(v.name, declared):
            if why_not_compilable(cons, ctx.ghosts) is not None:
                # a ghost predicate in the type's constraint (`c.Valid?`): the solver met it, and a
                # test cannot evaluate it; its body inlined where that compiles, else not checked
                inlined = unghosted(cons, ctx.ghosts)
                if inlined is None:
                    continue
                cons = inlined
            if owner is not None:  # written in the type's module: its names in full (`Unicode.MAX`)
                cons = ctx.names.expr(cons, ctx.names.scope(owner), {v.name, v.name.split(".")[0]})
            text = f"{v.name} is a {print_type(v.type)}"
            before.append((CheckKind.TYPE, contract.line, text, print_expr(substitute(cons, scoped)),
                           f"dspec2test: bad test input: {v.name} is not a {print_type(v.type)}; {BAD_INPUT}"))
    for c, e in checks.requires:
        if c.invariant:
            before.append((CheckKind.INVARIANT, c.line, c.text, print_expr(e),
                           f"dspec2test: bad test input: the class invariant {c.text} (line {c.line}) does not "
                           f"hold; {BAD_INPUT}"))
            continue
        before.append((CheckKind.REQUIRES, c.line, c.text, print_expr(e),
                       f"dspec2test: bad test input: requires (line {c.line}) does not hold; {BAD_INPUT}"))
    after: list[tuple[CheckKind, int, str, str, str]] = []
    printed = frozenset(v.name for v in contract.outputs if not v.ghost)

    def typed(output: str) -> str | None:
        """The output's type where its expected value needs one to print: `None` of an Option<T>, or `[]`
        alone, is underspecified to Dafny (the whole tests file would not build)."""
        v = next((o for o in contract.outputs if o.name == output), None)
        if v is None or ctx.types.kind(v.type) in ("int", "bool", "char", "real"):
            return None
        return ctx.type_text(v.type, contract)

    shows: list[tuple[str, ...]] = []  # per check after the call: what it prints as expected when it fails
    for c, e in checks.ensures:
        if contract.is_lemma:
            after.append((CheckKind.PROPERTY, c.line, c.text, print_expr(e),
                          f"dspec2test: lemma {contract.short}: ensures (line {c.line}) is false here: {c.text}"))
            shows.append(())
            continue
        after.append((CheckKind.ENSURES, c.line, c.text, print_expr(e), f"dspec2test: ensures (line {c.line}) violated: {c.text}"))
        shows.append(tuple(expected_stmt(p, typed(p.output)) for p in pins(e, printed)))
    for v in contract.outputs:
        if outputs is None or v.ghost:
            continue
        line = next((c.line for c in contract.ensures if v.name in free_names(c.expr)), contract.line)
        text = f"{v.name} == {outputs[v.name]}"
        after.append((CheckKind.VALUE, line, text, text, f"dspec2test: expected {text} (ensures, line {line})"))
        kind = typed(v.name)
        shows.append((print_value(Marker.EXPECTED, v.name, outputs[v.name]) if kind is None else
                       expected_stmt(OutputPin((), v.name, ast.Name(outputs[v.name])), kind),))
    # clauses written in another file than the member (inherited by refines): their file, by line and text
    elsewhere = {(c.line, c.text): c.file for c in contract.requires + contract.ensures
                 if c.file and c.file != contract.file}
    # what a check rests on beyond its clause: the bound of a witness search, the axioms of a value
    sourced = {(c.line, c.text): why for c, why in checks.sources}
    found = [source if kind is CheckKind.VALUE else sourced.get((line, text), "")
             for kind, line, text, _, _ in before + after]
    numbered = [PlannedCheck(Check(f"c{i}", kind, line, one_line(text), elsewhere.get((line, text), ""), why),
                             condition, f"{message} ({why})" if why else message)
                for i, ((kind, line, text, condition, message), why) in enumerate(zip(before + after, found), 1)]
    numbered = numbered[:len(before)] + [replace(p, expected=show) for p, show in zip(numbered[len(before):], shows)]
    return tuple(numbered[:len(before)]), tuple(numbered[len(before):])


EXPECTED_VAR = "dspec2test_expected"


def print_value(event: Marker, name: str, value: str) -> str:
    """The statement that prints `X = V` for the runner (an actual output, or the value expected)."""
    return f'print "\\n{MARK} {event.value} {name} = ", {value}, "\\n";'


def expected_stmt(pin: OutputPin, type_text: str | None = None) -> str:
    """Prints the value a clause pins an output to (after its guards hold), typed as the output where
    `type_text` is given."""
    value = f"({print_expr(pin.value)})"
    show = print_value(Marker.EXPECTED, pin.output, value)
    if type_text is not None:
        show = f"{{ var {EXPECTED_VAR}: {type_text} := {value}; {print_value(Marker.EXPECTED, pin.output, EXPECTED_VAR)} }}"
    if not pin.guards:
        return show
    guard = " && ".join(f"({print_expr(g)})" for g in pin.guards)
    return f"if {guard} {{ {show} }}"


def settable_fields(contract: Contract) -> tuple[Var, ...]:
    """The field inputs a test assigns."""
    names = {r.field_var(f) for r in contract.objects.roots if not r.output for f in r.fields if f.settable}
    return tuple(v for v in contract.state if v.name in names)


def field_in_test(name: str) -> ast.Expr:
    """`this.n` -> `dspec2test_obj.n`, `o.f` -> `o.f`."""
    root, _, f = name.rpartition(".")
    return ast.MemberSelect(ast.Name(test_var(root)), f)


def concrete_outputs(contract: Contract, tc: TestCase, ctx: EmitContext, simplify: bool) -> dict[str, str] | None:
    """The outputs to expect as values (unless --no-simplify): only when every one is unique and a plain value."""
    if simplify and tc.unique and values_checkable(contract, ctx) and all(v.name in tc.outputs for v in contract.outputs):
        return tc.outputs
    return None


def values_checkable(contract: Contract, ctx: EmitContext) -> bool:
    """Could a test expect the member's outputs as values: it has outputs, each a plain value (no object or
    array, whose identity a literal cannot give), and an ensures speaks of one of them? (Else the question
    whether they are unique is not worth asking.)"""
    outputs = {v.name for v in contract.outputs if not v.ghost}
    return bool(outputs) and all(ctx.types.kind(v.type) in _VALUE_KINDS for v in contract.outputs) \
        and any(free_names(c.expr) & outputs for c in contract.ensures)


def value_source(tc: TestCase) -> str:
    """Where a test's expected values come from beyond its compiled clauses, for its value checks' messages."""
    return f"from the axioms {', '.join(tc.axioms)}" if tc.axioms else ""


def with_values(contract: Contract, checks: Checks, encoded: frozenset[int]) -> Checks:
    """`checks` with the unchecked clauses a value check checks marked (by_value): ensures over the compiled
    outputs, and otherwise over what a test pins (inputs the member does not change), whose clause the
    solver encoded (its line among `encoded`) so that the outputs' uniqueness rests on it too."""
    if contract.is_lemma or contract.objects.roots:
        return checks
    outputs = {v.name for v in contract.outputs if not v.ghost}
    changing = {v.name for v in contract.vars if v.ghost} | set(contract.pre_state)
    by_value = tuple(i for i, (c, _) in enumerate(checks.unchecked)
                     if c.kind == "ensures" and c.line in encoded and free_names(c.expr) & outputs
                     and not free_names(c.expr) & changing and not any(isinstance(n, ast.ThisExpr) for n in walk(c.expr)))
    return replace(checks, by_value=by_value)


def checks_for(contract: Contract, tc: TestCase, checks: Checks, ctx: EmitContext, simplify: bool) -> tuple[Check, ...]:
    """The checks the test of `tc` makes, as its TestCase records them."""
    before, after = plan_checks(contract, checks, ctx, concrete_outputs(contract, tc, ctx, simplify), value_source(tc))
    return tuple(p.check for p in before + after)


def with_checks(contract: Contract, tc: TestCase, checks: Checks, ctx: EmitContext, simplify: bool) -> TestCase:
    """`tc` with the checks its test makes, and, where the member has ensures and the test can check none
    of them, how many it cannot and the first with why: such a test runs, and is not a pass."""
    made = checks_for(contract, tc, checks, ctx, simplify)
    requires = next((f"requires (line {c.line}) {one_line(c.text)}" for c, _ in checks.unchecked
                     if c.kind == "requires"), "")
    tc = replace(tc, checks=made, unchecked=0, unchecked_first="", unchecked_requires=requires)
    unchecked = [(c, why) for c, why in checks.unchecked if c.kind == "ensures"]
    if any(c.kind.checks_output for c in made) or not unchecked:
        return tc
    first, why = unchecked[0]
    return replace(tc, unchecked=len(unchecked),
                   unchecked_first=f"ensures (line {first.line}) {one_line(first.text)}: {why}")


def marker(event: Marker, rest: str = "") -> str:
    """A line the test prints for the runner (emit/markers.py): MARK is stamped with a nonce per run."""
    return f'print "\\n{MARK} {event.value}{" " + rest if rest else ""}\\n";'


def check_stmt(planned: PlannedCheck) -> str:
    """The test stops at the first failed check, after printing the check's id (and then the values the
    clause expected, which can no longer change the verdict)."""
    shown = "".join(f"{stmt} " for stmt in planned.expected)
    return (f"if !({planned.condition}) {{ {marker(Marker.FAIL, planned.check.id)} {shown}"
            f"expect false, {dafny_string(planned.message)}; }}")


def emit_test(contract: Contract, tc: TestCase, checks: Checks, ctx: EmitContext, simplify: bool,
              instead_of_call: list[str] | None = None, observe: bool = False) -> str:
    """The test of `tc`. `instead_of_call`: statements that stand in for the call (an oracle probe's
    outputs assigned from the solver's model). `observe`: also print the arrays the member changes in
    place, as outputs (contract strength compares them between a member and its mutants)."""
    outputs = concrete_outputs(contract, tc, ctx, simplify)
    before, after = plan_checks(contract, checks, ctx, outputs, value_source(tc))
    lines = [write_metadata(tc), f"// partition {tc.partition}: {one_line(tc.label)}"]
    lines.append(f"// scenario {tc.scenario} ({tc.kind.value})" + (f": {one_line(tc.pin)}" if tc.pin else ""))
    for scenario, pin in tc.also:
        lines.append(f"// and scenario {scenario}, same inputs" + (f": {one_line(pin)}" if pin else ""))
    lines += [f"method {{:test}} {tc.name}(){' decreases *' if ctx.may_loop else ''}", "{"]
    body: list[str] = [marker(Marker.START, tc.name)]
    objects = {r.name for r in contract.objects.roots}
    body += element_lines(contract, tc.inputs)
    for v in contract.params:
        if v.name not in objects:
            body += input_decl(v, in_code(tc.inputs[v.name]), ctx, contract)
    body += setup_lines(contract, tc.inputs, ctx.types, lambda t: ctx.type_text(t, contract))
    if contract.datatype is not None:  # the value a datatype's member is called on
        body.append(f"var {INSTANCE}: {ctx.type_text(contract.state[0].type, contract)} := {tc.inputs['this']};")
    body += [check_stmt(p) for p in before]
    body += checks.snapshots
    body.append(marker(Marker.CALL))
    body += [call_stmt(contract)] if instead_of_call is None else instead_of_call
    body.append(marker(Marker.RETURNED))
    for v in contract.outputs:
        if not v.ghost:
            body.append(print_value(Marker.ACTUAL, v.name, v.name))
    if observe:  # the contents of arrays, not their identity: those changed in place, and those returned
        body += [print_value(Marker.ACTUAL, v.name, f"{v.name}[..]")
                 for v in contract.params + tuple(o for o in contract.outputs if not o.ghost)
                 if (v.is_output or v.name in contract.pre_state) and ctx.types.kind(v.type) == "array"]
    body += [check_stmt(p) for p in after]
    body.append(marker(Marker.DONE))
    for i, (c, why) in enumerate(checks.unchecked):  # listed in the manifest too; said here so a reader is not misled
        if outputs is not None and i in checks.by_value:
            body.append(f"// checked by the expected values: {c.kind} (line {c.line}) {one_line(c.text)} ({why})")
        else:
            body.append(f"// unchecked: {c.kind} (line {c.line}) {one_line(c.text)}: {why}")
    lines += ["  " + b for b in body] + ["}"]
    return "\n".join(lines)


def one_line(text: str) -> str:
    return " ".join(text.split())


def input_decl(v: Var, literal: str, ctx: EmitContext, contract: Contract | None = None) -> list[str]:
    def typed(t: ast.Type) -> str:
        return ctx.type_text(t, contract) if contract is not None else print_type(t)

    kind = ctx.types.kind(v.type)
    if kind in ("array2", "array3"):
        return array_lines(v.name, f"dspec2test_{v.name}", v.type, literal, ctx.types, typed)
    if kind == "array":
        base = ctx.types.base(v.type)
        if not isinstance(base, ast.NamedType) or base.name not in ("array", "array?") or len(base.args) != 1:
            raise Unsupported("multi-dimensional array input", v.type.span.line, v.type.span.col)
        return array_lines(v.name, f"dspec2test_{v.name}", v.type, literal, ctx.types, typed)
    return [f"var {v.name}: {typed(v.type)} := {literal};"]


def callee(contract: Contract) -> str:
    """The member as the test calls it, with its type arguments: a type parameter that occurs only in
    the result (`Empty<T>(): seq<T>`) cannot be inferred from the arguments."""
    targs = f"<{', '.join(print_type(t) for t in contract.type_args)}>" if contract.type_args else ""
    if (contract.cls is not None and not contract.is_static) or contract.datatype is not None:
        return f"{INSTANCE}.{contract.short}{targs}"
    return contract.name + targs


def call_stmt(contract: Contract) -> str:
    args = ", ".join(v.name for v in contract.params)
    if contract.is_lemma:  # ghost: a call would be erased, so the test evaluates its ensures instead
        return f"// {contract.short}({args}) is a lemma: not called; its ensures are checked on these inputs"
    if contract.is_constructor:
        root = contract.objects.root("this")
        cls = root.type if root is not None else ast.NamedType(contract.cls.name if contract.cls else "")
        name = f".{contract.member.name}" if contract.member.name else ""
        return f"var {INSTANCE} := new {print_type(cls)}{name}({args});"
    call = f"{callee(contract)}({args})"
    if not contract.outputs:
        return call + ";"
    return f"var {', '.join(v.name for v in contract.outputs)} := {call};"


def modules_to_open(contracts: list[Contract]) -> list[str]:
    return sorted({".".join(c.module) for c in contracts if c.module})


def shadowing(opened: list[str], ctx: EmitContext) -> frozenset[str]:
    """The modules among `opened` that declare a type of their own name (`module Stack { datatype Stack
    ... }`): opened, that name would mean the type, and the tests' full paths (`Stack.Stack.Stack(...)`)
    would not resolve. They are left out: the tests write every name in full anyway. (A method of the
    module's name does not shadow it: `BinarySearch.BinarySearch(...)` resolves either way.)"""
    modules = ctx.names.resolver.modules
    types = (ast.Datatype, ast.ClassDecl, ast.SubsetType, ast.Newtype, ast.TypeSynonym, ast.Module)
    return frozenset(m for m in opened
                     if isinstance(modules.get(tuple(m.split(".")), {}).get(m.split(".")[-1]), types))


def emit_file(program_path: str, opened: list[str], tests: list[str], plain: frozenset[str] = frozenset(),
              lifted: bool = False) -> str:
    """The tests file: `opened` modules are opened, except the `plain` ones (shadowing). `lifted`: they
    read ghost state the program's test build compiles, so they build against that copy, not the program."""
    name = os.path.basename(program_path)
    head = [f"// Tests generated by dspec2test from {name}: compile them together with the program,",
            f"//   dafny test --no-verify --allow-warnings {name} <this file>"]
    if lifted:
        head = [f"// Tests generated by dspec2test from {name}: they read ghost state, so they compile together",
                "// with its test build (a copy with that state compiled; `generate -o` writes it beside them),",
                f"//   dafny test --no-verify --allow-warnings <the test build's copy of {name}> <this file>",
                BUILD_MARKER]
    # an import is named by its last part: modules of the same short name (Uint8_16.Uint16Seq and
    # Uint16_32.Uint16Seq) each get a name of their own, or Dafny sees a duplicate import
    last = Counter(m.split(".")[-1] for m in opened)
    head += [f"import opened {m.replace('.', '_')} = {m}" if last[m.split('.')[-1]] > 1 else f"import opened {m}"
             for m in opened if m not in plain]
    return "\n".join(head) + "\n" + "".join("\n" + t + "\n" for t in tests)

"""The contract as a program: a Dafny file compiled with the program (to Python, compiled.py) that the search
runs on candidate inputs in bulk.

Per member, in the default module, beside the program (names written in full, as the tests write them):
- `Dspec2testAdmitK(inputs) returns (code: int)`: the checks a test makes before its call (the inputs' type
  constraints, the compiled requires), in the test's order; 0 when all hold, else the number of the first
  that fails (the check id `c<number>` of the test);
- `Dspec2testProjKxJ(inputs) returns (b: bool)`: one branch of one clause's Safe DNF, with only its literals
  a test can evaluate on the inputs alone (no outputs, nothing after the call, nothing ghost): a partition
  is the conjunction of its branches, so these tell which partitions a candidate may fall in. The solver
  then confirms a candidate with its inputs fixed (the literals left out are over the outputs);
- `Dspec2testRunK(inputs) returns (code: int)`: the call and the checks after it (0: every check held, else
  the number of the first that failed): a shrinker's oracle.
- `Dspec2testMkJ(fields)`: one datatype constructor, so the worker builds values without knowing how the
  Python backend names classes.

Names hold no underscore, so the Python backend keeps them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.compilable import unghosted, why_not_compilable
from dspec2test.emit.old import strip_old
from dspec2test.emit.tests_file import (EmitContext, Checks, call_stmt, checks_of, in_test_scope, modules_to_open,
                                        plan_checks, shadowing, emit_file)
from dspec2test.model.contracts import Contract
from dspec2test.model.objects import Root
from dspec2test.model.resolve import Resolver, RType
from dspec2test.model.walk import conj, free_names, walk
from dspec2test.partition.dnf import branches
from dspec2test.partition.lift import Definitions
from dspec2test.search.objects import INSTANCE, ClassPlan, plan_of

PREFIX = "Dspec2test"
MAX_BRANCHES = 16  # clauses with more branches get no projections (their partitions are confirmed by the solver)


@dataclass(frozen=True)
class Entry:
    """One member's functions in the harness."""

    member: str  # qualified name
    index: int  # K in the names
    params: tuple[str, ...]  # the inputs, in the order the functions take them
    admit: str
    run: str
    # per clause of the contract (in its order), per branch of its Safe DNF: the projection's method, or
    # None where the branch says nothing a test can evaluate on the inputs (it holds as far as they tell)
    projections: tuple[tuple[str | None, ...] | None, ...] = ()
    before: int = 0  # the number of checks before the call (Run's codes continue from there)


@dataclass(frozen=True)
class Harness:
    text: str  # the Dafny file
    entries: dict[str, Entry]  # by qualified member name
    makers: dict[tuple[RType, str], str] = field(default_factory=dict)  # (datatype, constructor) -> Mk method
    classes: dict[str, ClassPlan] = field(default_factory=dict)  # how objects of each class are made
    # the harness's lines of each member's methods, to drop a member whose methods do not build
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)


def searchable(contract: Contract) -> bool:
    """Members the search makes inputs for: those whose inputs are values, or objects of one class each
    (made by its constructor and method calls: search/objects.py); not objects held in collections, nor
    the value a datatype member is called on."""
    if contract.objects.elements or contract.datatype is not None:
        return False
    return all(len(r.builds) == 1 for r in contract.objects.roots if not r.output and r.parent is None)


def harness_of(program_path: str, contracts: list[Contract], ctx: EmitContext, full: bool = False) -> Harness:
    """The harness of the searchable members among `contracts` (Safe DNF branches, or Full DNF with `full`)."""
    blocks: list[tuple[str, list[str]]] = []
    entries: dict[str, Entry] = {}
    makers = _Makers(Resolver(ctx.program))
    resolver = makers.resolver
    classes = _Classes(ctx, resolver)
    for k, c in enumerate(contracts, 1):
        if not searchable(c) or c.blocked:
            continue
        try:
            block, entry = _member(k, c, ctx, full, makers, resolver, classes)
        except Exception:  # noqa: BLE001 - a member the harness cannot write is left to the solver alone
            continue
        blocks.append((c.name, block))
        entries[c.name] = entry
    opened = modules_to_open([c for c in contracts if c.name in entries])
    head = emit_file(program_path, opened, [], shadowing(opened, ctx))
    lines = head.split("\n")
    spans: dict[str, tuple[int, int]] = {}
    for name, block in blocks:
        start = len(lines) + 1
        lines += block
        spans[name] = (start, len(lines))
    lines += makers.lines + classes.lines
    return Harness("\n".join(lines) + "\n", entries, dict(makers.names), classes.plans, spans)


def _member(k: int, c: Contract, ctx: EmitContext, full: bool, makers: "_Makers",
            resolver: Resolver, classes: "_Classes") -> tuple[list[str], Entry]:
    checks = checks_of(c, ctx)
    before, after = plan_checks(c, checks, ctx, None)
    scope = resolver.scope_of(c.member)
    # (input, its formal in the harness, type text): the receiver first, named as the checks name it
    params = [(v.name, v.name, ctx.type_text(v.type, c)) for v in c.params]
    for r in c.objects.roots:
        if r.output or r.parent is not None:
            continue
        if classes.reach(r) is None:
            raise ValueError(f"no way to make {r.name}")
        if r.name == "this":
            params.insert(0, ("this", INSTANCE, r.builds[0].class_name))
    for v in c.params:  # the datatypes an input holds: their constructors, for the worker to call
        makers.reach(resolver.rtype(v.type, scope))
    for plan in classes.plans.values():  # and the arguments of the calls that make its objects
        for m in (*plan.ctors, *plan.steps):
            for a in m.args:
                makers.reach(a)
    formals = ", ".join(f"{formal}: {t}" for _, formal, t in params)
    loops = " decreases *" if ctx.may_loop else ""
    admit, run = f"{PREFIX}Admit{k}", f"{PREFIX}Run{k}"
    out = [f"method {admit}({formals}) returns ({PREFIX}Code: int){loops}", "{"]
    for i, p in enumerate(before, 1):
        out.append(f"  if !({p.condition}) {{ return {i}; }}")
    out += ["  return 0;", "}"]
    out += [f"method {run}({formals}) returns ({PREFIX}Code: int){loops}", "{"]
    out += ["  " + s for s in checks.snapshots]
    out.append("  " + call_stmt(c))
    for i, p in enumerate(after, len(before) + 1):
        out.append(f"  if !({p.condition}) {{ return {i}; }}")
    out += ["  return 0;", "}"]
    projections, methods = _projections(k, c, ctx, checks, full, formals, loops)
    out += methods
    return out, Entry(c.name, k, tuple(name for name, _, _ in params), admit, run, projections, len(before))


def _projections(k: int, c: Contract, ctx: EmitContext, checks: Checks, full: bool, formals: str,
                 loops: str) -> tuple[tuple[tuple[str | None, ...] | None, ...], list[str]]:
    defs = Definitions.of(ctx.program, c.module, ctx.types.decls.values())
    # outputs and what the call changes (a modified array's name is its state after the call, a field or
    # a predicate of the receiver is read after it in an ensures)
    later = {v.name for v in c.outputs} | set(c.pre_state)
    members = {getattr(m, "name", "") for m in c.cls.members} - {""} if c.cls is not None else set()
    methods: list[str] = []
    known: dict[str, str] = {}  # projection text -> its method
    out: list[tuple[str | None, ...] | None] = []
    for ci, clause in enumerate(c.clauses):
        try:
            split = list(branches(clause.expr, True, full, defs))
        except Exception:  # noqa: BLE001 - a clause the DNF cannot split: its partitions are the solver's to confirm
            out.append(None)
            continue
        if len(split) > MAX_BRANCHES:
            out.append(None)
            continue
        row: list[str | None] = []
        for br in split:
            after = later | (members if clause.kind == "ensures" else set())
            lits = [lit for lit in (_input_literal(x, clause.kind, after, ctx) for x in br) if lit is not None]
            if not lits:
                row.append(None)
                continue
            text = print_expr(in_test_scope(c, conj(tuple(lits)), ctx.names))
            if text not in known:
                name = f"{PREFIX}Proj{k}x{len(known) + 1}"
                known[text] = name
                methods += [f"method {name}({formals}) returns ({PREFIX}Holds: bool){loops}", "{",
                            f"  return {text};", "}"]
            row.append(known[text])
        out.append(tuple(row))
    return tuple(out), methods


def _input_literal(lit: ast.Expr, kind: str, later: set[str], ctx: EmitContext) -> ast.Expr | None:
    """The literal as a test can evaluate it on the inputs alone, or None (it reads an output or the state
    after the call, or cannot be compiled)."""
    if kind == "requires":
        lit = strip_old(lit)
    elif any(isinstance(n, (ast.Old, ast.Fresh, ast.Unchanged, ast.ThisExpr)) for n in walk(lit)):
        return None
    if free_names(lit) & later:
        return None
    if why_not_compilable(lit, ctx.ghosts) is None:
        return lit
    return unghosted(lit, ctx.ghosts)


class _Classes:
    """The classes inputs are objects of, each with the harness methods that make its objects."""

    def __init__(self, ctx: EmitContext, resolver: Resolver):
        self.ctx = ctx
        self.resolver = resolver
        self.plans: dict[str, ClassPlan] = {}
        self.lines: list[str] = []
        self._refused: set[str] = set()

    def reach(self, root: Root) -> ClassPlan | None:
        key = root.builds[0].class_name if len(root.builds) == 1 else ""
        if not key or key in self._refused:
            return None
        if key not in self.plans:
            got = plan_of(root, self.ctx, self.resolver, len(self.lines))
            if got is None:
                self._refused.add(key)
                return None
            plan, lines = got
            self.plans[class_key_of(root)] = plan
            self.lines += lines
        return self.plans.get(class_key_of(root))


def class_key_of(root: Root) -> str:
    """The key a class's plan is kept under: its name as the solver resolves it (RType.name)."""
    return root.builds[0].class_name.split("<")[0]


class _Makers:
    """The constructors of the datatypes inputs hold, each a method of the harness."""

    def __init__(self, resolver: Resolver):
        self.resolver = resolver
        self.names: dict[tuple[RType, str], str] = {}
        self.lines: list[str] = []
        self._seen: set[RType] = set()

    def reach(self, t: RType) -> None:
        b = t.base
        if b.kind == "data":
            if b in self._seen:
                return
            self._seen.add(b)
            decl, _ = b.datatype
            for ctor in decl.ctors:
                if ctor.ghost:  # a compiled function cannot build one
                    continue
                fields = self.resolver.ctor_fields(b, ctor)
                name = f"{PREFIX}Mk{len(self.names) + 1}"
                self.names[(b, ctor.name)] = name
                formals = ", ".join(f"{PREFIX}F{i}: {type_text(ft)}" for i, (_, ft) in enumerate(fields))
                args = ", ".join(f"{PREFIX}F{i}" for i in range(len(fields)))
                made = f"{_prefix(b)}{decl.name}.{ctor.name}" + (f"({args})" if fields else "")
                self.lines += [f"function {name}({formals}): {type_text(b)}", "{", f"  {made}", "}"]
                for _, ft in fields:
                    self.reach(ft)
        for a in b.args:
            self.reach(a)


def _prefix(b: RType) -> str:
    _, scope = b.datatype
    return scope.prefix()


def type_text(t: RType) -> str:
    """A resolved type as Dafny text in the default module (datatypes, newtypes by their full names; a
    subset type as its base, which the Python backend does not tell apart)."""
    k = t.kind
    if k == "subset":
        return type_text(t.args[0])
    if k == "newtype":
        return t.name
    if k in ("int", "bool", "real", "char"):
        return k
    if k == "bv":
        return f"bv{t.width}"
    if k == "seq" and t.is_string:
        return "string"
    if k in ("seq", "set", "multiset", "map", "array", "array2", "array3"):
        return f"{k}<{', '.join(type_text(a) for a in t.args)}>"
    if k == "tuple":
        return "(" + ", ".join(type_text(a) for a in t.args) + ")"
    if k in ("data", "class"):
        return t.name + (f"<{', '.join(type_text(a) for a in t.args)}>" if t.args else "")
    raise ValueError(f"no type text for {k}")

"""Objects made the way their clients make them: a constructor, then calls of the class's own methods
(shortest sequences first), each call's requires checked by running it in the harness, never assumed. What
the object then holds (its ghost state too, in the test build) is what the calls left, read by the checks,
not guessed by the solver.

A class an input is built as gets, in the harness, one method per constructor (`Dspec2testNewK`: null where
the constructor's compiled requires do not hold) and one per method of the class with compiled requires
(`Dspec2testStepK`: false where they do not hold, else the call made). A candidate object is a `Calls`
value: which constructor with which arguments, then which methods with which arguments; the test writes the
same statements (`var o := new Buffer(2); o.Append(1);`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.emit.tests_file import EmitContext, checks_of
from dspec2test.model.contracts import CTOR_NAME, Contract, MemberScope, contract_of
from dspec2test.model.objects import Root
from dspec2test.model.resolve import Resolver, RType

PREFIX = "Dspec2test"
MAX_STEPS = 12  # methods of a class used as steps at most


@dataclass(frozen=True)
class Maker:
    """A constructor or a method as a step: its harness method, its name as a test writes it, and its
    arguments' types."""

    method: str
    name: str  # the constructor's name ("" for the anonymous one), or the method's
    args: tuple[RType, ...]
    returns: int = 0  # outputs the method returns (the test holds them in variables of its own)
    bare: bool = False  # the class has no constructor: `new C`


@dataclass(frozen=True)
class ClassPlan:
    """How the search makes objects of one class: its constructors and the methods that change it."""

    text: str  # the class as a test writes it, type arguments included: `Stack<int>`
    ctors: tuple[Maker, ...]
    steps: tuple[Maker, ...]


@dataclass(frozen=True)
class Calls:
    """An object as a candidate: constructor `ctor` with `args`, then each step (method, arguments)."""

    ctor: int
    args: tuple
    steps: tuple[tuple[int, tuple], ...] = ()


def class_key(t: RType) -> str:
    return t.base.name.rstrip("?")


def plan_of(root: Root, ctx: EmitContext, resolver: Resolver, start: int) -> tuple[ClassPlan, list[str]] | None:
    """The plan of the class `root` is built as, and the harness methods it needs (numbered from `start`);
    None where no constructor can be run with its requires checked."""
    if len(root.builds) != 1:
        return None
    build = root.builds[0]
    cls = build.cls
    module = ctx.classes.modules.get(id(cls), ())
    scope = MemberScope(module, cls)
    loops = " decreases *" if ctx.may_loop else ""
    lines: list[str] = []
    ctors: list[Maker] = []
    steps: list[Maker] = []
    k = start
    members = [m for m in cls.members if isinstance(m, ast.Method)]
    constructors = [m for m in members if m.kind == "constructor"]
    choices: list[ast.Method | None] = [*constructors] or [None]
    for ctor in choices:
        c = _contract(ctor, scope, ctx) if ctor is not None else None
        requires = _requires(c, ctx) if c is not None else []
        formals = _formals(c, ctx, resolver) if c is not None else []
        if requires is None or formals is None:
            continue
        k += 1
        name = f"{PREFIX}New{k}"
        decl = ", ".join(f"{f}: {t}" for f, t, _ in formals)
        named = f".{ctor.name}" if ctor is not None and ctor.name else ""
        made = f"new {build.class_name}{named}" + (f"({', '.join(f for f, _, _ in formals)})" if ctor is not None else "")
        lines += [f"method {name}({decl}) returns ({PREFIX}Made: {build.class_name}?){loops}", "{"]
        lines += [f"  if !({r}) {{ return null; }}" for r in requires]
        lines += [f"  {PREFIX}Made := {made};", "}"]
        ctors.append(Maker(name, ctor.name if ctor is not None else "", tuple(t for _, _, t in formals),
                           bare=ctor is None))
    if not ctors:
        return None
    for m in members:
        if len(steps) >= MAX_STEPS:
            break
        if m.kind != "method" or m.static or m.ghost or m.body is None or m.type_params or not m.spec.modifies:
            continue  # (a method without `modifies` leaves the object as it was: no step to make one)
        c = _contract(m, scope, ctx)
        requires = _requires(c, ctx)
        formals = _formals(c, ctx, resolver)
        if requires is None or formals is None:
            continue
        k += 1
        name = f"{PREFIX}Step{k}"
        decl = "".join(f", {f}: {t}" for f, t, _ in formals)
        outs = ", ".join(f"{PREFIX}Out{i}" for i in range(len(m.returns)))
        call = f"{INSTANCE}.{m.name}({', '.join(f for f, _, _ in formals)})"
        lines += [f"method {name}({INSTANCE}: {build.class_name}{decl}) returns ({PREFIX}Ok: bool){loops}", "{"]
        lines += [f"  if !({r}) {{ return false; }}" for r in requires]
        lines += [f"  var {outs} := {call};" if outs else f"  {call};", "  return true;", "}"]
        steps.append(Maker(name, m.name, tuple(t for _, _, t in formals), len(m.returns)))
    return ClassPlan(build.class_name, tuple(ctors), tuple(steps)), lines


INSTANCE = "dspec2test_obj"  # the receiver, as the checks of a contract in a test's scope name it


def _contract(m: ast.Method, scope: MemberScope, ctx: EmitContext) -> Contract:
    owner = scope.owner.name if isinstance(scope.owner, ast.ClassDecl) else ""
    return contract_of(ctx.program, scope, m, ".".join([*scope.module, owner, m.name or CTOR_NAME]), ctx.classes)


def _requires(c: Contract, ctx: EmitContext) -> list[str] | None:
    """The method's requires as the harness checks them, or None where one cannot be compiled (calling it
    could break a requires no run would notice)."""
    checks = checks_of(c, ctx)
    if any(cl.kind == "requires" for cl, _ in checks.unchecked):
        return None
    return [print_expr(e) for _, e in checks.requires]


def _formals(c: Contract, ctx: EmitContext, resolver: Resolver) -> list[tuple[str, str, RType]] | None:
    """(name, type text, type) of each parameter, type parameters at their test instantiation; None where
    one is ghost, an object (the search makes objects only as inputs of their own), a function or an array,
    or its type does not resolve."""
    out = []
    scope = resolver.scope_of(c.member)
    for v in c.params:
        if v.ghost:
            return None
        try:
            t = resolver.rtype(v.type, scope)
        except Exception:  # noqa: BLE001 - a type the search cannot make: no such step
            return None
        if t.base.kind in ("class", "arrow", "array", "array2", "array3"):
            return None
        out.append((v.name, ctx.type_text(v.type, c), t))
    return out


def calls_text(root: str, calls: Calls, plan: ClassPlan, literal: Callable[[object, RType], str],
               drive: str) -> dict[str, str]:
    """A test's inputs for an object made by `calls`: the root's `new ...`, and `root<drive>k` per call
    (emit/objects.py writes them as statements)."""
    ctor = plan.ctors[calls.ctor]
    named = f".{ctor.name}" if ctor.name else ""
    args = ", ".join(literal(a, t) for a, t in zip(calls.args, ctor.args))
    out = {root: f"new {plan.text}" if ctor.bare else f"new {plan.text}{named}({args})"}
    for k, (j, step_args) in enumerate(calls.steps, 1):
        step = plan.steps[j]
        out[f"{root}{drive}{k}"] = f"{step.name}({', '.join(literal(a, t) for a, t in zip(step_args, step.args))})"
    return out

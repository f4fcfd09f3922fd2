"""Object inputs in a test: what the solver's model says of them, and the statements that build them.

A test makes each object input the way a user would by hand: `new C(args)` with the solved constructor
arguments, then an assignment of every public mutable field the contract reads (`o.f := v;`), an object
held in a field first built the same way. An input the model makes null is `null`; one the model makes
the same object as an earlier one is that object (`var to := from;`). Const fields come from the
constructor; ghost fields do not exist when the test runs, so neither is ever assigned.

In a TestCase's inputs an object is the Dafny expression that makes it (`new Stack(3)`, `null`, or the
name of the earlier input it is), and each field the test assigns is `root.field`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_type
from dspec2test.model.contracts import Contract, Var, pre_state_name
from dspec2test.model.objects import ELEMENT, Build, Root, drive_arg_name, drive_op_name
from dspec2test.model.types import TypeIndex
from dspec2test.solve.literal import ObjRef

INSTANCE = "dspec2test_obj"  # the receiver for instance members; Dafny names cannot start with "_"


def test_var(root: str) -> str:
    """The test's variable for an object input: the parameter's own name, or a name of ours."""
    if root == "this":
        return INSTANCE
    if "." in root:
        return "dspec2test_" + root.replace(".", "_")
    return root


def inputs_of(contract: Contract, values: dict[str, str], raw: dict[str, Any]) -> dict[str, str]:
    """The test's inputs from a model: parameters and settable fields before the call, and each object
    input as the expression that makes it."""
    pre = set(contract.pre_state)
    out: dict[str, str] = {}
    made: dict[int, str] = {}  # identity -> the first input that is that object
    roots = {r.name: r for r in contract.objects.roots if not r.output}
    params = {p.name for p in contract.params}
    for v in contract.inputs:
        if v.ghost and v.name not in roots and v.name not in params:
            continue  # a ghost field: no test can set it (a ghost parameter is passed like any other)
        name = pre_state_name(v.name) if v.name in pre else v.name
        root = roots.get(v.name)
        if root is None:
            if _settable(contract, v):
                out[v.name] = values[name]
            continue
        ref = raw.get(name)
        ident = ref.id if isinstance(ref, ObjRef) else 0
        if root.parent is not None and not _settable(contract, v):
            out[v.name] = v.name  # a const field's object: the constructor made it, the test uses it as it is
            continue
        if ident == 0:
            out[v.name] = "null"
        elif ident in made:
            out[v.name] = made[ident]
        else:
            made[ident] = v.name
            cls = ref.cls if isinstance(ref, ObjRef) else 0  # (an object with an identity: an ObjRef)
            build = root.builds[cls if cls < len(root.builds) else 0]
            out[v.name] = build.call([values[arg] for arg, _ in build.args])
            if root.driven:
                out.update(drive_calls(root.name, build, values))
    _elements(contract, values, raw, out)
    # the fields of a null object, or of one another input already is, are not the test's to set
    for r in roots.values():
        if (out.get(r.name) in roots and out.get(r.name) != r.name) or out.get(r.name) == "null":
            for f in r.fields:
                out.pop(r.field_var(f), None)
    return out


def drive_calls(root: str, build: Build, values: dict[str, str]) -> dict[str, str]:
    """The method calls that bring a driven root to its state, in order: `root#1` -> `Enqueue(3)`."""
    out: dict[str, str] = {}
    for k in range(1, build.steps + 1):
        op = int(values.get(drive_op_name(root, k), "0"))
        if not 0 < op <= len(build.drivers):
            break
        m = build.drivers[op - 1]
        args = ", ".join(values[drive_arg_name(root, k, m, p.name)] for p in m.params)
        out[f"{root}{DRIVE}{k}"] = f"{m.name}({args})"
    return out


def drive_lines(r: Root, inputs: dict[str, str]) -> list[str]:
    """`o.Enqueue(3);` per call after a driven root's construction (a method that returns values has them
    held in variables nobody reads)."""
    lines: list[str] = []
    if not r.builds:
        return lines
    build = r.builds[0]
    methods = {m.name: m for m in (*build.drivers, *build.cls.members) if isinstance(m, ast.Method)}
    k = 0
    while True:
        k += 1
        call = inputs.get(f"{r.name}{DRIVE}{k}")
        if call is None:
            break
        m = methods.get(call.split("(", 1)[0])
        target = f"{test_var(r.name)}.{call}"
        if m is not None and m.returns:
            names = ", ".join(f"{test_var(r.name)}_{k}_{p.name}" for p in m.returns)
            lines.append(f"var {names} := {target};")
        else:
            lines.append(f"{target};")
    return lines


DRIVE = "#call"  # key of a driven root's k-th call in a test's inputs: `this#call1`


def _elements(contract: Contract, values: dict[str, str], raw: dict[str, Any], out: dict[str, str]) -> None:
    """The objects held in collection inputs: numbered `#1`, `#2`... in order of appearance, each the
    expression that makes it and its fields; the collection of them (`[#1, #2, #1]`)."""
    groups = {g.var: g for g in contract.objects.elements}
    pre = set(contract.pre_state)
    number: dict[int, int] = {}
    for name, g in groups.items():
        if name not in out:
            continue
        held = raw.get(pre_state_name(name) if name in pre else name)
        items = []
        for ident in held if isinstance(held, (tuple, list)) else ():
            if ident == 0:
                items.append("null")
                continue
            if ident not in number:
                k = number[ident] = len(number) + 1
                build = g.build
                assert build is not None  # the model keeps only collections whose elements it can build
                out[f"{ELEMENT}{k}"] = build.call([values[f"#{ident}#new:{formal.name}"]
                                                    for formal in (build.ctor.params if build.ctor else ())])
                for f in g.fields:
                    if f.settable and f"#{ident}.{f.name}" in values:
                        out[f"{ELEMENT}{k}.{f.name}"] = values[f"#{ident}.{f.name}"]
            items.append(f"{ELEMENT}{number[ident]}")
        if g.kind in ("set", "multiset"):
            items = sorted(set(items)) if g.kind == "set" else items
            out[name] = ("multiset" if g.kind == "multiset" else "") + "{" + ", ".join(items) + "}"
        else:
            out[name] = "[" + ", ".join(items) + "]"


def element_lines(contract: Contract, inputs: dict[str, str]) -> list[str]:
    """The objects held in collection inputs, built first (the collections name them)."""
    lines: list[str] = []
    fields = {f.name for g in contract.objects.elements for f in g.fields}
    for key, text in inputs.items():
        if key.startswith(ELEMENT) and "." not in key:
            lines.append(f"var {in_code(key)} := {text};")
    for key, text in inputs.items():
        if key.startswith(ELEMENT) and "." in key and key.split(".", 1)[1] in fields:
            lines.append(f"{in_code(key)} := {text};")
    return lines


def in_code(text: str) -> str:
    """Our own text for objects held in collections (`[#1, #2]`, `#1.f`), as the test's variables."""
    return text.replace(ELEMENT, "dspec2test_e")


def _settable(contract: Contract, v: Var) -> bool:
    """A parameter, or a field the test assigns."""
    if "." not in v.name:
        return True
    for r in contract.objects.roots:
        for f in r.fields:
            if r.field_var(f) == v.name:
                return f.settable and not r.output
    return False


def setup_lines(contract: Contract, inputs: dict[str, str], types: TypeIndex,
                typed: Callable[[ast.Type], str] = print_type) -> list[str]:
    """The statements that build the object inputs, in the order the model's values need them."""
    roots = [r for r in contract.objects.roots if not r.output and r.name in inputs]
    names = {r.name for r in roots}
    # an input that is another input's object comes after it
    roots.sort(key=lambda r: inputs[r.name] in names)
    lines: list[str] = []
    for r in roots:
        text = inputs[r.name]
        init = test_var(text) if text in {x.name for x in roots} else text
        if text == r.name and r.parent is not None:  # the object a const field holds
            init = f"{test_var(r.parent)}.{r.name.rpartition('.')[2]}"
        lines.append(f"var {test_var(r.name)}{_annotation(r, init, types, typed)} := {init};")
        lines += drive_lines(r, inputs)  # the calls that bring it to its state (a driven root, the search's)
    for r in roots:
        if inputs[r.name] == "null" or (inputs[r.name] in {x.name for x in roots} and inputs[r.name] != r.name):
            continue
        for f in r.fields:
            key = r.field_var(f)
            if not f.settable or key not in inputs:
                continue
            target = f"{test_var(r.name)}.{f.name}"
            if any(x.name == key for x in roots):
                lines.append(f"{target} := {test_var(key)};")
            elif types.kind(f.type) == "array":
                lines += array_lines(test_var(key), test_var(key) + "_init", f.type, in_code(inputs[key]), types,
                                     typed)
                lines.append(f"{target} := {test_var(key)};")
            else:
                lines.append(f"{target} := {in_code(inputs[key])};")
    return lines


def _annotation(r: Root, init: str, types: TypeIndex, typed: Callable[[ast.Type], str]) -> str:
    """The type a root's variable is declared with: its own (none for the receiver), but the class it is made
    by `new` of where that class extends traits (an input of a trait type, or a receiver whose fields a trait
    declares): Dafny's inference takes the trait that declares a field the test sets, up a chain of traits,
    and then finds none of the class's other members (`member 'Bump' does not exist in trait 'A'`)."""
    built = next((b for b in r.builds if init.startswith(f"new {b.class_name}")
                  and init[len(f"new {b.class_name}"):][:1] in ("", "(", ".")), None)
    if built is not None and (built.cls.extends or _made_for_trait(r.type, init, types)):
        return f": {built.class_name}"
    if _made_for_trait(r.type, init, types):
        return ""
    return "" if r.name == "this" else f": {typed(r.type)}"


def _made_for_trait(t: ast.Type, init: str, types: TypeIndex) -> bool:
    """An input of a trait type made by `new` of a class: its variable takes the class's type (a trait has
    none of the fields the test then sets), and is passed where the trait is wanted."""
    b = types.base(t)
    d = types.decls.get(b.name.rstrip("?")) if isinstance(b, ast.NamedType) else None
    return init.startswith("new ") and isinstance(d, ast.ClassDecl) and d.kind == "trait"


def array_lines(name: str, init: str, t: ast.Type, literal: str, types: TypeIndex,
                typed: Callable[[ast.Type], str] = print_type) -> list[str]:
    """`var name := new T[n]` filled with the elements of a sequence literal (held in `init` first)."""
    base = types.base(t)
    elem = typed(base.args[0]) if isinstance(base, ast.NamedType) and base.args else "int"
    dims = int(base.name.rstrip("?")[-1]) if isinstance(base, ast.NamedType) and base.name.rstrip("?") in (
        "array2", "array3") else 1
    if dims > 1:  # from nested sequences: `new T[m, n]((i, j) => s[i][j])`, an empty one 0 by 0
        lengths, inner = [], init
        for _ in range(dims):
            lengths.append(f"|{inner}|" if inner == init else f"if |{init}| == 0 then 0 else |{inner}|")
            inner += "[0]"
        idx = [f"dspec2test_{c}" for c in "ijk"[:dims]]
        cell = init + "".join(f"[{i}]" for i in idx)
        return [f"var {init}: {'seq<' * dims}{elem}{'>' * dims} := {literal};",
                f"var {name} := new {elem}[{', '.join(lengths)}](({', '.join(idx)}) => {cell});"]
    return [f"var {init}: seq<{elem}> := {literal};",
            f"var {name} := new {elem}[|{init}|];",
            f"forall dspec2test_i | 0 <= dspec2test_i < |{init}| {{ {name}[dspec2test_i] := {init}[dspec2test_i]; }}"]

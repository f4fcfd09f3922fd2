"""The objects a member's test builds, read off its declaration: receiver, object parameters, their fields.

An instance member is tested on an object the test makes: a constructor called with solved arguments,
then the public mutable fields the contract reads assigned. So every object input ("root": `this`, a
parameter of class or trait type, an object held in a field of one) becomes solver variables: its
identity (0 is null), and one variable per field the contract reads, named `root.field`. A member that
modifies a root has a pre-state twin of each of its fields, as for arrays (contracts.pre_state_name).
`const` fields only a constructor sets; so for them the constructor's arguments are solved too, under
its requires and ensures (evaluated in the state right after construction, `old@root#new`).

Only declarations are read, never bodies (except of functions and predicates, which the solver
encodes anyway); names are matched the way the rest of the pipeline does, by the program's index.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from dspec2test.dafny import ast
from dspec2test.model.classes import ClassIndex
from dspec2test.model.walk import children, conj, conjuncts, map_children, rebuild, substitute, walk

DEFAULT_TYPE_ARG = ast.NamedType("int")
MAX_DEPTH = 2  # objects reached through fields of objects: `this.next` yes, `this.next.next.next` no
CTOR_STATE = "#new"  # label suffix of the state right after a root's construction: `old@this#new(...)`


def ctor_arg_name(root: str, formal: str) -> str:
    """The solver's variable for a constructor argument of a root (not a Dafny name: clashes with none)."""
    return f"{root}#new:{formal}"


def ctor_field_name(root: str, field_name: str) -> str:
    """The solver's variable for a field's value right after the root's construction."""
    return f"{root}#new.{field_name}"


DRIVE_STEPS = 3  # method calls after a driven root's construction: short sequences, the solver picks them


def opaque_name(pred: ast.Function) -> str:
    """A parameterless predicate of a driven root held as a value of its state (`Valid()`)."""
    return f"{pred.name}()"


def drive_op_name(root: str, step: int) -> str:
    """The solver's variable saying which method a driven root's step calls (0: none, k: the k-th driver)."""
    return f"{root}#drive{step}"


def is_drive_op(name: str) -> bool:
    """Is a solver variable the choice of a driven root's call (not a value a test holds)?"""
    head, sep, tail = name.rpartition("#drive")
    return bool(sep) and tail.isdigit()


def drive_arg_name(root: str, step: int, method: ast.Method, formal: str) -> str:
    return f"{root}#drive{step}:{method.name}:{formal}"


def drive_state_name(root: str, step: int, field_name: str) -> str:
    """A field of a driven root in the state after its constructor (step 0) and each call."""
    return f"{root}#state{step}.{field_name}"


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class FieldUse:
    """A field of a root that the contract reads (directly or through the functions it calls)."""

    name: str
    type: ast.Type  # declared type, the class's type parameters instantiated
    ghost: bool  # ghost where the tests run: declared ghost, and not lifted by the test build
    const: bool  # set only by a constructor
    modified: bool  # the member may change it: the solver has its pre-state too
    decl: ast.Field | ast.Const | ast.Function = field(compare=False, repr=False)
    # the test cannot assign it: the object's state comes from its constructor and methods (a driven root)
    fixed: bool = False
    # ghost as written, compiled in the test build: a test reads it, never assigns it (its value comes from
    # the constructor and the methods, as the verifier sees it)
    lifted: bool = False

    @property
    def settable(self) -> bool:
        """A test may assign it (`o.f := v;`): a compiled `var` field of an object the test sets up."""
        return not self.ghost and not self.const and not self.fixed and not self.lifted


@dataclass(frozen=True)
class Build:
    """How a test makes an object of one class: `new C(args)` or `new C.Init(args)`, or `new C`."""

    cls: ast.ClassDecl = field(compare=False, repr=False)
    class_name: str  # as the test writes it, type arguments included: `Stack<int>`
    ctor: ast.Method | None = field(compare=False, repr=False)  # None: the class has no constructor
    args: tuple[tuple[str, ast.Type], ...] = ()  # (solver variable, type) per constructor formal
    # const fields whose value only this constructor decides: the solver needs its ensures for them
    decides: tuple[str, ...] = ()
    # a driven root: after construction, up to `steps` calls of these methods (chosen by the solver) bring
    # the object to the state the member requires
    drivers: tuple[ast.Method, ...] = field(default=(), compare=False, repr=False)
    steps: int = 0
    drive_args: tuple[tuple[str, ast.Type], ...] = ()  # (solver variable, type) per step, driver and formal
    told: frozenset[str] = frozenset()  # what the constructor's and the drivers' ensures speak of

    def drive_vars(self, root: str) -> tuple[tuple[str, ast.Type], ...]:
        """The solver's variables of the calls after construction: which method per step, and its arguments."""
        ops = tuple((drive_op_name(root, k), ast.NamedType("int")) for k in range(1, self.steps + 1))
        return ops + self.drive_args

    def call(self, literals: list[str]) -> str:
        if self.ctor is None:
            return f"new {self.class_name}"
        name = f".{self.ctor.name}" if self.ctor.name else ""
        return f"new {self.class_name}{name}({', '.join(literals)})"


def root_expr(name: str) -> ast.Expr:
    """How the contract names an object input: `this`, `o`, `this.next`."""
    head, *rest = name.split(".")
    out: ast.Expr = ast.ThisExpr() if head == "this" else ast.Name(head)
    for r in rest:
        out = ast.MemberSelect(out, r)
    return out


@dataclass(frozen=True)
class Root:
    """An object of the member's inputs or outputs."""

    name: str  # "this", a parameter or out-parameter, or "this.next" for an object held in a field
    type: ast.Type  # its declared type
    nullable: bool
    output: bool  # an out-parameter, or the object a constructor under test makes: never built by the test
    builds: tuple[Build, ...]  # per class it can be built as (several for a trait with several classes)
    fields: tuple[FieldUse, ...]
    parent: str | None = None  # the root holding it in a field, for `this.next`
    # built only through its class's constructor and methods (deep_invariant): its fields are the abstract
    # state their contracts speak of, its predicates (`Valid()`) opaque values of that state
    driven: bool = False

    @property
    def expr(self) -> ast.Expr:
        return root_expr(self.name)

    def field_var(self, f: FieldUse) -> str:
        return f"{self.name}.{f.name}"


@dataclass(frozen=True)
class Elements:
    """Objects held in a collection input (`s: seq<Account>`, `this.accounts`): each is built like a root,
    then the collection of them. The solver holds their fields as functions of their identity."""

    var: str  # the collection's variable: a parameter or a field variable
    kind: str  # "seq" | "array" | "set" | "multiset"
    type: ast.Type  # the element type
    nullable: bool
    build: Build | None  # how to make one (None: the element type has no class to build)
    fields: tuple[FieldUse, ...]  # the fields the contract reads
    modified: bool  # the member may change their fields

    def field(self, name: str) -> FieldUse | None:
        return next((f for f in self.fields if f.name == name), None)


ELEMENT = "#"  # prefix of element objects' names in the model and in a test's inputs: `#1`, `#1.balance`


@dataclass(frozen=True)
class Objects:
    """Everything object-related about one member."""

    roots: tuple[Root, ...] = ()
    invariants: tuple[tuple[str, ast.Function], ...] = ()  # (root, predicate) the root's objects keep
    ensured: tuple[tuple[str, ast.Function], ...] = ()  # (root, predicate) the member re-establishes
    unsupported: tuple[str, ...] = ()  # why some object input cannot be built (per root)
    notes: tuple[str, ...] = ()  # what the tests cannot choose of an object's state, and why
    elements: tuple[Elements, ...] = ()
    # why no call sequence is known to bring a driven object to the state the requires ask (per root)
    unreachable: tuple[str, ...] = ()

    @property
    def pre_state(self) -> tuple[str, ...]:
        """Field variables that have a pre-state twin."""
        return tuple(r.field_var(f) for r in self.roots if not r.output for f in r.fields if f.modified)

    def root(self, name: str) -> Root | None:
        return next((r for r in self.roots if r.name == name), None)

    def class_choices(self) -> list[tuple[ast.Expr, ...]]:
        """One tuple of `root is C` literals per combination of classes of roots built through a trait
        with several classes (`[()]` when there is none): a partition per combination."""
        out: list[tuple[ast.Expr, ...]] = [()]
        for r in self.roots:
            if r.output or len(r.builds) < 2:
                continue
            out = [prev + (ast.TypeTest(r.expr, ast.NamedType(b.class_name.split("<")[0])),)
                   for prev in out for b in r.builds]
        return out[:8]


# ---------------------------------------------------------------- deriving them


def instance_names(index: ClassIndex, cls: ast.ClassDecl) -> set[str]:
    """Names of the instance members (fields, consts, functions, methods) of a class, inherited included."""
    return {m.name for m in index.members(cls) if getattr(m, "name", "") and not getattr(m, "static", False)
            and isinstance(m, (ast.Field, ast.Const, ast.Function, ast.Method))}


def explicit_this(e: ast.Expr, index: ClassIndex, cls: ast.ClassDecl, locals_: set[str]) -> ast.Expr:
    """`f` for an instance member f of the enclosing class -> `this.f`, so every field read names its
    object (bound variables and parameters that shadow a member are left alone)."""
    names = instance_names(index, cls) - locals_
    if not names:
        return e
    return substitute(e, {n: ast.MemberSelect(ast.ThisExpr(), n) for n in names})


def mentioned(index: ClassIndex, exprs: list[ast.Node]) -> set[str]:
    """Every name the expressions mention, and those mentioned by the functions they call (transitively,
    by name): the fields a contract may read, over-approximated."""
    out: set[str] = set()
    todo = list(exprs)
    seen: set[int] = set()
    while todo:
        e = todo.pop()
        for n in walk(e):
            name = n.name if isinstance(n, (ast.Name, ast.MemberSelect)) else None
            if name and name not in out:
                out.add(name)
                for f in index.functions.get(name, ()):
                    if id(f) not in seen:
                        seen.add(id(f))
                        todo += [x for x in (f.body,) if x is not None]
                        todo += [c.expr for c in f.spec.requires]
    return out


def class_type_args(t: ast.Type, cls: ast.ClassDecl) -> dict[str, ast.Type]:
    args = t.args if isinstance(t, ast.NamedType) else ()
    return {p.name: (args[i] if i < len(args) else DEFAULT_TYPE_ARG) for i, p in enumerate(cls.type_params)}


def instantiate(t: ast.Type, tsub: dict[str, ast.Type]) -> ast.Type:
    if not tsub:
        return t

    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.NamedType) and not n.args and n.name in tsub:
            return tsub[n.name]
        return None

    return rebuild(t, fn)


def class_text(cls: ast.ClassDecl, index: ClassIndex, tsub: dict[str, ast.Type],
               print_type: Callable[[ast.Type], str]) -> str:
    name = index.qualified(cls)
    if not cls.type_params:
        return name
    return f"{name}<{', '.join(print_type(tsub.get(p.name, DEFAULT_TYPE_ARG)) for p in cls.type_params)}>"


@dataclass
class _Deriver:
    index: ClassIndex
    member: ast.Method | ast.Function
    names: set[str]  # mentioned by the contract and what it calls
    frames: list[ast.Expr]  # the modifies clause's expressions (contract's spelling: `this.f`, `o`)
    print_type: Callable[[ast.Type], str]
    whole: list[ast.Expr]  # objects of which the contract reads every field (`unchanged(o)`)
    exprs: list[ast.Expr] = field(default_factory=list)  # the contract's own clauses
    roots: list[Root] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    elements: list[Elements] = field(default_factory=list)

    def add_elements(self, var: str, t: ast.Type) -> None:
        """A collection of objects among the inputs: how to build its elements, and what of them is read."""
        kind = t.name.rstrip("?") if isinstance(t, ast.NamedType) else ""
        et = t.args[0] if isinstance(t, ast.NamedType) and len(t.args) == 1 else None
        decl = self.index.lookup(et) if et is not None else None
        if et is None or decl is None or kind not in ("seq", "array", "set", "multiset"):
            return
        impls = self.index.implementations(decl)
        fields: dict[str, FieldUse] = {}
        for cls in impls[:1]:
            for f in self.index.fields(cls):
                if f.name in self.names and f.name not in fields and f.type is not None and not (
                        isinstance(f, ast.Const) and f.value is not None):
                    ftype = instantiate(f.type, {p.name: DEFAULT_TYPE_ARG for p in cls.type_params})
                    fields[f.name] = FieldUse(f.name, ftype, f.ghost_in_tests, isinstance(f, ast.Const), False, decl=f,
                                              lifted=f.lifted)
        if self.index.lookup(et) is not None and any(self.index.lookup(f.type) for f in fields.values()):
            self.unsupported.append(f"{var}: objects in a collection that hold objects")
            return
        modified = self.modifies_all() or any(
            var.split(".")[-1] in _field_names(f) and not (isinstance(f, ast.Name) and f.name == var)
            for f in self.frame_exprs())
        build = self.build(ELEMENT, impls[0], et, decl, fields) if impls else None
        if build is None:
            self.unsupported.append(f"{var}: no class of the program implements trait {decl.name}")
            return
        fields = {k: replace_modified(f, modified) for k, f in fields.items()}
        nullable = isinstance(et, ast.NamedType) and et.name.endswith("?")
        self.elements.append(Elements(var, kind, et, nullable, build, tuple(fields.values()),
                                      modified))

    def modifies_all(self) -> bool:
        """A frame of objects we cannot tell apart (`modifies Repr`, a set of them): every root may change."""
        return any(not isinstance(f, (ast.ThisExpr, ast.Name, ast.MemberSelect, ast.FrameField, ast.SetDisplay))
                   or (isinstance(f, ast.MemberSelect) and not self._is_field_path(f))
                   or (isinstance(f, (ast.Name, ast.MemberSelect)) and self._collection(f)) for f in self.frames)

    def _collection(self, f: ast.Name | ast.MemberSelect) -> bool:
        """Does a frame name a collection of objects (a field or parameter of set or sequence type)?"""
        if isinstance(f, ast.Name):
            types = [p.type for p in getattr(self.member, "params", ()) if p.name == f.name]
        else:
            types = [x.type for c in self.index.order for x in self.index.fields(c) if x.name == f.name]
        return any(isinstance(t, ast.NamedType) and t.name.rstrip("?") in ("set", "iset", "seq", "multiset")
                   for t in types)

    def _is_field_path(self, e: ast.Expr) -> bool:
        return isinstance(e, ast.MemberSelect) and (isinstance(e.obj, ast.ThisExpr) or isinstance(e.obj, ast.Name)
                                                     or self._is_field_path(e.obj))

    def frame_exprs(self) -> list[ast.Expr]:
        out = []
        for f in self.frames:
            out += list(f.elems) if isinstance(f, ast.SetDisplay) else [f]
        return out

    def modified(self, root_expr: ast.Expr, fname: str) -> bool:
        if not isinstance(self.member, ast.Method):
            return False
        if self.member.kind == "constructor" and isinstance(root_expr, ast.ThisExpr):
            return True
        if self.modifies_all():
            return True
        field_expr = ast.MemberSelect(root_expr, fname)
        for f in self.frame_exprs():
            if f == root_expr or f == field_expr:  # the object, or the array/object its field holds
                return True
            if isinstance(f, ast.FrameField) and f.obj == root_expr and f.field_name == fname:
                return True
        return False

    def add(self, name: str, t: ast.Type, output: bool, parent: str | None, depth: int, fixed: bool = False) -> None:
        """`fixed`: an object a driven root holds, as its methods made it: never built nor assigned by the test."""
        decl = self.index.lookup(t)
        if decl is None:
            self.unsupported.append(f"{name}: type {self.print_type(t)}")
            return
        if depth == 0 and decl.kind == "class" and deep_invariant(self.index, decl, self.names):
            self.add_driven(name, t, decl, output)
            return
        if depth == 0 and decl.kind == "class" and lifted_state(self.index, decl, self.names):
            # its predicates by their bodies where those read its own values; opaque where they hold a
            # frame of objects (`this in Repr && arr in Repr`): no Z3 model of those across calls was found
            self.add_driven(name, t, decl, output, opaque=holds_frame(self.index, decl, self.names))
            return
        impls = self.index.implementations(decl)
        if not impls and not output:
            self.unsupported.append(f"{name}: no class of the program implements trait {decl.name}")
            return
        tsub = class_type_args(t, decl)
        here = root_expr(name)
        fields: dict[str, FieldUse] = {}
        for cls in impls or (decl,):
            ctsub = class_type_args(t, cls) if cls is decl else {p.name: DEFAULT_TYPE_ARG for p in cls.type_params}
            for f in self.index.fields(cls):
                if f.name in fields or (f.name not in self.names and (here not in self.whole or f.ghost_in_tests)):
                    continue
                if isinstance(f, ast.Const) and f.value is not None:
                    continue  # its value is an expression the solver encodes
                ftype = instantiate(f.type, ctsub if cls is decl else tsub | ctsub) if f.type is not None else None
                if ftype is None:
                    continue
                # a field holding an object keeps pointing at it (its own fields are that object's): the
                # model has no pre-state of the reference
                fixed_ref = isinstance(f, ast.Const) or self.index.lookup(ftype) is not None
                fields[f.name] = FieldUse(f.name, ftype, f.ghost_in_tests, isinstance(f, ast.Const),
                                          not output and not fixed_ref and self.modified(here, f.name), decl=f,
                                          fixed=fixed, lifted=f.lifted)
        builds = tuple(self.build(name, cls, t, decl, fields) for cls in impls) if not output and not fixed else ()
        nullable = isinstance(t, ast.NamedType) and t.name.endswith("?")
        root = Root(name, t, nullable, output, builds, tuple(fields.values()), parent)
        self.roots.append(root)
        if depth + 1 >= MAX_DEPTH:
            return
        for held in root.fields:
            if self.index.lookup(held.type) is not None and not held.ghost:
                self.add(root.field_var(held), held.type, output, name, depth + 1, fixed or held.lifted)

    def add_driven(self, name: str, t: ast.Type, cls: ast.ClassDecl, output: bool, opaque: bool = True) -> None:
        """An object whose invariant reaches beyond its own fields (deep_invariant), or whose contract reads
        ghost state the test build compiles (lifted_state): no assignment of fields makes a valid one, so a
        test makes it as a user would, by its constructor and then calls of its methods. Its state is what
        their contracts say: the fields they and the member's contract name (none of the objects those
        hold) and its parameterless predicates, as opaque values where `opaque` (their bodies recurse
        through the heap); else by their bodies, over the fields those read (`Valid()` with `Contents == []`
        says `n == 0` of `Contents == arr[..n]`)."""
        tsub = class_type_args(t, cls)
        ctors = [m for m in cls.members if isinstance(m, ast.Method) and m.kind == "constructor"]
        drivers = tuple(m for m in self.index.members(cls) if isinstance(m, ast.Method) and _drives(self.index, m))
        clauses: list[ast.Node] = []
        for m in ctors + list(drivers):
            clauses += [c.expr for c in (*m.spec.requires, *m.spec.ensures)]
        said = {n for e in clauses for n in _state_names(e)}
        direct = {n for e in self.exprs for n in _state_names(e)}
        named = said | direct
        if not opaque:  # and what the predicates they call read
            bodies: list[ast.Node] = [m.body for m in self.index.members(cls) if isinstance(m, ast.Function)
                                      and m.name in named and m.body is not None]
            named |= mentioned(self.index, bodies)
        fields: dict[str, FieldUse] = {}
        here = root_expr(name)
        for d in self.index.members(cls):
            if getattr(d, "static", False) or getattr(d, "name", None) not in named:
                continue
            if isinstance(d, ast.Field) or (isinstance(d, ast.Const) and d.value is None):
                if d.type is None:
                    continue
                ftype = instantiate(d.type, tsub)
                fields[d.name] = FieldUse(d.name, ftype, d.ghost_in_tests, isinstance(d, ast.Const),
                                          not output and not isinstance(d, ast.Const) and self.modified(here, d.name),
                                          decl=d, fixed=True, lifted=d.lifted)
            elif opaque and isinstance(d, ast.Function) and not d.params and d.result_type is not None \
                    and not d.type_params:
                rtype = instantiate(d.result_type, tsub)
                fields[opaque_name(d)] = FieldUse(opaque_name(d), rtype, d.ghost_in_tests, False,
                                                  not output and self.modified(here, d.name), decl=d, fixed=True,
                                                  lifted=d.lifted)
        builds: tuple[Build, ...] = ()
        if not output:
            if not ctors:
                self.unsupported.append(f"{name}: an object of class {cls.name}, whose invariant reads other "
                                        f"objects, and which has no constructor to make a valid one")
                return
            text = class_text(cls, self.index, tsub, self.print_type)
            # the constructor that says most of the new object's state, then the one with fewest arguments
            best = max(ctors, key=lambda c: (len(c.spec.ensures), -len(c.params)))
            args = tuple((ctor_arg_name(name, p.name), instantiate(p.type, tsub)) for p in best.params)
            # with predicates by their bodies one call (a non-empty stack) is what the solver reaches
            steps = (DRIVE_STEPS if opaque else 1) if drivers else 0
            dargs = tuple((drive_arg_name(name, k, m, p.name), instantiate(p.type, tsub))
                          for k in range(1, steps + 1) for m in drivers for p in m.params)
            told = frozenset(n for m in [best, *drivers] for c in m.spec.ensures for n in _state_names(c.expr))
            builds = (Build(cls, text, best, args, (), drivers, steps, dargs, told),)
        nullable = isinstance(t, ast.NamedType) and t.name.endswith("?")
        root = Root(name, t, nullable, output, builds, tuple(fields.values()), None, driven=True)
        self.roots.append(root)
        for f in root.fields:  # objects it holds whose fields the member's contract reads: as it left them
            if f.name in direct and not f.ghost and self.index.lookup(f.type) is not None:
                self.add(root.field_var(f), f.type, output, name, 1, fixed=True)

    def build(self, root: str, cls: ast.ClassDecl, t: ast.Type, decl: ast.ClassDecl,
              fields: dict[str, FieldUse]) -> Build:
        tsub = class_type_args(t, cls) if cls is decl else {p.name: DEFAULT_TYPE_ARG for p in cls.type_params}
        text = class_text(cls, self.index, tsub, self.print_type)
        ctors = [m for m in cls.members if isinstance(m, ast.Method) and m.kind == "constructor"]
        if not ctors:
            return Build(cls, text, None)
        consts = [f.name for f in fields.values() if f.const and not f.ghost]

        def decided(c: ast.Method) -> tuple[str, ...]:
            said = {n for cl in c.spec.ensures for n in _field_names(cl.expr)}
            return tuple(n for n in consts if n in said)

        # the constructor that says most of the consts the contract reads; then the one with fewest arguments
        best = max(ctors, key=lambda c: (len(decided(c)), -len(c.params)))
        args = tuple((ctor_arg_name(root, p.name), instantiate(p.type, tsub)) for p in best.params)
        for n in consts:
            if n not in decided(best):
                self.notes.append(f"{root}.{n} is a const only {cls.name}'s constructor sets, and its ensures do "
                                  f"not say to what: the tests take what it gives, the solver cannot choose it")
        return Build(cls, text, best, args, decided(best))


def deep_invariant(index: ClassIndex, cls: ast.ClassDecl, names: set[str]) -> bool:
    """Does a parameterless predicate of the class that objects keep or the contract names reach
    beyond the object's own fields by calling a predicate of another object (`n.Valid()` for the nodes
    of a list, `root.valid()`)? That is recursion through the heap: the solver holds an object's fields,
    and those of the objects its fields hold, not such graphs."""
    kept = class_invariants(index, cls, None)
    preds = [m for m in index.members(cls) if isinstance(m, ast.Function) and not m.params and not m.static
             and m.body is not None and (m.name in names or any(m is k for k in kept))]
    if not preds:
        return False
    funcs = {m.name for c in index.order for m in index.members(c) if isinstance(m, ast.Function) and not m.static}
    for p in preds:
        if p.body is None:
            continue  # (none: preds have bodies)
        body = explicit_this(p.body, index, cls, {x.name for x in p.params})
        for n in walk(body):
            if isinstance(n, ast.Call) and isinstance(n.callee, ast.MemberSelect) and n.callee.name in funcs \
                    and not isinstance(n.callee.obj, ast.ThisExpr):
                return True
    return False


def lifted_state(index: ClassIndex, cls: ast.ClassDecl, names: set[str]) -> bool:
    """Does the contract read (directly or through the functions it calls) a ghost field of the class
    that the test build compiles? A test never assigns one: its value is what the constructor and the
    methods made it, so the object is made by them, as a client makes it (a driven root), and its
    compiled fields are left as they made them too (`Contents == arr[..n]` ties the two)."""
    return any(isinstance(f, (ast.Field, ast.Const)) and f.lifted and f.name in names for f in index.fields(cls))


def holds_frame(index: ClassIndex, cls: ast.ClassDecl, names: set[str]) -> bool:
    """Does the class keep a frame of objects the contract reads (`ghost var Repr: set<object>`)?"""
    def objects(t: ast.Type | None) -> bool:
        return isinstance(t, ast.NamedType) and t.name.rstrip("?") in ("set", "iset", "seq", "multiset") \
            and len(t.args) == 1 and (index.lookup(t.args[0]) is not None
                                      or (isinstance(t.args[0], ast.NamedType) and t.args[0].name == "object"))
    return any(objects(f.type) for f in index.fields(cls) if f.name in names)


def _state_names(e: ast.Node) -> Iterator[str]:
    """The names an expression reads, but for those only under fresh(): allocation is not modelled (fresh()
    is true to the solver), and a set of objects held for nothing else costs Z3 much."""
    if isinstance(e, ast.Fresh):
        return
    if isinstance(e, (ast.Name, ast.MemberSelect)):
        yield e.name
    for c in children(e):
        yield from _state_names(c)


def _drives(index: ClassIndex, m: ast.Method) -> bool:
    """A method a test may call to change an object's state: compiled, of the instance, with a frame, and
    with parameters of plain types only (their arguments are solved)."""
    return m.kind == "method" and not m.ghost and not m.static \
        and not m.type_params and bool(m.spec.modifies) and not any(a.name == "test" for a in m.attributes) \
        and all(index.lookup(p.type) is None and not holds_objects(index, p.type) for p in m.params)


def holds_objects(index: ClassIndex, t: ast.Type) -> bool:
    """A collection of objects (`seq<Account>`)?"""
    return isinstance(t, ast.NamedType) and t.name.rstrip("?") in ("seq", "array", "set", "multiset") \
        and len(t.args) == 1 and index.lookup(t.args[0]) is not None


def replace_modified(f: FieldUse, modified: bool) -> FieldUse:
    return dataclasses.replace(f, modified=modified and not f.const)


def _field_names(e: ast.Expr) -> set[str]:
    return {n.name for n in walk(e) if isinstance(n, (ast.Name, ast.MemberSelect))}


def objects_of(program: ast.Program, index: ClassIndex, member: ast.Method | ast.Function,
               cls: ast.ClassDecl | None, params: list[tuple[str, ast.Type]], outputs: list[tuple[str, ast.Type]],
               exprs: list[ast.Expr], print_type: Callable[[ast.Type], str]) -> Objects:
    """The roots of a member: `this` for an instance member (an output of a constructor), then every
    parameter and out-parameter of class or trait type, then objects held in their fields. `exprs`: the
    contract's clauses in their explicit-`this` form."""
    invariants = []
    ensured = []
    static = cls is None or getattr(member, "static", False)
    is_ctor = isinstance(member, ast.Method) and member.kind == "constructor"
    if not static and cls is not None and not is_ctor:
        for pred in class_invariants(index, cls, member):
            invariants.append(("this", pred))
            if isinstance(member, ast.Method) and _autocontracts(cls):
                ensured.append(("this", pred))
    for name, t in params:
        decl = index.lookup(t)
        if decl is not None and decl.kind == "class":
            invariants += [(name, pred) for pred in class_invariants(index, decl, None)]
    inv_exprs: list[ast.Node] = [pred.body for _, pred in invariants if pred.body is not None]
    names = mentioned(index, list(exprs) + inv_exprs)
    frames = [explicit_this(e, index, cls, {n for n, _ in params}) if cls is not None else e
              for c in getattr(member.spec, "modifies", ()) for e in c.exprs]
    if not static and cls is not None and _autocontracts(cls) and isinstance(member, ast.Method):
        frames.append(ast.ThisExpr())  # {:autocontracts} adds `modifies Repr`, this among it
    d = _Deriver(index, member, names, frames, print_type, unchanged_roots(exprs), list(exprs))
    if not static and cls is not None:
        t = ast.NamedType(index.qualified(cls), tuple(DEFAULT_TYPE_ARG for _ in cls.type_params))
        d.add("this", t, is_ctor, None, 0)
    for name, t in params:
        if index.lookup(t) is not None:
            d.add(name, t, False, None, 0)
        else:
            d.add_elements(name, t)
    for r in list(d.roots):  # collections of objects in the fields of input objects
        if not r.output and not r.driven:
            for f in r.fields:
                if f.settable:
                    d.add_elements(r.field_var(f), f.type)
    for name, t in outputs:
        if index.lookup(t) is not None:
            d.add(name, t, True, None, 0)
    return Objects(tuple(d.roots), tuple(invariants), tuple(ensured), tuple(d.unsupported), tuple(d.notes),
                   tuple(d.elements), unreachable_states(d.roots, [c.expr for c in member.spec.requires], index, cls,
                                                         {n for n, _ in params}))


def unreachable_states(roots: list[Root], requires: list[ast.Expr], index: ClassIndex, cls: ast.ClassDecl | None,
                       locals_: set[str]) -> tuple[str, ...]:
    """A driven root whose field (or predicate) the requires read, while neither its constructor's nor any
    driver's ensures say anything of it: no call sequence is known to meet the requires."""
    out = []
    reqs = [explicit_this(e, index, cls, locals_) if cls is not None else e for e in requires]
    for r in roots:
        if not r.driven or r.output or not r.builds:
            continue
        told = r.builds[0].told
        fields = {f.name.removesuffix("()") for f in r.fields}
        for e in reqs:
            for n in walk(e):
                if isinstance(n, ast.MemberSelect) and n.obj == r.expr and n.name in fields and n.name not in told:
                    out.append(f"{r.name}.{n.name}: the requires read it, and no ensures of the constructor or "
                               f"the methods that make {r.name} says what it holds")
    return tuple(dict.fromkeys(out))


def _autocontracts(cls: ast.ClassDecl) -> bool:
    return any(a.name == "autocontracts" for a in cls.attributes)


def class_invariants(index: ClassIndex, cls: ast.ClassDecl, member: ast.Node | None) -> list[ast.Function]:
    """The predicates every object of `cls` keeps: with {:autocontracts} its `Valid()`; otherwise a
    parameterless instance predicate that every constructor ensures (the state any object reachable
    through the class's API is in, so the state a test built by hand would be in). Never the member
    itself, nor for a class without constructors."""
    preds = [m for m in index.members(cls) if isinstance(m, ast.Function) and not m.params and not m.static
             and m.kind in ("predicate", "predicate method") and m is not member]
    if _autocontracts(cls):
        return [p for p in preds if p.name == "Valid"]
    ctors = [m for m in cls.members if isinstance(m, ast.Method) and m.kind == "constructor"]
    if not ctors:
        return []
    out = []
    for p in preds:
        if all(any(_calls_self(conj, p.name) for cl in c.spec.ensures for conj in conjuncts(cl.expr)) for c in ctors):
            out.append(p)
    return out


def _calls_self(e: ast.Expr, name: str) -> bool:
    if not isinstance(e, ast.Call) or e.args:
        return False
    c = e.callee
    return (isinstance(c, ast.Name) and c.name == name) or (
        isinstance(c, ast.MemberSelect) and isinstance(c.obj, ast.ThisExpr) and c.name == name)


def reads_objects(e: ast.Node, roots: set[str]) -> bool:
    """Does e read the heap: `this`, or a root's field or function?"""
    for n in walk(e):
        if isinstance(n, ast.ThisExpr):
            return True
        if isinstance(n, ast.Name) and n.name in roots:
            return True
    return False


def in_pre_state(e: ast.Expr, roots: set[str], modified: bool) -> ast.Expr:
    """A precondition reads the state before the call: where the member changes objects, every maximal
    subterm reading one is wrapped in old()."""
    if not modified:
        return e

    def go(n: ast.Node) -> ast.Node:
        if isinstance(n, (ast.MemberSelect, ast.Call, ast.Index, ast.Slice)) and reads_objects(n, roots):
            return ast.Old(n)
        if isinstance(n, ast.Old):
            return n
        return map_children(n, go)

    return go(e)  # type: ignore[return-value]


def expand_unchanged(e: ast.Expr, objects: Objects) -> ast.Expr:
    """`unchanged(o)` -> `o.f == old(o.f) && ...` over o's compiled fields (all of them: a root the
    contract says unchanged of has every field among its variables)."""

    def fn(n: ast.Node) -> ast.Node | None:
        if not isinstance(n, ast.Unchanged) or n.label is not None:
            return None
        parts: list[ast.Expr] = []
        for x in n.exprs:
            root = next((r for r in objects.roots if r.expr == x), None)
            if root is None:
                parts.append(ast.BinOp("==", x, ast.Old(x)))  # an array or a field's object: its value
                continue
            for f in root.fields:
                if f.ghost:
                    continue  # what a test can compare: the compiled fields
                sel = ast.MemberSelect(x, f.name)
                parts.append(ast.BinOp("==", sel, ast.Old(sel)))
        return conj(parts)

    return rebuild(e, fn)


def unchanged_roots(exprs: list[ast.Expr]) -> list[ast.Expr]:
    """What `unchanged(...)` names in the expressions: every field of such an object is read."""
    return [x for e in exprs for n in walk(e) if isinstance(n, ast.Unchanged) for x in n.exprs]

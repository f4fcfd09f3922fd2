"""Which members get tests, and their contracts: parameters, outputs, requires and ensures.

Bodies are never read. A function's result becomes an output variable: its declared name, or a
synthetic one, in which case calls of the function on its own parameters in `ensures` are rewritten
to that variable.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr, print_type
from dspec2test.model import objects as obj
from dspec2test.model.classes import ClassIndex
from dspec2test.model.objects import Objects
from dspec2test.model.walk import called_names, conj, rebuild, substitute, walk

DEFAULT_TYPE_ARG = ast.NamedType("int")  # generic members are tested at int


@dataclass(frozen=True)
class ContractClause:
    kind: str  # "requires" | "ensures"
    expr: ast.Expr
    line: int
    text: str  # the clause's source text (printed from the AST when the parser kept none)
    invariant: bool = False  # not written on the member: a class invariant its objects keep (objects.py)
    file: str = ""  # the file it was written in (a clause inherited by refines need not share the member's)


@dataclass(frozen=True)
class Var:
    name: str
    type: ast.Type
    is_output: bool
    ghost: bool = False  # a ghost parameter or out-parameter: tests may pass it, never print or check it
    expr: ast.Expr | None = None  # how the contract names it, when not by its name (`old(this.n)`)

    @property
    def term(self) -> ast.Expr:
        return self.expr if self.expr is not None else ast.Name(self.name)


@dataclass(frozen=True)
class Contract:
    name: str  # qualified: "M.C.Find"
    short: str
    kind: str  # "method" | "function" | "constructor" | "lemma"
    member: ast.Method | ast.Function
    params: tuple[Var, ...]
    outputs: tuple[Var, ...]
    requires: tuple[ContractClause, ...]
    ensures: tuple[ContractClause, ...]
    module: tuple[str, ...]  # enclosing module path
    cls: ast.ClassDecl | None  # enclosing class or trait
    file: str
    line: int
    col: int
    synthetic_result: bool = False  # function result named by us, not in the source
    # array parameters the method modifies, when its frame holds nothing else: each then has a pre-state
    # (the test's input, `old(a)`) and a post-state (`a` in ensures); requires clauses read the pre-state;
    # so do the fields of objects it modifies (`this.n`)
    pre_state: tuple[str, ...] = ()
    objects: Objects = Objects()  # the receiver and object inputs and outputs, and their fields
    state: tuple[Var, ...] = ()  # the receiver, and the fields of object inputs and outputs (objects.py)
    hidden: tuple[Var, ...] = ()  # solver variables no scenario pins: constructor arguments and the like
    blocked: str = ""  # why no test can call it at all (a member of an abstract module)
    datatype: ast.Datatype | None = None  # the datatype an instance member is called on a value of
    # the types the type parameters of the member and of its class or datatype are tested at (T := int)
    instantiation: tuple[tuple[str, ast.Type], ...] = ()

    @property
    def type_args(self) -> tuple[ast.Type, ...]:
        """The member's own type arguments, in order: a call names them, as nothing may infer them."""
        own = {tp.name for tp in self.member.type_params}
        return tuple(t for name, t in self.instantiation if name in own)

    def instantiated(self) -> dict[str, str]:
        return {name: print_type(t) for name, t in self.instantiation}

    @property
    def diverges(self) -> int:
        """The line of the member's `decreases *`: Dafny does not prove it terminates (a caller of one must say
        it too, so the member's own spec tells); 0 where it must terminate."""
        return next((cl.span.line if cl.span else self.line for cl in self.member.spec.decreases
                     if any(isinstance(e, ast.Wildcard) for e in cl.exprs)), 0)

    @property
    def vars(self) -> tuple[Var, ...]:
        return self.params + self.state + self.outputs

    @property
    def solver_vars(self) -> tuple[Var, ...]:
        return self.vars + self.hidden

    @property
    def inputs(self) -> tuple[Var, ...]:
        """What a test sets before the call: parameters, the receiver and its fields."""
        return self.params + tuple(v for v in self.state if not v.is_output)

    @property
    def clauses(self) -> tuple[ContractClause, ...]:
        return self.requires + self.ensures

    @property
    def is_static(self) -> bool:
        return self.cls is None or self.member.static

    @property
    def is_lemma(self) -> bool:
        """A lemma: never called (it is ghost); a test checks its ensures on inputs meeting its requires."""
        return self.kind == "lemma"

    @property
    def is_constructor(self) -> bool:
        return isinstance(self.member, ast.Method) and self.member.kind == "constructor"

    @property
    def body_missing(self) -> bool:
        if self.is_lemma:
            return False  # nothing is called: a lemma without a body is an axiom, its ensures still checked
        if isinstance(self.member, ast.Method):
            return self.member.body is None
        return self.member.body is None and self.member.by_method is None


@dataclass(frozen=True)
class MemberScope:
    """Where a member sits: module path and enclosing type declaration."""

    module: tuple[str, ...]
    owner: ast.Node | None
    abstract: bool = False  # inside an abstract module: no compiled test can import it
    origin: str = ""  # the file the innermost enclosing module or type was written in


def iter_members(decls: tuple[ast.Decl, ...], scope: MemberScope = MemberScope((), None)) -> Iterator[tuple[MemberScope, ast.Decl]]:
    for d in decls:
        if isinstance(d, ast.Module):
            yield from iter_members(d.decls, MemberScope(scope.module + tuple(d.name.split(".")), None,
                                                   scope.abstract or d.abstract, d.origin or scope.origin))
        elif isinstance(d, (ast.ClassDecl, ast.Datatype, ast.Newtype, ast.TypeSynonym)):
            for m in d.members:
                yield MemberScope(scope.module, d, scope.abstract, d.origin or scope.origin), m
        else:
            yield scope, d


def qualified_name(scope: MemberScope, name: str) -> str:
    owner = [scope.owner.name] if scope.owner is not None else []  # type: ignore[attr-defined]
    return ".".join([*scope.module, *owner, name])


def _has_attr(member: ast.Node, name: str) -> bool:
    return any(a.name == name for a in getattr(member, "attributes", ()))


def is_testable(member: ast.Decl, owner: ast.Node | None = None) -> bool:
    """Compiled methods and functions, constructors of classes, and lemmas not bound to an object (their
    ensures are a property of the compiled functions they call, checked on solved inputs without a call):
    no ghosts, twostate, least/greatest, or tests."""
    if isinstance(member, ast.Method):
        if member.kind == "constructor":
            return isinstance(owner, ast.ClassDecl) and owner.kind == "class" and not member.ghost
        if member.kind == "lemma":
            return not isinstance(owner, ast.ClassDecl) or member.static
        return member.kind == "method" and not member.ghost and not _has_attr(member, "test")
    if isinstance(member, ast.Function):
        return member.kind in ("function", "predicate", "function method", "predicate method") and not member.ghost
    return False


def unproved_lemmas(program: ast.Program) -> frozenset[str]:
    """Qualified names of the lemmas Dafny takes on trust: no body, `{:axiom}`, an `assume` in the proof, or
    a call of such a lemma in it (transitively). Their ensures may be false while the program verifies,
    so a test of them could fail on verified code: they are not tested. A lemma without a body in an
    abstract module is no such lemma: it is what the modules refining it must prove (dafny-replay's
    `Domain.StepPreservesInv`), and names are qualified so its concrete proofs are not taken for it."""
    lemmas = {qualified_name(scope, m.name): (scope, m) for scope, m in iter_members(program.decls)
              if isinstance(m, ast.Method) and "lemma" in m.kind}
    trusted = {name for name, (scope, m) in lemmas.items()
               if (m.body is None and not scope.abstract) or _has_attr(m, "axiom")
               or (m.body is not None and any(isinstance(n, ast.AssertStmt) and n.kind == "assume"
                                              for n in walk(m.body)))}
    grew = True
    while grew:
        grew = False
        for name, (scope, m) in lemmas.items():
            if name not in trusted and m.body is not None and any(_calls_trusted(c, scope, trusted)
                                                                 for c in called_names(m.body)):
                trusted.add(name)
                grew = True
    return frozenset(trusted)


def _calls_trusted(called: str, scope: MemberScope, trusted: set[str]) -> bool:
    """Does a call, by the name it is written with, reach a trusted lemma? Its own module's first, then any
    lemma of that (short or qualified) name: an import the name may come through is not followed."""
    if qualified_name(scope, called) in trusted or ".".join([*scope.module, called]) in trusted or called in trusted:
        return True
    return any(t.endswith("." + called) for t in trusted)


def has_contract(member: ast.Method | ast.Function) -> bool:
    return bool(member.spec.requires or member.spec.ensures)


def select(program: ast.Program, methods: tuple[str, ...] = (),
           unverified: tuple[str, ...] | None = None, files: frozenset[str] | None = None) -> list[Contract]:
    """Contracts of the members to test, in source order.

    `methods` (qualified or short names) selects explicitly; otherwise every testable member with a
    contract or `{:testEntry}`. `unverified` further restricts to those names plus `{:testEntry}`.
    `files` (paths as the program names them) limits the choice to members declared in those files;
    None: the program's first file (the one it was read from), as a program of one file always was.
    """
    out = []
    index = ClassIndex.of(program)
    wanted = files if files is not None else frozenset({program.path})
    for scope, member in iter_members(program.decls):
        origin = getattr(member, "origin", "") or program.path
        # declared in a wanted file, or inherited (by refinement) into a module declared in one
        if origin not in wanted and (scope.origin or program.path) not in wanted:
            continue
        if not is_testable(member, scope.owner):
            continue
        assert isinstance(member, (ast.Method, ast.Function))
        qname = qualified_name(scope, member.name or CTOR_NAME)
        entry = _has_attr(member, "testEntry")
        if methods:
            if qname not in methods and (member.name or CTOR_NAME) not in methods:
                continue
        elif not (has_contract(member) or entry):
            continue
        if unverified is not None and not entry and qname not in unverified \
                and (member.name or CTOR_NAME) not in unverified:
            continue
        out.append(contract_of(program, scope, member, qname, index, program.source(origin)))
    return out


CTOR_NAME = "_ctor"  # an anonymous constructor's name, as `parse` lists it


def select_unreadable(program: ast.Program, methods: tuple[str, ...] = (),
                      unverified: tuple[str, ...] | None = None,
                      files: frozenset[str] | None = None) -> list[tuple[str, ast.Unreadable]]:
    """The declarations the parser skipped in the files `select` chooses from, with qualified names: each is
    one refusal (what it is, and whether it would be tested, cannot be known). `methods` selects by name;
    a selection of the members that fail verification has none of them."""
    if unverified is not None:
        return []
    wanted = files if files is not None else frozenset({program.path})
    out = []
    for scope, decl in iter_members(program.decls):
        if not isinstance(decl, ast.Unreadable):
            continue
        if (decl.origin or program.path) not in wanted and (scope.origin or program.path) not in wanted:
            continue
        short = decl.member_name
        qname = qualified_name(scope, short)
        if methods and qname not in methods and short not in methods:
            continue
        out.append((qname, decl))
    return out


def contract_of(program: ast.Program, scope: MemberScope, member: ast.Method | ast.Function, qname: str,
                index: ClassIndex | None = None, source: ast.Program | None = None) -> Contract:
    """`source`: the file of the program that declares the member (default: the program's first)."""
    source = source or program
    # generic members, and members of generic classes, traits and datatypes, are tested at int
    owner_params = scope.owner.type_params if isinstance(scope.owner, (ast.ClassDecl, ast.Datatype)) else ()
    tsub: dict[str, ast.Type] = {tp.name: DEFAULT_TYPE_ARG for tp in (*owner_params, *member.type_params)}
    params = tuple(Var(f.name, _inst(f.type, tsub), False, f.ghost) for f in member.params)
    synthetic = False
    if isinstance(member, ast.Method):
        kind = "method"
        # a lemma's out-parameters are ghost: no test can receive them, so its ensures over them are unchecked
        outputs = tuple(Var(f.name, _inst(f.type, tsub), True, f.ghost or "lemma" in member.kind)
                        for f in member.returns)
        ensures_exprs = [c.expr for c in member.spec.ensures]
    else:
        kind = "function"
        taken = {p.name for p in params}
        rname = member.result.name if member.result is not None and member.result.name else ""
        if not rname:
            synthetic = True
            rname = "result"
            while rname in taken:
                rname += "_"
        outputs = (Var(rname, _inst(member.result_type, tsub), True),)
        ensures_exprs = [_self_calls_to(c.expr, member, rname) if synthetic else c.expr for c in member.spec.ensures]
    if isinstance(member, ast.Method) and member.kind in ("constructor", "lemma"):
        kind = member.kind
    pre = pre_state_arrays(member)
    requires_exprs = [in_pre_state(c.expr, pre) for c in member.spec.requires]
    ensures_exprs = [_arrays_unchanged(e, member, pre) for e in ensures_exprs]
    if tsub:  # `Count<T>(s, x)` or `forall y: T ::` in a clause: T means the type it is tested at
        requires_exprs = [_types_in(e, tsub) for e in requires_exprs]
        ensures_exprs = [_types_in(e, tsub) for e in ensures_exprs]
    cls = scope.owner if isinstance(scope.owner, ast.ClassDecl) else None
    base = Contract(qname, member.name or CTOR_NAME, kind, member, params, outputs, (), (), scope.module, cls,
                    source.path, member.span.line, member.span.col, synthetic, pre,
                    instantiation=tuple(tsub.items()))
    bounded = next((tp for tp in (*owner_params, *member.type_params) if tp.bounds), None)
    if bounded is not None:
        bound = ", ".join(print_type(b) for b in bounded.bounds)
        base = replace(base, blocked=f"type parameter bounded by a trait ({bounded.name} extends {bound}): no type "
                                    f"to test it at")
    if scope.abstract:
        base = replace(base, blocked=f"member of an abstract module ({'.'.join(scope.module)}): a compiled test "
                                    f"cannot import it; its refinements are tested")
    index = index or ClassIndex.of(program)
    with_objects = _with_objects(program, index, base, requires_exprs, ensures_exprs, source)
    if with_objects is not None:
        return with_objects
    if isinstance(scope.owner, ast.Datatype) and not member.static:
        base, requires_exprs, ensures_exprs = _value_receiver(base, scope.owner, requires_exprs, ensures_exprs)
    requires = tuple(_clause(source, "requires", c, e) for c, e in zip(member.spec.requires, requires_exprs))
    ensures = tuple(_clause(source, "ensures", c, e) for c, e in zip(member.spec.ensures, ensures_exprs))
    return replace(base, requires=requires, ensures=ensures)


def _value_receiver(c: Contract, dt: ast.Datatype, requires: list[ast.Expr],
                    ensures: list[ast.Expr]) -> tuple[Contract, list[ast.Expr], list[ast.Expr]]:
    """A member of a datatype is called on a value of it, `this`: an input like a parameter, whose fields
    and sibling members the clauses name through it (`x` -> `this.x`)."""
    locals_ = {v.name for v in c.vars}
    names = {f.name for ctor in dt.ctors for f in ctor.params if f.name} | {
        name for m in dt.members if (name := getattr(m, "name", "")) and not getattr(m, "static", False)} | {
        f"{ctor.name}?" for ctor in dt.ctors}
    mapping: dict[str, ast.Expr] = {n: ast.MemberSelect(ast.ThisExpr(), n) for n in names - locals_}
    requires = [substitute(e, mapping) for e in requires]
    ensures = [substitute(e, mapping) for e in ensures]
    t = ast.NamedType(".".join([*c.module, dt.name]), tuple(DEFAULT_TYPE_ARG for _ in dt.type_params))
    return replace(c, datatype=dt, state=(Var("this", t, False, expr=ast.ThisExpr()),)), requires, ensures


def _with_objects(program: ast.Program, index: ClassIndex, c: Contract, requires_exprs: list[ast.Expr],
                  ensures_exprs: list[ast.Expr], source: ast.Program) -> Contract | None:
    """The contract of a member with objects among its inputs or outputs (None: it has none): clauses in
    their explicit-`this` form, reading the pre-state where they must, with the class invariants its
    objects keep, and the objects' variables (objects.py)."""
    member = c.member
    instance = c.cls is not None and not c.member.static
    typed = [(v.name, v.type) for v in c.params]
    if not instance and not any(index.lookup(t) is not None or obj.holds_objects(index, t)
                                for _, t in typed + [(v.name, v.type) for v in c.outputs]):
        return None
    locals_ = {v.name for v in c.vars}
    arrays = pre_state_arrays(member, with_objects=True)
    if arrays != c.pre_state:  # a frame of arrays and objects: the arrays have their pre-state too
        requires_exprs = [in_pre_state(cl.expr, arrays) for cl in member.spec.requires]

    def explicit(e: ast.Expr) -> ast.Expr:
        return obj.explicit_this(e, index, c.cls, locals_) if instance and c.cls is not None else e

    reqs = [explicit(e) for e in requires_exprs]
    enss = [explicit(e) for e in ensures_exprs]
    objects = obj.objects_of(program, index, member, c.cls, typed, [(v.name, v.type) for v in c.outputs],
                             reqs + enss, print_type)
    roots = {r.name.split(".")[0] for r in objects.roots}
    changes = any(f.modified for r in objects.roots for f in r.fields)

    def pre(e: ast.Expr) -> ast.Expr:
        return obj.in_pre_state(obj.expand_unchanged(e, objects), roots, changes)

    requires = [_clause(source, "requires", cl, pre(e)) for cl, e in zip(member.spec.requires, reqs)]
    ensures = [_clause(source, "ensures", cl, obj.expand_unchanged(e, objects))
               for cl, e in zip(member.spec.ensures, enss)]
    for root, pred in objects.invariants:
        call: ast.Expr = ast.Call(ast.MemberSelect(obj.root_expr(root), pred.name), ())
        if _mentions(reqs, call):  # the member requires it already
            continue
        r = objects.root(root)
        if r is not None and r.nullable:  # of an object, when there is one
            call = ast.BinOp("==>", ast.BinOp("!=", obj.root_expr(root), ast.NullLit()), call)
        requires.append(ContractClause("requires", pre(call), pred.span.line, print_expr(call), True))
    for root, pred in objects.ensured:
        call = ast.Call(ast.MemberSelect(obj.root_expr(root), pred.name), ())
        if not _mentions(enss, call):
            ensures.append(ContractClause("ensures", call, pred.span.line, f"{root}.{pred.name}()", True))
    state: list[Var] = []
    hidden: list[Var] = []
    for r in objects.roots:
        if r.name == "this":
            state.append(Var("this", r.type, r.output, expr=ast.ThisExpr()))
        for f in r.fields:
            sel = ast.MemberSelect(r.expr, f.name)
            state.append(Var(r.field_var(f), f.type, r.output, f.ghost, ast.Old(sel) if f.modified else sel))
        for b in r.builds:
            hidden += [Var(name, t, False) for name, t in b.args + b.drive_vars(r.name)]
    hidden = list({v.name: v for v in hidden}.values())
    return replace(c, requires=tuple(requires), ensures=tuple(ensures), pre_state=arrays + objects.pre_state,
                   objects=objects, state=tuple(state), hidden=tuple(hidden))


def member_contract(program: ast.Program, member: object) -> Contract | None:
    """The contract of a declaration of the program (None: not one of its members)."""
    for scope, m in iter_members(program.decls):
        if m is member and isinstance(m, (ast.Method, ast.Function)):
            source = program.source(m.origin) if m.origin else program
            return contract_of(program, scope, m, qualified_name(scope, m.name or CTOR_NAME), source=source)
    return None


def _mentions(exprs: list[ast.Expr], e: ast.Expr) -> bool:
    return any(n == e for x in exprs for n in walk(x))




def pre_state_name(array: str) -> str:
    """The solver's name for an array's value before the call (not a Dafny identifier, so it clashes with none)."""
    return f"old({array})"


def pre_state_arrays(member: ast.Method | ast.Function, with_objects: bool = False) -> tuple[str, ...]:
    """The array parameters a method's `modifies` names, if its frame is only those (else none: old() of
    anything else is not modelled), or `with_objects`, where objects.py models the rest of the frame."""
    if not isinstance(member, ast.Method) or not member.spec.modifies:
        return ()
    arrays = {p.name for p in member.params if is_array_type(p.type)}
    frames = [e for c in member.spec.modifies for e in c.exprs]
    names = [e.name if isinstance(e, ast.Name) else None for e in frames]
    if any(n not in arrays for n in names) and not with_objects:
        return ()
    return tuple(dict.fromkeys(n for n in names if n in arrays))


def _arrays_unchanged(e: ast.Expr, member: ast.Method | ast.Function, pre: tuple[str, ...]) -> ast.Expr:
    """`unchanged(a)` of a modified one-dimensional array: `a[..] == old(a[..])`, its elements as the
    pre-state keeps them (a test compares them with its copy of the array before the call)."""
    arrays = {p.name for p in member.params if p.name in pre and isinstance(p.type, ast.NamedType)
              and p.type.name.rstrip("?") == "array"}

    def fn(n: ast.Node) -> ast.Node | None:
        if not isinstance(n, ast.Unchanged) or n.label is not None or not all(
                isinstance(x, ast.Name) and x.name in arrays for x in n.exprs):
            return None
        return conj([ast.BinOp("==", ast.Slice(x, None, None), ast.Old(ast.Slice(x, None, None))) for x in n.exprs])

    return rebuild(e, fn) if arrays else e


def is_array_type(t: ast.Type) -> bool:
    return isinstance(t, ast.NamedType) and t.name.rstrip("?") in ("array", "array2", "array3") \
        and len(t.args) <= 1  # `array`: inferred


def in_pre_state(e: ast.Expr, arrays: tuple[str, ...]) -> ast.Expr:
    """A precondition speaks of the state before the call: its modified arrays become `old(a)`."""
    if not arrays:
        return e
    return substitute(e, {a: ast.Old(ast.Name(a)) for a in arrays})


def _clause(program: ast.Program, kind: str, c: ast.Clause, expr: ast.Expr) -> ContractClause:
    text = c.text
    if not text and program.text and c.expr.span.end > c.expr.span.start and c.origin in ("", program.path):
        text = program.text[c.expr.span.start:c.expr.span.end]
    return ContractClause(kind, expr, c.span.line or c.expr.span.line, text or print_expr(c.expr), file=c.origin)


# collection types whose element types Dafny may infer (`a: array` gets an implicit type parameter)
_ARITY = {"array": 1, "array?": 1, "array2": 1, "array2?": 1, "array3": 1, "array3?": 1, "seq": 1, "set": 1,
          "iset": 1, "multiset": 1, "map": 2, "imap": 2}


def _inst(t: ast.Type, tsub: dict[str, ast.Type]) -> ast.Type:
    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.NamedType) and not n.args and n.name in tsub:
            return tsub[n.name]
        if isinstance(n, ast.NamedType) and not n.args and n.name in _ARITY:
            return ast.NamedType(n.name, (DEFAULT_TYPE_ARG,) * _ARITY[n.name], span=n.span)
        return None

    return rebuild(t, fn)


def _types_in(e: ast.Expr, tsub: dict[str, ast.Type]) -> ast.Expr:
    """The expression with the type parameters in `tsub` replaced where it names them."""
    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.NamedType) and not n.args and n.name in tsub:
            return tsub[n.name]
        return None

    return rebuild(e, fn)


def _self_calls_to(e: ast.Expr, fn_decl: ast.Function, rname: str) -> ast.Expr:
    """`F(x, y)` (the function on its own parameters) -> the result variable."""
    pnames = tuple(p.name for p in fn_decl.params)

    def fn(n: ast.Node) -> ast.Node | None:
        if isinstance(n, ast.Call) and _callee_is(n.callee, fn_decl.name):
            if tuple(a.name if isinstance(a, ast.Name) else None for a in n.args) == pnames:
                return ast.Name(rname, span=n.span)
        return None

    return rebuild(e, fn)


def _callee_is(callee: ast.Expr, name: str) -> bool:
    if isinstance(callee, ast.Name):
        return callee.name == name
    return isinstance(callee, ast.MemberSelect) and isinstance(callee.obj, ast.ThisExpr) and callee.name == name

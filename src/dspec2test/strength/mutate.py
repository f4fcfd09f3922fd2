"""Mutants of one member's compiled code, made on the parsed AST and printed back.

Each mutant replaces one node of the body (an operator, a constant, a guard, a returned value) by a
mutated copy printed with `dafny.printer`, or deletes one statement; it is recorded as an `Edit` of the
file text at the node's span, so the rest of the member keeps its own text. Ghost code is left alone
(assertions, loop invariants, calc, lemma calls, ghost variables): changing a proof never changes what
the member computes. The operators are the usual ones:

    ROR  relational operator replacement   a < b  ->  a <= b, a != b   (== <-> !=, in <-> !in)
    AOR  arithmetic operator replacement   a + b  ->  a - b, a * b
    LOR  logical operator replacement      a && b ->  a || b
    UOD  unary operator deletion           !a     ->  a,  -a -> a
    CONST constant +/- 1, boolean flip     0      ->  1, -1;  0.5 -> 1.5, -0.5;  true -> false
    NEG  condition negation                if g   ->  if !(g)
    SDL  statement deletion                x := e;  ->  (nothing)
    RVR  returned-value replacement        r := e  ->  r := 0, r := e + 1;  a[i] := e -> a[i] := e + 1;
                                           a function's result -> its type's default
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation

from dspec2test.dafny import ast
from dspec2test.dafny.parser import iter_members
from dspec2test.dafny.printer import precedence, print_expr
from dspec2test.model.types import TypeIndex

_PRIMARY = precedence(ast.Name("x"))
_UNARY = precedence(ast.UnOp("-", ast.Name("x")))

# sufficient relational replacements (each subsumes the others for ints), plus the numeric-only ones
_ROR = {"<": ("<=", "!="), "<=": ("<", "=="), ">": (">=", "!="), ">=": (">", "=="), "==": ("!=",), "!=": ("==",),
        "in": ("!in",), "!in": ("in",)}
_ROR_NUMERIC = {"==": ("<=", ">="), "!=": ("<", ">")}
_CHAIN = {"<": ("<=",), "<=": ("<",), ">": (">=",), ">=": (">",)}  # a chain keeps its direction
_AOR = {"+": ("-",), "-": ("+",), "*": ("+", "/"), "/": ("*", "%"), "%": ("/",)}
_AOR_NUMERIC = {"+": ("*",)}
_LOR = {"&&": ("||",), "||": ("&&",)}
_ARITH = frozenset({"+", "-", "*", "/", "%"})


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] of the member's file by `text`."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Mutant:
    id: int  # 1-based within the member
    operator: str  # ROR, AOR, LOR, UOD, CONST, NEG, SDL, RVR
    line: int  # line of the changed code in the file
    edit: Edit
    before: str  # the changed code as written
    after: str  # what replaces it ("" for a deleted statement)
    # the replacement as a node, so that a renamed copy of the member can rename inside it too
    node: ast.Node | None = None
    needs: int = 0  # how tightly the replacement must bind where it stands (printer precedence; 0: anything)
    parenthesised: bool = False  # the original was written in parentheses, which its span holds

    @property
    def description(self) -> str:
        if self.operator == "SDL":
            return f"deleted `{_one_line(self.before)}`"
        return f"`{_one_line(self.before)}` -> `{_one_line(self.after)}`"


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class _Site:
    """One mutation before numbering: the node changed and its replacement."""

    operator: str
    original: ast.Node
    replacement: ast.Node | None  # None: the statement is deleted
    needs: int


class _Context:
    """What the walk over one member needs to know: its outputs and their types, the names of lemmas
    (calls of them are ghost), ghost locals, and which names hold numbers."""

    def __init__(self, member: ast.Method | ast.Function, program: ast.Program, types: TypeIndex):
        self.types = types
        self.lemmas = {m.name for _, m in iter_members(program) if isinstance(m, ast.Method) and "lemma" in m.kind}
        params = member.params + (member.returns if isinstance(member, ast.Method) else ())
        self.declared: dict[str, ast.Type] = {f.name: f.type for f in params}
        if isinstance(member, ast.Function) and member.result is not None and member.result.name:
            self.declared[member.result.name] = member.result.type
        self.outputs = {f.name: f.type for f in member.returns} if isinstance(member, ast.Method) else {}
        self.ghosts = {f.name for f in params if f.ghost}
        self.numeric_locals: set[str] = set()

    def kind(self, t: ast.Type | None) -> str:
        return self.types.kind(t) if t is not None else "other"

    def numeric(self, e: ast.Expr) -> bool:
        """Whether `e` is surely a number (a guess from its form and the declared types of names)."""
        if isinstance(e, (ast.IntLit, ast.RealLit, ast.Cardinality)):
            return True
        if isinstance(e, ast.Name):
            return e.name in self.numeric_locals or self.kind(self.declared.get(e.name)) in ("int", "real")
        if isinstance(e, ast.MemberSelect):
            return e.name.startswith("Length")
        if isinstance(e, ast.UnOp):
            return e.op == "-"
        if isinstance(e, ast.BinOp) and e.op in _ARITH:
            return self.numeric(e.left) or self.numeric(e.right)
        return False

    def declare(self, decl: ast.VarDecl) -> None:
        values = [r.expr if isinstance(r, ast.ExprRhs) else None for r in decl.rhs]
        for i, p in enumerate(decl.pats):
            if not isinstance(p, ast.PatVar):
                continue
            if decl.ghost or p.ghost:
                self.ghosts.add(p.name)
            if p.type is not None:
                self.declared[p.name] = p.type
            elif i < len(values) and values[i] is not None and self.numeric(values[i]):  # type: ignore[arg-type]
                self.numeric_locals.add(p.name)


def mutants(member: ast.Method | ast.Function, program: ast.Program, text: str,
            types: TypeIndex | None = None) -> list[Mutant]:
    """Every mutant of the member's compiled code, in source order, numbered from 1; a mutant whose
    printed replacement is the code as written, or the same change as an earlier one, is left out."""
    ctx = _Context(member, program, types or TypeIndex.of(program))
    if isinstance(member, ast.Method):
        sites = list(_block(member.body, ctx)) if member.body is not None and not member.ghost else []
    elif member.by_method is not None:
        sites = list(_block(member.by_method, ctx))
    elif member.body is not None and not member.ghost:
        sites = list(_result_values(member.body, member.result_type, ctx)) + list(_expr(member.body, ctx, 0))
    else:
        sites = []
    out: list[Mutant] = []
    seen: set[tuple[int, int, str]] = set()
    for site in sorted(sites, key=lambda s: (s.original.span.start, -s.original.span.end)):
        edit = _edit(site, text)
        key = (edit.start, edit.end, edit.text)
        before = text[edit.start:edit.end]
        if key in seen or edit.text == before or site.original.span.end <= site.original.span.start:
            continue
        seen.add(key)
        out.append(Mutant(len(out) + 1, site.operator, site.original.span.line, edit, before, edit.text,
                          site.replacement, site.needs, text[edit.start] == "("))
    return out


def replacement_text(node: ast.Node | None, needs: int, parenthesised: bool = False) -> str:
    """How a replacement node is written in place of the original: parenthesised when it binds less
    tightly than its place needs (the original's span may have held the parentheses it needed:
    `(x + 1) * 2`), or when the original was written in parentheses (`while(i < n)`, `return(x)`: without
    them the keyword would run into the replacement)."""
    if node is None:
        return ""
    printed = print_expr(node)  # type: ignore[arg-type]
    wrap = (needs and precedence(node) < needs) or (parenthesised and not printed.startswith("("))  # type: ignore
    return f"({printed})" if wrap else printed


def _edit(site: _Site, text: str) -> Edit:
    span = site.original.span
    return Edit(span.start, span.end, replacement_text(site.replacement, site.needs, text[span.start] == "("))


# ---------------------------------------------------------------- statements


def _block(block: ast.Block | None, ctx: _Context) -> Iterator[_Site]:
    if block is None:
        return
    for s in block.stmts:
        yield from _stmt(s, ctx)


def _stmts(stmts: tuple[ast.Stmt, ...], ctx: _Context) -> Iterator[_Site]:
    for s in stmts:
        yield from _stmt(s, ctx)


def _stmt(s: ast.Stmt, ctx: _Context) -> Iterator[_Site]:
    if isinstance(s, ast.Block):
        yield from _block(s, ctx)
    elif isinstance(s, ast.VarDecl):
        ctx.declare(s)
        if s.ghost or any(isinstance(p, ast.PatVar) and p.ghost for p in s.pats) or s.op != ":=":
            return
        yield from _rhs(s.rhs, ctx)
    elif isinstance(s, ast.Assign):
        yield from _assign(s, ctx)
    elif isinstance(s, ast.If):
        if s.guard is not None and not s.binding:
            yield _Site("NEG", s.guard, _negated(s.guard), 0)
            yield from _expr(s.guard, ctx, 0)
        yield from _block(s.then, ctx)
        if s.els is not None:
            yield from _stmt(s.els, ctx)
    elif isinstance(s, ast.AltIf):
        for alt in s.alts:
            yield from _expr(alt.guard, ctx, 0)
            yield from _stmts(alt.body, ctx)
    elif isinstance(s, ast.While):
        if s.guard is not None:
            yield _Site("NEG", s.guard, _negated(s.guard), 0)
            yield from _expr(s.guard, ctx, 0)
        yield from _block(s.body, ctx)
        for alt in s.alts:
            yield from _expr(alt.guard, ctx, 0)
            yield from _stmts(alt.body, ctx)
    elif isinstance(s, ast.For):
        yield from _expr(s.lo, ctx, 0)
        if s.hi is not None:
            yield from _expr(s.hi, ctx, 0)
        yield from _block(s.body, ctx)
    elif isinstance(s, ast.MatchStmt):
        for case in s.cases:
            if isinstance(case.body, tuple):
                yield from _stmts(case.body, ctx)
    elif isinstance(s, ast.Return):
        yield from _return(s, ctx)
    elif isinstance(s, ast.Labeled):
        yield from _stmt(s.stmt, ctx)
    elif isinstance(s, ast.OpaqueBlock):
        yield from _block(s.body, ctx)
    # assert/assume/expect, print, calc, forall, modify, reveal, break, yield: not mutated


def _assign(s: ast.Assign, ctx: _Context) -> Iterator[_Site]:
    if s.op not in (":=", None) or any(_ghost_target(e, ctx) for e in s.lhs):
        return
    if not s.lhs:  # a call statement: deleted unless it calls a lemma (ghost: deleting changes no value)
        call = s.rhs[0].expr if len(s.rhs) == 1 and isinstance(s.rhs[0], ast.ExprRhs) else None
        if isinstance(call, ast.Call) and _callee_name(call) not in ctx.lemmas:
            yield _Site("SDL", s, None, 0)
            yield from _expr(call, ctx, 0)
        return
    yield _Site("SDL", s, None, 0)
    for target, rhs in zip(s.lhs, s.rhs):
        if isinstance(target, ast.Name) and target.name in ctx.outputs and isinstance(rhs, ast.ExprRhs):
            for value in _replacements(rhs.expr, ctx.outputs[target.name], ctx):
                if value != rhs.expr:
                    yield _Site("RVR", rhs.expr, value, 0)
        elif isinstance(target, ast.Index) and isinstance(rhs, ast.ExprRhs) and ctx.numeric(rhs.expr):
            # an element the member leaves in an array: the value one off, as for a returned number
            for value in (ast.BinOp("+", rhs.expr, ast.IntLit(1)), ast.BinOp("-", rhs.expr, ast.IntLit(1))):
                yield _Site("RVR", rhs.expr, value, 0)
    yield from _rhs(s.rhs, ctx)


def _return(s: ast.Return, ctx: _Context) -> Iterator[_Site]:
    outs = list(ctx.outputs.values())
    for i, rhs in enumerate(s.rhs):
        if isinstance(rhs, ast.ExprRhs) and i < len(outs):
            for value in _replacements(rhs.expr, outs[i], ctx):
                if value != rhs.expr:
                    yield _Site("RVR", rhs.expr, value, 0)
    yield from _rhs(s.rhs, ctx)


def _rhs(rhs: tuple[ast.Rhs, ...], ctx: _Context) -> Iterator[_Site]:
    for r in rhs:
        if isinstance(r, ast.ExprRhs):
            yield from _expr(r.expr, ctx, 0)
        elif isinstance(r, ast.NewArray):
            for d in r.dims:
                yield from _expr(d, ctx, 0)


def _ghost_target(e: ast.Expr, ctx: _Context) -> bool:
    return isinstance(e, ast.Name) and e.name in ctx.ghosts


def _callee_name(call: ast.Call) -> str:
    callee = call.callee
    return callee.name if isinstance(callee, (ast.Name, ast.MemberSelect)) else ""


def _negated(guard: ast.Expr) -> ast.Expr:
    return ast.UnOp("!", guard)


# ---------------------------------------------------------------- expressions


def _expr(e: ast.Expr, ctx: _Context, needs: int) -> Iterator[_Site]:
    """The mutations of `e` and of every compiled expression inside it."""
    if isinstance(e, ast.BinOp):
        yield from _binop(e, ctx, needs)
    elif isinstance(e, ast.Chain):
        for k, op in enumerate(e.ops):
            for alt in _CHAIN.get(op, ()):
                ops = e.ops[:k] + (alt,) + e.ops[k + 1:]
                yield _Site("ROR", e, replace(e, ops=ops), needs)
    elif isinstance(e, ast.UnOp):
        yield _Site("UOD", e, e.operand, needs)
    elif isinstance(e, ast.IntLit):
        for value in (e.value + 1, e.value - 1):
            yield _Site("CONST", e, ast.IntLit(value) if value >= 0 else ast.UnOp("-", ast.IntLit(-value)), needs)
    elif isinstance(e, ast.RealLit):
        for real in _reals_one_off(e.text):
            yield _Site("CONST", e, real, needs)
    elif isinstance(e, ast.BoolLit):
        yield _Site("CONST", e, ast.BoolLit(not e.value), needs)
    elif isinstance(e, ast.IfThenElse) and not e.binding:
        yield _Site("NEG", e.cond, _negated(e.cond), 0)
    elif isinstance(e, ast.StmtExpr):  # `assert P; e`: only e computes
        yield from _expr(e.expr, ctx, needs)
        return
    elif isinstance(e, (ast.Old, ast.Fresh, ast.Allocated, ast.Unchanged)):
        return
    if isinstance(e, ast.Call) and _callee_name(e) in ctx.lemmas:
        return
    for child, child_needs in _expr_children(e):
        yield from _expr(child, ctx, child_needs)


def _reals_one_off(text: str) -> list[ast.Expr]:
    """A real literal one more and one less (`0.5` -> `1.5`, `-0.5`), written as Dafny writes reals."""
    try:
        value = Decimal(text.replace("_", ""))
    except InvalidOperation:
        return []
    out: list[ast.Expr] = []
    for v in (value + 1, value - 1):
        digits = format(abs(v), "f")
        lit = ast.RealLit(digits if "." in digits else digits + ".0")
        out.append(lit if v >= 0 else ast.UnOp("-", lit))
    return out


def _binop(e: ast.BinOp, ctx: _Context, needs: int) -> Iterator[_Site]:
    numeric = ctx.numeric(e.left) or ctx.numeric(e.right)
    if e.op in _ROR:
        for alt in _ROR[e.op] + (_ROR_NUMERIC.get(e.op, ()) if numeric else ()):
            yield _Site("ROR", e, replace(e, op=alt), needs)
    elif e.op in _AOR:
        for alt in _AOR[e.op] + (_AOR_NUMERIC.get(e.op, ()) if numeric else ()):
            if alt in ("*", "/", "%") and not numeric:
                continue
            yield _Site("AOR", e, replace(e, op=alt), needs)
    elif e.op in _LOR:
        for alt in _LOR[e.op]:
            yield _Site("LOR", e, replace(e, op=alt), needs)


# parents whose children are operands (a replacement binding less tightly needs parentheses), and the
# suffix forms whose first part is one; elsewhere a child is delimited (an argument, an index, a display)
_OPERAND_PARENTS = (ast.BinOp, ast.Chain, ast.TypeTest, ast.Cast)
_SUFFIX_BASE = {ast.MemberSelect: "obj", ast.Index: "seq", ast.Slice: "seq", ast.Update: "seq",
                ast.DatatypeUpdate: "obj", ast.Call: "callee", ast.FrameField: "obj"}


def _expr_children(e: ast.Expr) -> Iterator[tuple[ast.Expr, int]]:
    """Sub-expressions that compute a value (not types, patterns, bound variables or attributes), each
    with how tightly a replacement must bind there."""
    base = _SUFFIX_BASE.get(type(e))
    for key, node in _direct_children(e):
        if isinstance(node, ast.MatchCase):
            if not isinstance(node.body, tuple):
                yield node.body, 0
        elif isinstance(node, _EXPRS):
            needs = _PRIMARY if key == base or isinstance(e, ast.UnOp) else _UNARY if isinstance(e, _OPERAND_PARENTS) else 0
            yield node, needs  # type: ignore[misc]


def _direct_children(e: ast.Node) -> Iterator[tuple[str, ast.Node]]:
    for key, value in vars(e).items():
        if key in ast.NOT_CHILDREN or key == "attributes":
            continue
        if isinstance(value, ast.Node):
            yield key, value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, ast.Node):
                    yield key, item
                elif isinstance(item, tuple):  # map display items, datatype updates
                    yield from ((key, x) for x in item if isinstance(x, ast.Node))


_EXPRS = tuple(t for t in ast.Expr.__args__)  # type: ignore[attr-defined]


# ---------------------------------------------------------------- returned values


def _result_values(body: ast.Expr, result: ast.Type, ctx: _Context) -> Iterator[_Site]:
    """A function's returned values (the body, or the branches of its conditionals, matches and lets),
    each replaced by a default of the result type."""
    for leaf in _leaves(body):
        for value in _replacements(leaf, result, ctx):
            if value != leaf:
                yield _Site("RVR", leaf, value, 0)


def _leaves(e: ast.Expr) -> Iterator[ast.Expr]:
    if isinstance(e, ast.IfThenElse):
        yield from _leaves(e.then)
        yield from _leaves(e.els)
    elif isinstance(e, ast.MatchExpr):
        for case in e.cases:
            if not isinstance(case.body, tuple):
                yield from _leaves(case.body)
    elif isinstance(e, ast.Let):
        yield from _leaves(e.body)
    elif isinstance(e, ast.StmtExpr):
        yield from _leaves(e.expr)
    else:
        yield e


def _replacements(e: ast.Expr, t: ast.Type, ctx: _Context) -> tuple[ast.Expr, ...]:
    """What a returned value `e` of type `t` can be replaced with: a plain value of the type, and for a
    number the value one off (`r := a` -> `r := a + 1`: what a contract of bounds alone lets through)."""
    if ctx.kind(t) == "int" and not isinstance(e, ast.IntLit):
        return (ast.IntLit(0), ast.BinOp("+", e, ast.IntLit(1)), ast.BinOp("-", e, ast.IntLit(1)))
    return _defaults(t, ctx)


def _defaults(t: ast.Type, ctx: _Context) -> tuple[ast.Expr, ...]:
    """Plain values of a type that a returned value can be replaced with (none for types without one)."""
    kind = ctx.kind(t)
    base = ctx.types.base(t)
    name = base.name if isinstance(base, ast.NamedType) else ""
    if kind == "int":
        return (ast.IntLit(0), ast.IntLit(1))
    if kind == "real":
        return (ast.RealLit("0.0"),)
    if kind == "bool":
        return (ast.BoolLit(True), ast.BoolLit(False))
    if kind == "seq":
        empty: ast.Expr = ast.StringLit("", '""') if name == "string" else ast.SeqDisplay(())
        return (empty,)
    if kind == "set":
        return (ast.SetDisplay(()),)
    if kind == "multiset":
        return (ast.MultisetDisplay(()),)
    if kind == "map":
        return (ast.MapDisplay(()),)
    return ()

"""Parse tree (from dafny.lark) to the AST of `dafny.ast`, with a Span on every node.

One method per grammar rule or alias; each receives the rule's meta (positions) and its children
(named terminals as lark Tokens, sub-rules already transformed). Helpers below build BinOp folds and
pick typed children out of optional parts.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from lark import Token, Transformer, v_args
from lark.tree import Meta

from dspec2test.dafny import ast as A
from dspec2test.errors import DspecError

_TYPES = (A.NamedType, A.TupleType, A.ArrowType)
_CHAIN_OPS = {"<", "<=", ">", ">=", "==", "!="}
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


class TransformError(DspecError):
    """A tree the grammar accepts but Dafny does not (e.g. a typed name used as an expression)."""


def span(meta: Meta) -> A.Span:
    if getattr(meta, "empty", True):
        return A.NO_SPAN
    return A.Span(meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos)


def tok_span(tok: Token) -> A.Span:
    return A.Span(tok.line, tok.column, tok.end_line, tok.end_column, tok.start_pos, tok.end_pos)


def join(a: A.Span, b: A.Span) -> A.Span:
    return A.Span(a.line, a.col, b.end_line, b.end_col, a.start, b.end)


def _decode_escapes(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt == "u":
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:  # \U{1F600}
            close = body.index("}", i)
            out.append(chr(int(body[i + 3 : close].replace("_", ""), 16)))
            i = close + 1
    return "".join(out)


def _strs(children: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(str(c) for c in children if isinstance(c, Token))


def _of(children: tuple[Any, ...], cls: type | tuple[type, ...]) -> list[Any]:
    return [c for c in children if isinstance(c, cls)]


def _first(children: tuple[Any, ...], cls: type | tuple[type, ...]) -> Any:
    for c in children:
        if isinstance(c, cls):
            return c
    return None


def _exprs(children: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(c for c in children if c is not None and not isinstance(c, (Token, list, tuple)))


class _Wrap:
    """Intermediate values that are not AST nodes (lists, keyword words, optional parts)."""

    __slots__ = ("kind", "value", "span")

    def __init__(self, kind: str, value: Any, sp: A.Span = A.NO_SPAN):
        self.kind, self.value, self.span = kind, value, sp

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"_Wrap({self.kind!r}, {self.value!r})"


def _wraps(children: tuple[Any, ...], kind: str) -> list[_Wrap]:
    return [c for c in children if isinstance(c, _Wrap) and c.kind == kind]


def _wrap_value(children: tuple[Any, ...], kind: str, default: Any = None) -> Any:
    for c in children:
        if isinstance(c, _Wrap) and c.kind == kind:
            return c.value
    return default


@v_args(inline=True, meta=True)
class ToAst(Transformer):
    """Builds `ast` nodes; `text` is the source so clause text can be sliced exactly as written."""

    def __init__(self, text: str, path: str):
        super().__init__(visit_tokens=False)
        self.text = text
        self.path = path

    # ------------------------------------------------------------ program and declarations

    def start(self, meta, *children):
        includes = tuple(_of(children, A.Include))
        decls = tuple(d for c in children if not isinstance(c, A.Include) for d in _flat(c))
        return A.Program(self.path, includes, decls, text=self.text, span=span(meta))

    def include(self, meta, s):
        return A.Include(_decode_escapes(s[1:-1]), span=span(meta))

    def modifier(self, meta, tok):
        return _Wrap("mod", str(tok))

    def decl(self, meta, *children):
        mods = {c.value for c in children if isinstance(c, _Wrap) and c.kind == "mod"}
        body = children[-1]
        sp = span(meta)
        return _apply_mods(body, mods, sp)

    def attrs(self, meta, *items):
        return _Wrap("attrs", tuple(items))

    def attr(self, meta, name, *args):
        return A.Attribute(str(name), _exprs(args), span=span(meta))

    def dotted(self, meta, *names):
        return _Wrap("dotted", ".".join(str(n) for n in names), span(meta))

    def module_decl(self, meta, attrs, name, *rest):
        refines = rest[0].value if rest and isinstance(rest[0], _Wrap) and rest[0].kind == "dotted" else None
        decls = tuple(d for c in rest if not isinstance(c, _Wrap) for d in _flat(c))
        return A.Module(name.value, decls, refines=refines, attributes=attrs.value, span=span(meta))

    def import_decl(self, meta, *children):
        imp = children[-1]
        opened = any(isinstance(c, Token) and c.type == "OPENED" for c in children)
        return A.Import(imp.target, imp.alias, opened, imp.abstract, imp.exports, span=span(meta))

    def import_plain(self, meta, target, sel=None):
        return A.Import(target.value, exports=sel or ())

    def import_alias(self, meta, alias, target, sel=None):
        return A.Import(target.value, alias=str(alias), exports=sel or ())

    def import_abstract(self, meta, alias, target):
        return A.Import(target.value, alias=str(alias), abstract=True)

    def export_sel(self, meta, *names):
        return _strs(names)

    def export_decl(self, meta, *children):
        name = str(children[0]) if children and isinstance(children[0], Token) else None
        provides, reveals, extends = [], [], []
        for c in children:
            if isinstance(c, _Wrap):
                {"provides": provides, "reveals": reveals, "extends": extends}[c.kind].extend(c.value)
        return A.Export(name, tuple(provides), tuple(reveals), tuple(extends), span=span(meta))

    def export_extends(self, meta, *names):
        return _Wrap("extends", _strs(names))

    def export_provides(self, meta, names):
        return _Wrap("provides", names)

    def export_reveals(self, meta, names):
        return _Wrap("reveals", names)

    def export_names(self, meta, *items):
        return tuple("*" if isinstance(i, Token) else i.value for i in items)

    def class_kw(self, meta, tok):
        return str(tok)

    def extends(self, meta, *types):
        return _Wrap("extends", tuple(types))

    def class_decl(self, meta, kind, attrs, name, tparams, extends, *members):
        return A.ClassDecl(
            kind, str(name), _members(members), type_params=tparams.value, extends=extends.value,
            attributes=attrs.value, span=span(meta),
        )

    def datatype_kw(self, meta, tok):
        return str(tok)

    def datatype_decl(self, meta, kind, attrs, name, tparams, extends, *rest):
        ctors = tuple(_of(rest, A.Ctor))
        members = _wrap_value(rest, "members", ())
        return A.Datatype(
            str(name), ctors, type_params=tparams.value, members=members, co=kind == "codatatype",
            attributes=attrs.value, extends=extends.value, span=span(meta),
        )

    def ctor(self, meta, attrs, name, *formals):
        return A.Ctor(str(name), tuple(f for f in formals if f is not None), attributes=attrs.value, span=span(meta))

    def ctor_formal_named(self, meta, *children):
        ghost = any(isinstance(c, Token) and c.type == "GHOST" for c in children)
        return A.Formal(str(children[-2]), children[-1], ghost=ghost, span=span(meta))

    def ctor_formal_anon(self, meta, *children):
        ghost = any(isinstance(c, Token) and c.type == "GHOST" for c in children)
        return A.Formal("", children[-1], ghost=ghost, span=span(meta))

    def members(self, meta, *decls):
        return _Wrap("members", _members(decls))

    def type_chars(self, meta, *chars):
        return _Wrap("chars", tuple(chars))

    def type_char(self, meta, *toks):
        return "".join(str(t) for t in toks)

    def type_decl(self, meta, attrs, name, tparams, *rest):
        chars = _wrap_value(rest, "chars", ())
        members = _wrap_value(rest, "members", ())
        rhs = next((c for c in rest if isinstance(c, _Wrap) and c.kind in ("synonym", "subset")), None)
        sp = span(meta)
        if rhs is not None and rhs.kind == "subset":
            var, base, constraint, (wkind, witness) = rhs.value
            return A.SubsetType(
                str(name), var, base or A.NamedType("int"), constraint, witness, type_params=tparams.value,
                attributes=attrs.value, witness_kind=wkind, span=sp,
            )
        return A.TypeSynonym(
            str(name), rhs.value if rhs else None, type_params=tparams.value, attributes=attrs.value,
            characteristics=chars, members=members, span=sp,
        )

    def synonym_rhs(self, meta, t):
        return _Wrap("synonym", t)

    def subset_rhs(self, meta, var, *rest):
        base = _first(rest, _TYPES)
        exprs = [c for c in rest if not isinstance(c, (_Wrap,) + _TYPES) and c is not None]
        witness = _wrap_value(rest, "witness", ("", None))
        return _Wrap("subset", (str(var), base, exprs[0], witness))

    def newtype_decl(self, meta, attrs, name, tparams, rhs, members):
        sp = span(meta)
        if rhs.kind == "subset":
            var, base, constraint, (wkind, witness) = rhs.value
            return A.Newtype(
                str(name), var, base or A.NamedType("int"), constraint, witness, attributes=attrs.value,
                members=members.value, witness_kind=wkind, span=sp,
            )
        return A.Newtype(str(name), None, rhs.value, None, attributes=attrs.value, members=members.value, span=sp)

    def witness_plain(self, meta, e):
        return _Wrap("witness", ("", e))

    def witness_ghost(self, meta, _tok, e):
        return _Wrap("witness", ("ghost", e))

    def witness_star(self, meta, _tok):
        return _Wrap("witness", ("*", None))

    def field_decl(self, meta, attrs, *groups):
        named = [item for g in groups if g is not None for item in g.value]
        if len(named) == 1:  # the usual `var x: T`: the field's span is the whole declaration
            named = [(named[0][0], named[0][1], span(meta))]
        return _Wrap("many", tuple(A.Field(n, t, attributes=attrs.value, span=sp) for n, t, sp in named))

    def field_names(self, meta, name, typ):
        return _Wrap("fields", ((str(name), typ, span(meta)),))

    def const_decl(self, meta, attrs, name, *rest):
        typ = _first(rest, _TYPES)
        value = next((c for c in rest if c is not None and not isinstance(c, _TYPES + (_Wrap,))), None)
        return A.Const(str(name), typ, value, attributes=attrs.value, span=span(meta))

    def opt_name(self, meta, name=None):
        return _Wrap("name", str(name) if name is not None else "")

    def tparams(self, meta, tp=None):
        return _Wrap("tparams", tp or ())

    def type_params(self, meta, *params):
        return tuple(params)

    def variance(self, meta, tok):
        return _Wrap("variance", str(tok))

    def type_param(self, meta, *children):
        name = next(str(c) for c in children if isinstance(c, Token))
        return A.TypeParam(
            name, _wrap_value(children, "variance", ""), _wrap_value(children, "chars", ()),
            tuple(_of(children, _TYPES)), span=span(meta),
        )

    def specs(self, meta, *clauses):
        return _Wrap("specs", tuple(clauses))

    def opt_block(self, meta, block=None):
        return _Wrap("block", block)

    def method_kw(self, meta, *toks):
        return " ".join(str(t) for t in toks)

    def returns(self, meta, formals=None):
        return _Wrap("returns", formals.value if formals is not None else ())

    def formals(self, meta, *fs):
        return _Wrap("formals", tuple(f for f in fs if f is not None))

    def formal_mod(self, meta, tok):
        return _Wrap("mod", str(tok))

    def formal(self, meta, *children):
        mods = {c.value for c in _wraps(children, "mod")}
        name = next(str(c) for c in children if isinstance(c, Token))
        typ = _first(children, _TYPES)
        default = next((c for c in children if c is not None and not isinstance(c, (Token, _Wrap) + _TYPES)), None)
        return A.Formal(
            name, typ, ghost="ghost" in mods, default=default, nameonly="nameonly" in mods,
            older="older" in mods, span=span(meta),
        )

    def method_decl(self, meta, kind, attrs, name, tparams, formals, returns, specs, block):
        kind = {"inductive lemma": "least lemma", "colemma": "greatest lemma"}.get(kind, kind)
        return A.Method(
            kind, name.value, formals.value, returns.value, _spec(specs.value), block.value,
            type_params=tparams.value, attributes=attrs.value, ghost=kind != "method" and kind != "constructor",
            span=span(meta),
        )

    def function_kw(self, meta, *toks):
        return " ".join(str(t) for t in toks)

    def opt_result(self, meta, result=None):
        return _Wrap("result", result)

    def result_anon(self, meta, t):
        return A.Formal("", t, span=span(meta))

    def result_named(self, meta, name, t):
        return A.Formal(str(name), t, span=span(meta))

    def opt_fbody(self, meta, body=None):
        return _Wrap("fbody", body.value if body is not None else (None, None))

    def function_body(self, meta, expr, by_method=None):
        return _Wrap("fbody", (expr, by_method))

    def function_decl(self, meta, kind, attrs, name, tparams, formals, result, specs, body):
        expr, by_method = body.value
        # Dafny 4 reading: a function is compiled unless declared ghost (Dafny 3's `function method` = function).
        base = kind.removesuffix(" method")
        base = {"inductive predicate": "least predicate", "copredicate": "greatest predicate"}.get(base, base)
        return A.Function(
            base, str(name), formals.value, result.value, _spec(specs.value), expr, by_method,
            type_params=tparams.value, attributes=attrs.value, span=span(meta),
        )

    def iterator_decl(self, meta, attrs, name, *rest):
        return A.Iterator(str(name), span=span(meta))

    # ------------------------------------------------------------ specifications

    def spec_kw(self, meta, tok):
        return str(tok)

    loop_kw = spec_kw

    def semi(self, meta, *_):
        return None

    def spec_clause(self, meta, *children):
        free = isinstance(children[0], Token) and children[0].type == "FREE"
        kind, attrs, body = [c for c in children if not (isinstance(c, Token) and c.type == "FREE")][:3]
        label, exprs, sp = body.value
        text = self.text[sp.start : sp.end]
        return A.Clause(kind, exprs, label, attrs.value, text, free, span=span(meta))

    loop_spec = spec_clause

    def labeled_body(self, meta, label, expr):
        return _Wrap("body", (str(label), (expr,), expr.span))

    def plain_body(self, meta, *exprs):
        return _Wrap("body", (None, tuple(exprs), span(meta)))

    def frame_expr(self, meta, e):
        if isinstance(e, Token):
            return A.Wildcard(span=span(meta))
        return e

    def frame_field(self, meta, *children):
        obj = children[0] if len(children) == 2 else A.ThisExpr()
        return A.FrameField(obj, str(children[-1]), span=span(meta))

    # ------------------------------------------------------------ types

    def arrow_type(self, meta, left, arrow, result):
        params = left.elems if isinstance(left, A.TupleType) else (left,)
        return A.ArrowType(params, result, str(arrow), span=span(meta))

    def type_seg(self, meta, name, targs=None):
        return (str(name), targs or ())

    def named_type(self, meta, *segs):
        name = ".".join(s[0] for s in segs)
        args = segs[-1][1]
        return A.NamedType(name, args, span=span(meta))

    def generic_args(self, meta, *types):
        return tuple(t for t in types if t is not None)

    def tuple_type(self, meta, *types):
        elems = tuple(t for t in types if t is not None)
        if len(elems) == 1:
            return elems[0]
        return A.TupleType(elems, span=span(meta))

    # ------------------------------------------------------------ statements

    def block(self, meta, *stmts):
        return A.Block(_stmts(stmts), span=span(meta))

    def var_name(self, meta, name, typ=None):
        return A.PatVar(str(name), typ, span=span(meta))

    def init_assign(self, meta, *rhs):
        return _Wrap("init", (":=", tuple(rhs), None))

    def init_fail(self, meta, *rhs):
        return _Wrap("init", (":-", tuple(rhs), None))

    def init_such_that(self, meta, expr):
        return _Wrap("init", (":|", (), expr))

    def var_stmt(self, meta, *children):
        ghost = isinstance(children[0], Token) and children[0].type == "GHOST"
        attrs = _wrap_value(children, "attrs", ())
        pats = tuple(c for c in children if isinstance(c, (A.PatVar, A.PatCtor, A.PatTuple, A.PatWild)))
        op, rhs, such = _wrap_value(children, "init", (None, (), None))
        return A.VarDecl(pats, rhs, op, such, ghost, attrs, span=span(meta))

    def _lhs_rhs(self, children):
        lhs = tuple(c for c in children if not isinstance(c, _RHS))
        rhs = tuple(c for c in children if isinstance(c, _RHS))
        return lhs, rhs

    def assign(self, meta, *children):
        lhs, rhs = self._lhs_rhs(children)
        return A.Assign(lhs, rhs, ":=", span=span(meta))

    def assign_fail(self, meta, *children):
        lhs, rhs = self._lhs_rhs(children)
        return A.Assign(lhs, rhs, ":-", span=span(meta))

    def assign_fail_nolhs(self, meta, *rhs):
        return A.Assign((), tuple(rhs), ":-", span=span(meta))

    def assign_such_that(self, meta, *children):
        return A.Assign(tuple(children[:-1]), (), ":|", children[-1], span=span(meta))

    def call_stmt(self, meta, expr):
        return A.Assign((), (A.ExprRhs(expr, span=expr.span),), None, span=span(meta))

    def rhs_expr(self, meta, expr, attrs):
        return A.ExprRhs(expr, attrs.value, span=span(meta))

    def rhs_new_array(self, meta, typ, *rest):
        *dims, init = rest
        return A.NewArray(typ, tuple(d for d in dims if d is not None), init, span=span(meta))

    def rhs_new_array_sized_elems(self, meta, typ, size, *elems):
        return A.NewArray(typ, (size,), None, tuple(e for e in elems if e is not None), span=span(meta))

    def rhs_new_array_elems(self, meta, typ, *elems):
        return A.NewArray(typ, (), None, tuple(e for e in elems if e is not None), span=span(meta))

    def rhs_new_object(self, meta, typ, args=None):
        ctor = None
        if args is not None and "." in typ.name and not typ.args:
            head, _, ctor = typ.name.rpartition(".")
            typ = A.NamedType(head, span=typ.span)
        call_args = tuple(a for a, _ in args.value) if args is not None else None
        return A.NewObject(typ, ctor, call_args, span=span(meta))

    def rhs_havoc(self, meta, _tok):
        return A.HavocRhs(span=span(meta))

    def if_stmt(self, meta, attrs, guard, then, els=None):
        binding = ()
        if isinstance(guard, _Wrap):
            binding, guard = guard.value
        return A.If(guard, then, els, binding, span=span(meta))

    def guard_star(self, meta, _tok):
        return None

    def guard_binding(self, meta, qvars, expr):
        return _Wrap("binding", (qvars, expr))

    def alt_if_stmt(self, meta, attrs, *alts):
        return A.AltIf(tuple(alts), span=span(meta))

    def guarded_alt(self, meta, guard, *stmts):
        return A.GuardedAlt(guard, _stmts(stmts), span=span(meta))

    def loop_specs(self, meta, *clauses):
        return _Wrap("specs", tuple(clauses))

    def while_stmt(self, meta, attrs, guard, specs, body):
        return A.While(guard, specs.value, body.value, span=span(meta))

    def alt_while_stmt(self, meta, attrs, specs, *alts):
        return A.While(None, specs.value, None, tuple(alts), span=span(meta))

    def for_dir(self, meta, tok):
        return _Wrap("dir", str(tok))

    def for_star(self, meta, _tok):
        return None

    def for_stmt(self, meta, name, *rest):
        typ = _first(rest, _TYPES)
        rest = [c for c in rest if not isinstance(c, _TYPES)]
        lo, direction, hi, specs, body = rest
        return A.For(
            A.BoundVar(str(name), typ, span=tok_span(name)), lo, hi, direction.value == "downto", specs.value,
            body.value, span=span(meta),
        )

    def match_stmt(self, meta, scrutinee, *cases):
        return A.MatchStmt(scrutinee, tuple(cases), span=span(meta))

    def stmt_case(self, meta, attrs, pattern, *stmts):
        return A.MatchCase(pattern, _stmts(stmts), attrs.value, span=span(meta))

    def return_stmt(self, meta, *rhs):
        return A.Return(tuple(r for r in rhs if r is not None), span=span(meta))

    def yield_stmt(self, meta, *rhs):
        return A.Yield(tuple(r for r in rhs if r is not None), span=span(meta))

    def assert_kw(self, meta, tok):
        return str(tok)

    def assert_stmt(self, meta, kind, attrs, *rest):
        label = str(rest[0]) if isinstance(rest[0], Token) else None
        exprs = [c for c in rest if not isinstance(c, (Token, A.Block))]
        by = _first(rest, A.Block)
        return A.AssertStmt(kind, exprs[0], label, by, attributes=attrs.value, span=span(meta))

    def expect_stmt(self, meta, attrs, expr, message=None):
        return A.AssertStmt("expect", expr, message=message, attributes=attrs.value, span=span(meta))

    def print_stmt(self, meta, *args):
        return A.Print(tuple(args), span=span(meta))

    def calc_op(self, meta, *toks):
        parts = [c for c in toks if isinstance(c, Token)]
        return _Wrap("calc_op", "".join(str(t) for t in parts))

    def calc_line(self, meta, expr):
        return _Wrap("calc_line", expr, span(meta))

    def calc_stmt(self, meta, attrs, *elems):
        op = None
        if elems and isinstance(elems[0], _Wrap) and elems[0].kind == "calc_op":
            op, elems = elems[0].value, elems[1:]
        steps: list[A.CalcStep] = []
        pending_op: str | None = None
        hints: list[Any] = []
        for e in elems:
            if isinstance(e, _Wrap) and e.kind == "calc_op":
                pending_op = e.value
            elif isinstance(e, _Wrap) and e.kind == "calc_line":
                steps.append(A.CalcStep(e.value, pending_op, tuple(hints), span=e.span))
                pending_op, hints = None, []
            else:
                hints.append(e)
        return A.Calc(op, tuple(steps), span=span(meta))

    def forall_ens(self, meta, *children):
        free = isinstance(children[0], Token) and children[0].type == "FREE"
        rest = [c for c in children if not (isinstance(c, Token) and c.type == "FREE")]
        attrs, expr = rest[0], rest[1]
        return A.Clause("ensures", (expr,), None, attrs.value, self.text[expr.span.start : expr.span.end], free,
                        span=span(meta))

    def forall_stmt(self, meta, attrs, qvars, rng, *rest):
        ens = tuple(_of(rest, A.Clause))
        body = rest[-1].value
        return A.ForallStmt(qvars, rng, ens, body, span=span(meta))

    def modify_stmt(self, meta, attrs, *rest):
        body = _first(rest, A.Block)
        frames = tuple(c for c in rest if not isinstance(c, A.Block))
        return A.Modify(frames, body, span=span(meta))

    def break_kw(self, meta, tok):
        return str(tok)

    def break_stmt(self, meta, *children):
        kws = [c for c in children if isinstance(c, str) and not isinstance(c, Token)]
        label = next((str(c) for c in children if isinstance(c, Token)), None)
        return A.Break(label, len(kws), kws[-1] == "continue", span=span(meta))

    def reveal_stmt(self, meta, *exprs):
        return A.Reveal(tuple(exprs), span=span(meta))

    def new_phase(self, meta):
        return A.NewPhase(span=span(meta))

    def labeled_stmt(self, meta, label, stmt):
        return A.Labeled(str(label), stmt, span=span(meta))

    # ------------------------------------------------------------ expressions: operators

    def lemma_chain(self, meta, call, body):
        stmt = A.Assign((), (A.ExprRhs(call, span=call.span),), None, span=call.span)
        return A.StmtExpr(stmt, body, span=span(meta))

    def lead(self, meta, op, expr):
        return expr  # a leading `&&` / `||` (multi-line style) adds nothing

    def lead_op(self, meta, tok):
        return tok

    def ops(self, meta, *children):
        operands: list[Any] = []
        ops: list[str] = []
        pending = ""
        for c in children:
            if isinstance(c, Token):
                pending += str(c)  # `>` `>` arrive as two tokens: a shift
            else:
                if pending:
                    ops.append(pending)
                    pending = ""
                operands.append(c)
        return _climb(operands, ops)

    def cast(self, meta, expr, typ):
        return A.Cast(expr, typ, span=span(meta))

    def type_test(self, meta, expr, typ):
        return A.TypeTest(expr, typ, span=span(meta))

    def neg(self, meta, operand):
        return A.UnOp("-", operand, span=span(meta))

    def not_(self, meta, operand):
        return A.UnOp("!", operand, span=span(meta))

    # ------------------------------------------------------------ expressions: endless forms

    def if_expr(self, meta, cond, then, els):
        return A.IfThenElse(cond, then, els, span=span(meta))

    def quant(self, meta, tok):
        return str(tok)

    def qvars(self, meta, *vs):
        return tuple(vs)

    def qvar(self, meta, name, typ=None):
        return A.BoundVar(str(name), typ, span=span(meta))

    def quantifier(self, meta, kind, attrs1, qvars, attrs2, rng, attrs3, body):
        attrs = attrs1.value + attrs2.value + attrs3.value
        return A.Quantifier(kind, qvars, rng, body, attrs, span=span(meta))

    def set_comp(self, meta, _kw, attrs, qvars, rng, term):
        return A.SetComprehension(qvars, rng, term, span=span(meta))

    def iset_comp(self, meta, _kw, attrs, qvars, rng, term):
        return A.SetComprehension(qvars, rng, term, infinite=True, span=span(meta))

    def map_comp(self, meta, _kw, qvars, rng, first, second):
        key, value = (first, second) if second is not None else (None, first)
        return A.MapComprehension(qvars, rng, key, value, span=span(meta))

    def imap_comp(self, meta, _kw, qvars, rng, first, second):
        key, value = (first, second) if second is not None else (None, first)
        return A.MapComprehension(qvars, rng, key, value, infinite=True, span=span(meta))

    def let_op(self, meta, tok):
        return _Wrap("let_op", str(tok))

    def let_pat(self, meta, pat):
        return _Wrap("pat", pat)

    def let_expr(self, meta, *children):
        ghost = isinstance(children[0], Token) and children[0].type == "GHOST"
        pats = tuple(c.value for c in _wraps(children, "pat"))
        op = _wrap_value(children, "let_op")
        exprs = [c for c in children if not isinstance(c, (Token, _Wrap))]
        return A.Let(pats, tuple(exprs[:-1]), exprs[-1], None, ghost, op == ":-", span=span(meta))

    def let_such_that(self, meta, *children):
        ghost = isinstance(children[0], Token) and children[0].type == "GHOST"
        pats = tuple(c.value for c in _wraps(children, "pat"))
        exprs = [c for c in children if not isinstance(c, (Token, _Wrap))]
        return A.Let(pats, (), exprs[1], exprs[0], ghost, span=span(meta))

    def match_expr(self, meta, scrutinee, *cases):
        return A.MatchExpr(scrutinee, tuple(cases), span=span(meta))

    def expr_case(self, meta, attrs, pattern, body):
        return A.MatchCase(pattern, body, attrs.value, span=span(meta))

    def assert_expr(self, meta, kind, attrs, *rest):
        label = str(rest[0]) if isinstance(rest[0], Token) else None
        rest = [c for c in rest if not isinstance(c, Token)]
        by = _first(rest, A.Block)
        exprs = [c for c in rest if not isinstance(c, A.Block)]
        first = exprs[0]
        stmt_end = by.span if by is not None else first.span
        stmt = A.AssertStmt(kind, first, label, by, attributes=attrs.value, span=join(span(meta), stmt_end))
        return A.StmtExpr(stmt, exprs[-1], span=span(meta))

    def expect_expr(self, meta, attrs, *exprs):
        msg = exprs[1] if len(exprs) == 3 else None
        stmt = A.AssertStmt("expect", exprs[0], message=msg, attributes=attrs.value, span=exprs[0].span)
        return A.StmtExpr(stmt, exprs[-1], span=span(meta))

    def reveal_expr(self, meta, *exprs):
        stmt = A.Reveal(tuple(exprs[:-1]), span=join(exprs[0].span, exprs[-2].span))
        return A.StmtExpr(stmt, exprs[-1], span=span(meta))

    def calc_expr(self, meta, calc, body):
        return A.StmtExpr(calc, body, span=span(meta))

    def lambda_one(self, meta, name, body):
        return A.Lambda((A.BoundVar(str(name), span=tok_span(name)),), body, span=span(meta))

    def lambda_many(self, meta, group, *rest):
        *specs, body = rest
        reads = tuple(e for w in specs if w.kind == "reads" for e in w.value)
        requires = tuple(e for w in specs if w.kind == "requires" for e in w.value)
        params = []
        for item in group.value:
            if isinstance(item, A.BoundVar):
                params.append(item)
            elif isinstance(item, A.Name) and not item.type_args:
                params.append(A.BoundVar(item.name, span=item.span))
            else:
                raise TransformError("lambda parameter must be a name", item.span.line, item.span.col)
        return A.Lambda(tuple(params), body, reads, requires, span=span(meta))

    def lambda_spec_one(self, meta, name, *rest):
        specs, body = rest[:-1], rest[-1]
        reads = tuple(e for w in specs if w.kind == "reads" for e in w.value)
        requires = tuple(e for w in specs if w.kind == "requires" for e in w.value)
        return A.Lambda((A.BoundVar(str(name), span=tok_span(name)),), body, reads, requires, span=span(meta))

    def lambda_reads(self, meta, *frames):
        return _Wrap("reads", tuple(frames))

    def lambda_requires(self, meta, expr):
        return _Wrap("requires", (expr,))

    def paren_group(self, meta, *items):
        return _Wrap("group", tuple(i for i in items if i is not None), span(meta))

    def typed_item(self, meta, name, typ):
        return A.BoundVar(str(name), typ, span=span(meta))

    def paren_atom(self, meta, group):
        items = group.value
        for item in items:
            if isinstance(item, A.BoundVar):
                raise TransformError("unexpected ':' in a parenthesized expression", item.span.line, item.span.col)
        if not items:
            return A.TupleExpr((), span=span(meta))
        if len(items) == 1:
            return replace(items[0], span=span(meta))  # the parentheses belong to the operand's span
        return A.TupleExpr(items, span=span(meta))

    # ------------------------------------------------------------ expressions: postfix

    def member(self, meta, obj, name, targs=None):
        return A.MemberSelect(obj, str(name), targs or (), span=span(meta))

    def member_requires(self, meta, *_):
        return Token("NAME", "requires")

    def member_reads(self, meta, *_):
        return Token("NAME", "reads")

    def member_update(self, meta, name, value):
        return (str(name), value)

    def dt_update(self, meta, obj, *updates):
        return A.DatatypeUpdate(obj, tuple(updates), span=span(meta))

    def args(self, meta, *items):
        return _Wrap("args", tuple(i if isinstance(i, tuple) else (i, None) for i in items if i is not None))

    def named_arg(self, meta, name, value):
        return (value, str(name))

    def call(self, meta, callee, args):
        pairs = args.value
        names = tuple(n for _, n in pairs)
        return A.Call(callee, tuple(a for a, _ in pairs), names if any(names) else (), span=span(meta))

    def call_at(self, meta, callee, label, args):
        call = self.call(meta, callee, args)
        return replace(call, label=str(label))

    def index(self, meta, seq, *indices):
        return A.Index(seq, tuple(indices), span=span(meta))

    def slice(self, meta, seq, lo, hi):
        return A.Slice(seq, lo, hi, span=span(meta))

    def slice_parts(self, meta, seq, *parts):
        return A.Slice(seq, None, None, tuple(parts), span=span(meta))

    def seq_update(self, meta, seq, *pairs):
        result = seq
        for i in range(0, len(pairs), 2):
            result = A.Update(result, pairs[i], pairs[i + 1], span=span(meta))
        return result

    # ------------------------------------------------------------ expressions: atoms

    def name(self, meta, tok):
        return A.Name(str(tok), span=span(meta))

    def name_targs(self, meta, tok, targs):
        return A.Name(str(tok), targs, span=span(meta))

    def this(self, meta):
        return A.ThisExpr(span=span(meta))

    def null(self, meta):
        return A.NullLit(span=span(meta))

    def true(self, meta):
        return A.BoolLit(True, span=span(meta))

    def false(self, meta):
        return A.BoolLit(False, span=span(meta))

    def int_lit(self, meta, tok):
        text = str(tok)
        return A.IntLit(int(text.replace("_", ""), 0), text, span=span(meta))

    def real_lit(self, meta, tok):
        return A.RealLit(str(tok), span=span(meta))

    def char_lit(self, meta, tok):
        return A.CharLit(_decode_escapes(tok[1:-1]), str(tok), span=span(meta))

    def string_lit(self, meta, tok):
        return A.StringLit(_decode_escapes(tok[1:-1]), str(tok), span=span(meta))

    def verbatim_lit(self, meta, tok):
        return A.StringLit(tok[2:-1].replace('""', '"'), str(tok), verbatim=True, span=span(meta))

    def cardinality(self, meta, expr):
        return A.Cardinality(expr, span=span(meta))

    def seq_display(self, meta, *elems):
        return A.SeqDisplay(_exprs(elems), span=span(meta))

    def set_display(self, meta, *elems):
        return A.SetDisplay(_exprs(elems), span=span(meta))

    def iset_display(self, meta, _kw, *elems):
        return A.SetDisplay(_exprs(elems), infinite=True, span=span(meta))

    def multiset_display(self, meta, _kw, *elems):
        return A.MultisetDisplay(_exprs(elems), span=span(meta))

    def multiset_conv(self, meta, _kw, expr):
        return A.MultisetConv(expr, span=span(meta))

    def map_item(self, meta, key, value):
        return (key, value)

    def map_display(self, meta, _kw, *items):
        return A.MapDisplay(tuple(i for i in items if i is not None), span=span(meta))

    def imap_display(self, meta, _kw, *items):
        return A.MapDisplay(tuple(i for i in items if i is not None), infinite=True, span=span(meta))

    def seq_init(self, meta, _kw, *rest):
        elem_type = rest[0][0] if isinstance(rest[0], tuple) and rest[0] else None
        exprs = [c for c in rest if not isinstance(c, tuple)]
        return A.SeqInit(exprs[0], exprs[1], elem_type, span=span(meta))

    def old_kw(self, meta, tok):
        return str(tok)

    def old_expr(self, meta, kind, *rest):
        label = str(rest[0]) if len(rest) == 2 else None
        if kind == "old":
            return A.Old(rest[-1], label, span=span(meta))
        return A.Fresh(rest[-1], label, span=span(meta))

    def allocated(self, meta, *rest):
        return A.Allocated(rest[-1], span=span(meta))

    def unchanged(self, meta, *rest):
        label = str(rest[0]) if isinstance(rest[0], Token) else None
        exprs = tuple(c for c in rest if not isinstance(c, Token))
        return A.Unchanged(exprs, label, span=span(meta))

    # ------------------------------------------------------------ patterns

    def pat_var(self, meta, name, typ=None):
        if str(name) == "_":
            return A.PatWild(span=span(meta))
        return A.PatVar(str(name), typ, span=span(meta))

    def pat_ghost_var(self, meta, _ghost, name, typ=None):
        return A.PatVar(str(name), typ, ghost=True, span=span(meta))

    def pat_ctor(self, meta, name, *args):
        return A.PatCtor(name.value, tuple(a for a in args if a is not None), span=span(meta))

    def pat_tuple(self, meta, *elems):
        return A.PatTuple(tuple(e for e in elems if e is not None), span=span(meta))

    def pat_lit(self, meta, lit):
        return A.PatLit(lit, span=span(meta))

    def pat_neg_lit(self, meta, tok):
        sp = span(meta)
        text = str(tok)
        lit = A.RealLit(text, span=tok_span(tok)) if tok.type == "REAL" else A.IntLit(
            int(text.replace("_", ""), 0), text, span=tok_span(tok))
        return A.PatLit(A.UnOp("-", lit, span=sp), span=sp)

    def pat_bind(self, meta, pattern, name):
        return A.PatBind(pattern, str(name), span=span(meta))

    def pat_alt(self, meta, *alts):
        return A.PatAlt(tuple(alts), span=span(meta))


_RHS = (A.ExprRhs, A.NewArray, A.NewObject, A.HavocRhs)


_LEVEL = {
    "<==>": 0, "==>": 1, "<==": 1, "&&": 2, "||": 2,
    "==": 3, "!=": 3, "<": 3, ">": 3, "<=": 3, ">=": 3, "in": 3, "!in": 3, "!!": 3,
    "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "|": 7, "&": 7, "^": 7,
}
_REL = 3
_TOP = 8


def _climb(operands: list[Any], ops: list[str]) -> Any:
    """Arrange `e0 op0 e1 op1 ...` by Dafny precedence: `==>` right-associative, comparisons chained."""
    i = 0

    def binop(op: str, left: Any, right: Any) -> A.BinOp:
        return A.BinOp(op, left, right, span=join(left.span, right.span))

    def parse(level: int) -> Any:
        nonlocal i
        if level == _TOP:
            return operands[i]
        left = parse(level + 1)
        if level == 1:
            if i < len(ops) and ops[i] == "==>":
                i += 1
                return binop("==>", left, parse(1))
            while i < len(ops) and ops[i] == "<==":
                i += 1
                left = binop("<==", left, parse(2))
            return left
        if level == _REL:
            chain_ops, chain = [], [left]
            while i < len(ops) and _LEVEL[ops[i]] == _REL:
                chain_ops.append(ops[i])
                i += 1
                chain.append(parse(_REL + 1))
            if len(chain_ops) <= 1:
                return binop(chain_ops[0], chain[0], chain[1]) if chain_ops else left
            if all(op in _CHAIN_OPS for op in chain_ops):
                return A.Chain(tuple(chain), tuple(chain_ops), span=join(chain[0].span, chain[-1].span))
            result = chain[0]
            for op, right in zip(chain_ops, chain[1:]):
                result = binop(op, result, right)
            return result
        while i < len(ops) and _LEVEL[ops[i]] == level:
            op = ops[i]
            i += 1
            left = binop(op, left, parse(level + 1))
        return left

    return parse(0)


def _fold(op: str, operands: tuple[Any, ...]) -> Any:
    result = operands[0]
    for right in operands[1:]:
        result = A.BinOp(op, result, right, span=join(result.span, right.span))
    return result


def _flat(decl: Any) -> tuple[Any, ...]:
    if isinstance(decl, _Wrap) and decl.kind == "many":
        return decl.value
    return (decl,)


def _members(decls: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(d for c in decls if c is not None for d in _flat(c))


def _stmts(stmts: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(s for s in stmts if s is not None)


def _apply_mods(body: Any, mods: set[str], sp: A.Span) -> Any:
    if isinstance(body, _Wrap) and body.kind == "many":
        return _Wrap("many", tuple(_apply_mods(d, mods, d.span) for d in body.value))
    names = {f.name for f in fields(body)}
    changes: dict[str, Any] = {"span": sp}
    for mod in mods:
        if mod in names and mod != "name":
            changes[mod] = True
    return replace(body, **changes)


def _spec(clauses: tuple[A.Clause, ...]) -> A.Spec:
    groups: dict[str, list[A.Clause]] = {"requires": [], "ensures": [], "modifies": [], "reads": [], "decreases": []}
    other: list[A.Clause] = []
    for c in clauses:
        groups.get(c.kind, other).append(c)
    return A.Spec(
        tuple(groups["requires"]), tuple(groups["ensures"]), tuple(groups["modifies"]), tuple(groups["reads"]),
        tuple(groups["decreases"]), tuple(other),
    )

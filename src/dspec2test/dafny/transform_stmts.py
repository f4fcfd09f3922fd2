"""Statement and specification-clause rules of the transformer (a mixin of `transform.ToAst`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lark import Token, Transformer, v_args

from dspec2test.dafny import ast as A
from dspec2test.dafny.transform_base import (
    TYPES, Wrap, fail_op, first_of, span, tok_span, wrap_value, wraps, of_type,
)


@v_args(inline=True, meta=True)
class StmtRules(Transformer):
    """Rule methods for clauses and statements; each gets (meta, *children)."""

    text: str

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
        return Wrap("body", (str(label), (expr,), expr.span))

    def plain_body(self, meta, *exprs):
        return Wrap("body", (None, tuple(exprs), span(meta)))

    def frame_expr(self, meta, e):
        if isinstance(e, Token):
            return A.Wildcard(span=span(meta))
        return e

    def frame_field(self, meta, *children):
        obj = children[0] if len(children) == 2 else A.ThisExpr()
        return A.FrameField(obj, str(children[-1]), span=span(meta))

    # ------------------------------------------------------------ statements

    def block(self, meta, *stmts):
        return A.Block(stmt_tuple(stmts), span=span(meta))

    def var_name(self, meta, name, typ=None):
        return A.PatVar(str(name), typ, span=span(meta))

    def init_assign(self, meta, *rhs):
        return Wrap("init", (":=", tuple(rhs), None))

    def init_fail(self, meta, op, attrs, *rhs):
        return Wrap("init", (fail_op(op), tuple(rhs), None))

    def init_such_that(self, meta, *children):
        return Wrap("init", (":|", (), children[-1]))

    def by_proof(self, meta, block):
        return _ByProof(block)  # ghost: nothing a test runs; dropped by the statement it ends

    def var_stmt(self, meta, *children):
        children = _unproved(children)
        ghost = isinstance(children[0], Token) and children[0].type == "GHOST"
        attrs = tuple(a for w in wraps(children, "attrs") for a in w.value)
        pats = tuple(c for c in children if isinstance(c, (A.PatVar, A.PatCtor, A.PatTuple, A.PatWild)))
        op, rhs, such = wrap_value(children, "init", (None, (), None))
        return A.VarDecl(pats, rhs, op, such, ghost, attrs, span=span(meta),
                         ghost_span=tok_span(children[0]) if ghost else A.NO_SPAN)

    def _lhs_rhs(self, children):
        lhs = tuple(c for c in children if not isinstance(c, _RHS + (Wrap,)))
        rhs = tuple(c for c in children if isinstance(c, _RHS))
        return lhs, rhs

    def assign(self, meta, *children):
        lhs, rhs = self._lhs_rhs(_unproved(children))
        return A.Assign(lhs, rhs, ":=", span=span(meta))

    def assign_fail(self, meta, *children):
        op = next(c for c in children if isinstance(c, Token) and c.type == "FAIL_OP")
        lhs, rhs = self._lhs_rhs(tuple(c for c in _unproved(children) if c is not op))
        return A.Assign(lhs, rhs, fail_op(op), span=span(meta))

    def assign_fail_nolhs(self, meta, op, attrs, *rhs):
        return A.Assign((), _unproved(rhs), fail_op(op), span=span(meta))

    def assign_such_that(self, meta, *children):
        children = tuple(c for c in _unproved(children) if not isinstance(c, Wrap))
        return A.Assign(tuple(children[:-1]), (), ":|", children[-1], span=span(meta))

    def call_stmt(self, meta, expr, attrs, proof=None):
        return A.Assign((), (A.ExprRhs(expr, span=expr.span),), None, span=span(meta))

    def rhs_expr(self, meta, expr, attrs):
        return A.ExprRhs(expr, attrs.value, span=span(meta))

    def rhs_new_array(self, meta, typ, *rest):
        *dims, init = rest
        return A.NewArray(typ, tuple(d for d in dims if d is not None), init, span=span(meta))

    def rhs_new_array_sized_elems(self, meta, typ, size, *elems):
        return A.NewArray(typ, (size,), None, tuple(e for e in elems if e is not None), span=span(meta))

    def rhs_new_untyped(self, meta, *rest):
        *dims, init = rest
        return A.NewArray(None, tuple(dims), init, span=span(meta))

    def rhs_new_untyped_elems(self, meta, *elems):
        return A.NewArray(None, (), None, tuple(e for e in elems if e is not None), span=span(meta))

    def rhs_new_untyped_sized_elems(self, meta, size, *elems):
        return A.NewArray(None, (size,), None, tuple(e for e in elems if e is not None), span=span(meta))

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
        if isinstance(guard, Wrap):
            binding, guard = guard.value
        return A.If(guard, then, els, binding, span=span(meta))

    def guard_star(self, meta, *_):
        return None

    def guard_binding(self, meta, domain, expr):
        names, rng, _ = domain.value
        return Wrap("binding", (names, expr if rng is None else A.BinOp("&&", rng, expr, span=span(meta))))

    def alt_if_stmt(self, meta, attrs, *alts):
        return A.AltIf(tuple(alts), span=span(meta))

    def guarded_alt(self, meta, guard, *stmts):
        binding = ()
        if isinstance(guard, Wrap):
            binding, guard = guard.value
        return A.GuardedAlt(guard, stmt_tuple(stmts), binding=binding, span=span(meta))

    def loop_specs(self, meta, *clauses):
        return Wrap("specs", tuple(clauses))

    def while_stmt(self, meta, attrs, guard, specs, body):
        return A.While(guard, specs.value, body.value, span=span(meta))

    def alt_while_stmt(self, meta, attrs, specs, *alts):
        return A.While(None, specs.value, None, tuple(alts), span=span(meta))

    def for_dir(self, meta, tok):
        return Wrap("dir", str(tok))

    def for_star(self, meta, _tok):
        return None

    def for_stmt(self, meta, name, *rest):
        typ = first_of(rest, TYPES)
        rest = [c for c in rest if not isinstance(c, TYPES)]
        lo, direction, hi, specs, body = rest
        return A.For(
            A.BoundVar(str(name), typ, span=tok_span(name)), lo, hi, direction.value == "downto", specs.value,
            body.value, span=span(meta),
        )

    def match_stmt(self, meta, scrutinee, *cases):
        return A.MatchStmt(scrutinee, tuple(cases), span=span(meta))

    def stmt_case(self, meta, attrs, pattern, *stmts):
        return A.MatchCase(pattern, stmt_tuple(stmts), attrs.value, span=span(meta))

    def return_stmt(self, meta, attrs, *rhs):
        return A.Return(tuple(r for r in rhs if r is not None), span=span(meta))

    def else_block(self, meta, attrs, block):
        return block

    def opaque_block(self, meta, _opaque, *rest):
        return A.OpaqueBlock(tuple(of_type(rest, A.Clause)), rest[-1], span=span(meta))

    def yield_stmt(self, meta, *rhs):
        return A.Yield(tuple(r for r in rhs if r is not None), span=span(meta))

    def assert_kw(self, meta, tok):
        return str(tok)

    def assert_stmt(self, meta, kind, attrs, *rest):
        label = str(rest[0]) if isinstance(rest[0], Token) else None
        exprs = [c for c in rest if not isinstance(c, (Token, A.Block))]
        by = first_of(rest, A.Block)
        return A.AssertStmt(kind, exprs[0], label, by, attributes=attrs.value, span=span(meta))

    def assert_ellipsis(self, meta, kind, attrs):
        return A.AssertStmt(kind, None, attributes=attrs.value, span=span(meta))

    def skeleton(self, meta):
        return A.Skeleton(span=span(meta))

    def expect_stmt(self, meta, attrs, expr, message=None):
        return A.AssertStmt("expect", expr, message=message, attributes=attrs.value, span=span(meta))

    def print_stmt(self, meta, *args):
        return A.Print(tuple(args), span=span(meta))

    def calc_op(self, meta, *toks):
        parts = [c for c in toks if isinstance(c, Token)]
        return Wrap("calc_op", "".join(str(t) for t in parts))

    def calc_line(self, meta, expr):
        return Wrap("calc_line", expr, span(meta))

    def calc_stmt(self, meta, attrs, *elems):
        op = None
        if elems and isinstance(elems[0], Wrap) and elems[0].kind == "calc_op":
            op, elems = elems[0].value, elems[1:]
        steps: list[A.CalcStep] = []
        pending_op: str | None = None
        hints: list[Any] = []
        for e in elems:
            if isinstance(e, Wrap) and e.kind == "calc_op":
                pending_op = e.value
            elif isinstance(e, Wrap) and e.kind == "calc_line":
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

    def forall_stmt(self, meta, attrs, domain, *rest):
        qvars, rng, _ = domain.value
        ens = tuple(of_type(rest, A.Clause))
        body = rest[-1].value
        return A.ForallStmt(qvars, rng, ens, body, span=span(meta))

    def forall_stmt_bare(self, meta, attrs, *rest):
        """`forall ensures P { proof }`: no bound variables, a proof of P in a block of its own."""
        ens = tuple(of_type(rest, A.Clause))
        body = rest[-1] if isinstance(rest[-1], A.Block) else rest[-1].value
        return A.ForallStmt((), None, ens, body, span=span(meta))

    def modify_stmt(self, meta, attrs, *rest):
        body = first_of(rest, A.Block)
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

    def reveal_all(self, meta, _star):
        return A.Reveal((), every=True, span=span(meta))

    def hide_stmt(self, meta, *exprs):
        return A.Reveal(tuple(exprs), hide=True, span=span(meta))

    def hide_all(self, meta, _star):
        return A.Reveal((), hide=True, every=True, span=span(meta))

    def new_phase(self, meta):
        return A.NewPhase(span=span(meta))

    def labeled_stmt(self, meta, label, stmt):
        return A.Labeled(str(label), stmt, span=span(meta))


_RHS = (A.ExprRhs, A.NewArray, A.NewObject, A.HavocRhs)


def stmt_tuple(stmts: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(s for s in stmts if s is not None)


@dataclass(frozen=True)
class _ByProof:
    """A statement's `by { ... }` proof, on its way to being dropped."""

    block: object


def _unproved(children: tuple) -> tuple:
    return tuple(c for c in children if not isinstance(c, _ByProof))

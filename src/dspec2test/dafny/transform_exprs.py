"""Expression, type and pattern rules of the transformer (a mixin of `transform.ToAst`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lark import Token, Transformer, v_args

from dspec2test.dafny import ast as A
from dspec2test.dafny.transform_base import (
    TYPES, TransformError, Wrap, decode_escapes, fail_op, int_value, exprs_of, real_text, first_of, fold, join, span, tok_span, wraps, wrap_value,
)

_CHAIN_OPS = {"<", "<=", ">", ">=", "==", "!="}


@v_args(inline=True, meta=True)
class ExprRules(Transformer):
    """Rule methods for types, expressions and patterns; each gets (meta, *children)."""

    text: str

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

    def ghost_elem(self, meta, ghost, typ):
        return typ  # a ghost component: erased at run time, and nothing here needs the mark

    def tuple_type(self, meta, *types):
        elems = tuple(t for t in types if t is not None)
        if len(elems) == 1:
            # `((T, nat))` keeps its outer parentheses: before `->` they make one tuple parameter, not two
            return A.TupleType(elems, span=span(meta)) if isinstance(elems[0], A.TupleType) else elems[0]
        return A.TupleType(elems, span=span(meta))

    # ------------------------------------------------------------ expressions: operators

    def lemma_chain(self, meta, call, body):
        stmt = A.Assign((), (A.ExprRhs(call, span=call.span),), None, span=call.span)
        return A.StmtExpr(stmt, body, span=span(meta))

    def lead(self, meta, op, expr):
        return expr  # a leading `&&` / `||` (multi-line style) adds nothing

    def lead_op(self, meta, tok):
        return None

    def ops(self, meta, *children):
        operands: list[Any] = []
        ops: list[str] = []
        pending = ""
        for c in children:
            if isinstance(c, Token):
                pending += str(c)  # `>` `>` arrive as two tokens: a shift
            elif isinstance(c, Wrap):
                pending += c.value
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
        binding = ()
        if isinstance(cond, Wrap):  # `if x :| P(x) then ...`
            binding, cond = cond.value
        return A.IfThenElse(cond, then, els, binding, span=span(meta))

    def quant(self, meta, tok):
        return str(tok)

    def qvars(self, meta, *vs):
        """The bound variables, their ranges (and `x <- C` collections) conjoined in order, and attributes."""
        names, conds, attrs = [], [], []
        for v in vs:
            var, coll, rng, var_attrs = v.value
            names.append(var)
            if coll is not None:
                conds.append(A.BinOp("in", A.Name(var.name, span=var.span), coll, span=v.span))
            if rng is not None:
                conds.append(rng)
            attrs.extend(var_attrs)
        rng = fold("&&", tuple(conds)) if conds else None
        return Wrap("domain", (tuple(names), rng, tuple(attrs)))

    def qvar(self, meta, name, *rest):
        typ = first_of(rest, TYPES)
        rest = [c for c in rest if not isinstance(c, TYPES)]
        coll, attrs, rng, attrs2 = rest
        all_attrs = attrs.value + (attrs2.value if attrs2 is not None else ())
        var = A.BoundVar(str(name), typ, span=join(tok_span(name), typ.span) if typ is not None else tok_span(name))
        return Wrap("qvar", (var, coll, rng, all_attrs), span(meta))

    def quantifier(self, meta, kind, attrs, domain, body):
        names, rng, var_attrs = domain.value
        return A.Quantifier(kind, names, rng, body, attrs.value + var_attrs, span=span(meta))

    def set_comp(self, meta, _kw, attrs, domain, term):
        names, rng, _ = domain.value
        return A.SetComprehension(names, rng, term, span=span(meta))

    def iset_comp(self, meta, _kw, attrs, domain, term):
        names, rng, _ = domain.value
        return A.SetComprehension(names, rng, term, infinite=True, span=span(meta))

    def map_comp(self, meta, _kw, domain, first, second):
        names, rng, _ = domain.value
        key, value = (first, second) if second is not None else (None, first)
        return A.MapComprehension(names, rng, key, value, span=span(meta))

    def imap_comp(self, meta, _kw, domain, first, second):
        names, rng, _ = domain.value
        key, value = (first, second) if second is not None else (None, first)
        return A.MapComprehension(names, rng, key, value, infinite=True, span=span(meta))

    def let_op(self, meta, tok):
        return Wrap("let_op", fail_op(tok) if tok.type == "FAIL_OP" else str(tok))

    def let_fail_nolhs(self, meta, op, value, body):
        return A.Let((), (value,), body, fail_op=True, span=span(meta))

    def let_pat(self, meta, pat):
        return Wrap("pat", pat)

    def let_expr(self, meta, *children):
        ghost = isinstance(children[0], Token) and children[0].type == "GHOST"
        pats = tuple(c.value for c in wraps(children, "pat"))
        op = wrap_value(children, "let_op")
        exprs = [c for c in children if not isinstance(c, (Token, Wrap))]
        return A.Let(pats, tuple(exprs[:-1]), exprs[-1], None, ghost, op.startswith(":-"), span=span(meta))

    def let_such_that(self, meta, *children):
        ghost = isinstance(children[0], Token) and children[0].type == "GHOST"
        pats = tuple(c.value for c in wraps(children, "pat"))
        exprs = [c for c in children if not isinstance(c, (Token, Wrap))]
        return A.Let(pats, (), exprs[1], exprs[0], ghost, span=span(meta))

    def match_expr(self, meta, scrutinee, *cases):
        return A.MatchExpr(scrutinee, tuple(cases), span=span(meta))

    def expr_case(self, meta, attrs, pattern, body):
        return A.MatchCase(pattern, body, attrs.value, span=span(meta))

    def assert_expr(self, meta, kind, attrs, *rest):
        label = str(rest[0]) if isinstance(rest[0], Token) else None
        rest = [c for c in rest if not isinstance(c, Token)]
        by = first_of(rest, A.Block)
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
            if isinstance(item, Wrap):
                raise TransformError("lambda parameter must be a name", item.span.line, item.span.col)
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

    def lambda_reads(self, meta, attrs, *frames):
        return Wrap("reads", tuple(frames))

    def lambda_requires(self, meta, expr):
        return Wrap("requires", (expr,))

    def paren_group(self, meta, items=None):
        return Wrap("group", items.value if items is not None else (), span(meta))

    def paren_items(self, meta, *items):
        return Wrap("items", items)

    def ghost_item(self, meta, expr):
        return expr  # a tuple's ghost component (`(i, ghost i)`), as its type's: erased, unmarked here

    def tuple_binding(self, meta, index, expr):
        return Wrap("tuple_binding", (int_value(str(index)), expr), span(meta))

    def decreases_to(self, meta, old, op, new):
        return A.DecreasesTo((old,), (new,), str(op).startswith("non"), span=span(meta))

    def decreases_to_group(self, meta, items, op, *news):
        olds = items.value if items is not None else ()
        for item in olds:
            if not isinstance(item, A.Node) or isinstance(item, A.BoundVar):
                sp = item.span
                raise TransformError(f"only expressions may stand before '{str(op).split()[0]} to'", sp.line, sp.col)
        return A.DecreasesTo(olds, tuple(n for n in news if n is not None), str(op).startswith("non"),
                             span=span(meta))

    def typed_item(self, meta, name, typ):
        return A.BoundVar(str(name), typ, span=span(meta))

    def paren_atom(self, meta, group):
        items = _bound(group.value)
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

    def member_prefix(self, meta, obj, name, k):
        # `M.P#[k]`: as `P#[k]`, the index of the prefix predicate named `P#`
        return A.Index(A.MemberSelect(obj, str(name) + "#", span=join(obj.span, tok_span(name))), (k,), span=span(meta))

    def member_requires(self, meta, *_):
        return Token("NAME", "requires")

    def member_reads(self, meta, *_):
        return Token("NAME", "reads")

    def member_update(self, meta, name, value):
        return (str(name), value)

    def dt_update(self, meta, obj, *updates):
        return A.DatatypeUpdate(obj, tuple(updates), span=span(meta))

    def args(self, meta, *items):
        return Wrap("args", tuple(i if isinstance(i, tuple) else (i, None) for i in items if i is not None))

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

    def prefix_name(self, meta, tok, *rest):
        # `P#[k]`, the prefix predicate of a least/greatest predicate, kept as the index `P#[k]`.
        targs = rest[0] if len(rest) == 2 else ()
        return A.Index(A.Name(str(tok) + "#", targs, span=tok_span(tok)), (rest[-1],), span=span(meta))

    def prefix_eq(self, meta, *children):
        # The op keeps its spelling with the depth, `==#[k]`, so it prints back as written.
        op = str(children[0])
        k = next(c for c in children if not isinstance(c, Token))
        return Wrap("op", f"{op}#[{self.text[k.span.start : k.span.end]}]")

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
        return A.IntLit(int_value(text), text, span=span(meta))

    def real_lit(self, meta, tok):
        return A.RealLit(real_text(str(tok)), span=span(meta))

    def char_lit(self, meta, tok):
        return A.CharLit(decode_escapes(tok[1:-1]), str(tok), span=span(meta))

    def string_lit(self, meta, tok):
        return A.StringLit(decode_escapes(tok[1:-1]), str(tok), span=span(meta))

    def verbatim_lit(self, meta, tok):
        return A.StringLit(tok[2:-1].replace('""', '"'), str(tok), verbatim=True, span=span(meta))

    def cardinality(self, meta, expr):
        return A.Cardinality(expr, span=span(meta))

    def seq_display(self, meta, *elems):
        return A.SeqDisplay(exprs_of(elems), span=span(meta))

    def set_display(self, meta, *elems):
        return A.SetDisplay(exprs_of(elems), span=span(meta))

    def iset_display(self, meta, _kw, *elems):
        return A.SetDisplay(exprs_of(elems), infinite=True, span=span(meta))

    def multiset_display(self, meta, _kw, *elems):
        return A.MultisetDisplay(exprs_of(elems), span=span(meta))

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
            int_value(text), text, span=tok_span(tok))
        return A.PatLit(A.UnOp("-", lit, span=sp), span=sp)

    def pat_bind(self, meta, pattern, name):
        return A.PatBind(pattern, str(name), span=span(meta))

    def pat_alt(self, meta, *alts):
        if len(alts) == 1:  # `case | A => ...`: a leading bar before one pattern
            return alts[0]
        return A.PatAlt(tuple(alts), span=span(meta))


def _bound(items: tuple[Any, ...]) -> tuple[Any, ...]:
    """A tuple's items in order, with `(1 := b, 0 := a)` bindings put in their places."""
    if not any(isinstance(i, Wrap) for i in items):
        return items
    placed: dict[int, Any] = {}
    for k, item in enumerate(items):
        index, expr = item.value if isinstance(item, Wrap) else (k, item)
        if index in placed or index >= len(items):
            sp = item.span
            raise TransformError(f"tuple component {index} is given twice or does not exist", sp.line, sp.col)
        placed[index] = expr
    return tuple(placed[k] for k in range(len(items)))


_LEVEL = {
    "<==>": 0, "==>": 1, "<==": 1, "&&": 2, "||": 2,
    "==": 3, "!=": 3, "<": 3, ">": 3, "<=": 3, ">=": 3, "in": 3, "!in": 3, "!!": 3,
    "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "|": 7, "&": 7, "^": 7,
}
_REL = 3
_TOP = 8


def _level(op: str) -> int:
    return _REL if op.startswith(("==#", "!=#")) else _LEVEL[op]


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
            while i < len(ops) and _level(ops[i]) == _REL:
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
        while i < len(ops) and _level(ops[i]) == level:
            op = ops[i]
            i += 1
            left = binop(op, left, parse(level + 1))
        return left

    return parse(0)

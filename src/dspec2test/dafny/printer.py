"""AST -> Dafny text with the fewest parentheses that keep the meaning (by precedence and associativity).

One method per node kind, found by class name (`expr_BinOp`, `type_NamedType`, `pat_PatCtor`).
Used for partition labels, BVA pins and the emitted tests, so the output must be valid Dafny.
"""

from __future__ import annotations

from dspec2test.dafny import ast

# Binding strength of binary operators, loosest first (Dafny reference manual, section "Expressions").
_EQUIV, _IMPLIES, _LOGIC, _REL, _SHIFT, _ADD, _MUL, _BITS, _AS, _UNARY, _PRIMARY = range(11)
_BINARY = {
    "<==>": _EQUIV,
    "==>": _IMPLIES, "<==": _IMPLIES,
    "&&": _LOGIC, "||": _LOGIC,
    "==": _REL, "!=": _REL, "<": _REL, "<=": _REL, ">": _REL, ">=": _REL, "in": _REL, "!in": _REL,
    "!!": _REL, "==#": _REL,
    "<<": _SHIFT, ">>": _SHIFT,
    "+": _ADD, "-": _ADD,
    "*": _MUL, "/": _MUL, "%": _MUL,
    "&": _BITS, "|": _BITS, "^": _BITS,
}
# Expressions that extend as far right as possible: parenthesised whenever they are an operand.
_OPEN = -1


def print_expr(e: ast.Expr) -> str:
    return _PRINTER.expr(e)


def print_type(t: ast.Type) -> str:
    return _PRINTER.type(t)


def print_pattern(p: ast.Pattern) -> str:
    return _PRINTER.pat(p)


def precedence(e: ast.Expr) -> int:
    """How tightly `e` binds when printed; _OPEN for if/let/quantifier/lambda/match forms."""
    if isinstance(e, ast.BinOp):
        return _BINARY[e.op]
    if isinstance(e, ast.Chain):
        return _REL
    if isinstance(e, (ast.TypeTest, ast.Cast)):
        return _AS
    if isinstance(e, ast.UnOp):
        return _UNARY
    if isinstance(e, (ast.IntLit,)) and e.value < 0 and not e.text:
        return _UNARY
    if isinstance(e, (ast.Quantifier, ast.Let, ast.IfThenElse, ast.MatchExpr, ast.Lambda,
                      ast.SetComprehension, ast.MapComprehension, ast.StmtExpr)):
        return _OPEN
    return _PRIMARY


class _Printer:
    def expr(self, e: ast.Expr) -> str:
        return getattr(self, "expr_" + type(e).__name__)(e)

    def type(self, t: ast.Type) -> str:
        return getattr(self, "type_" + type(t).__name__)(t)

    def pat(self, p: ast.Pattern) -> str:
        return getattr(self, "pat_" + type(p).__name__)(p)

    # ------------------------------------------------------------ helpers

    def _wrap(self, e: ast.Expr, needs: bool) -> str:
        text = self.expr(e)
        return f"({text})" if needs else text

    def _operand(self, e: ast.Expr, at_least: int) -> str:
        """`e` as an operand that must bind at least as tightly as `at_least`."""
        p = precedence(e)
        return self._wrap(e, p == _OPEN or p < at_least)

    def _suffix_base(self, e: ast.Expr) -> str:
        return self._wrap(e, precedence(e) < _PRIMARY)

    def _list(self, es: tuple[ast.Expr, ...]) -> str:
        return ", ".join(self.expr(e) for e in es)

    def _targs(self, ts: tuple[ast.Type, ...]) -> str:
        return f"<{', '.join(self.type(t) for t in ts)}>" if ts else ""

    def _bvars(self, vs: tuple[ast.BoundVar, ...]) -> str:
        return ", ".join(v.name + (f": {self.type(v.type)}" if v.type else "") for v in vs)

    def _attrs(self, attrs: tuple[ast.Attribute, ...]) -> str:
        return "".join(f"{{:{a.name}{' ' + self._list(a.args) if a.args else ''}}} " for a in attrs)

    # ------------------------------------------------------------ literals and names

    def expr_IntLit(self, e: ast.IntLit) -> str:
        return e.text or str(e.value)

    def expr_RealLit(self, e: ast.RealLit) -> str:
        return e.text

    def expr_BoolLit(self, e: ast.BoolLit) -> str:
        return "true" if e.value else "false"

    def expr_CharLit(self, e: ast.CharLit) -> str:
        return e.text or "'" + _escape(e.value, "'") + "'"

    def expr_StringLit(self, e: ast.StringLit) -> str:
        return e.text or string_literal(e.value)

    def expr_NullLit(self, e: ast.NullLit) -> str:
        return "null"

    def expr_ThisExpr(self, e: ast.ThisExpr) -> str:
        return "this"

    def expr_Wildcard(self, e: ast.Wildcard) -> str:
        return "*"

    def expr_Name(self, e: ast.Name) -> str:
        return e.name + self._targs(e.type_args)

    # ------------------------------------------------------------ operators

    def expr_BinOp(self, e: ast.BinOp) -> str:
        p = _BINARY[e.op]
        lp, rp = precedence(e.left), precedence(e.right)
        if p == _IMPLIES and e.op == "==>":  # right associative
            left_paren = lp <= p
            right_paren = rp < p or (rp == p and _op(e.right) != "==>")
        elif p in (_LOGIC, _IMPLIES, _BITS):  # left associative, but mixing operators needs parentheses
            left_paren = lp < p or (lp == p and _op(e.left) != e.op)
            right_paren = rp <= p
        elif p in (_REL, _EQUIV):  # non-associative (a chain is its own node)
            left_paren, right_paren = lp <= p, rp <= p
        else:  # left associative arithmetic and shifts
            left_paren, right_paren = lp < p, rp <= p
        # An open form (quantifier, let, if) would swallow whatever follows it: always parenthesise.
        left = self._wrap(e.left, left_paren or lp == _OPEN)
        right = self._wrap(e.right, right_paren or rp == _OPEN)
        op = e.op if e.op != "==#" else "=="
        return f"{left} {op} {right}"

    def expr_Chain(self, e: ast.Chain) -> str:
        parts = [self._operand(e.operands[0], _SHIFT)]
        for op, operand in zip(e.ops, e.operands[1:]):
            parts += [op, self._operand(operand, _SHIFT)]
        return " ".join(parts)

    def expr_UnOp(self, e: ast.UnOp) -> str:
        inner = self._operand(e.operand, _UNARY)
        if e.op == "-" and inner.startswith("-"):
            inner = f"({inner})"
        return e.op + inner

    def expr_Cardinality(self, e: ast.Cardinality) -> str:
        return f"|{self.expr(e.expr)}|"

    def expr_TypeTest(self, e: ast.TypeTest) -> str:
        return f"{self._operand(e.expr, _AS)} is {self.type(e.type)}"

    def expr_Cast(self, e: ast.Cast) -> str:
        return f"{self._operand(e.expr, _AS)} as {self.type(e.type)}"

    # ------------------------------------------------------------ suffixes

    def expr_MemberSelect(self, e: ast.MemberSelect) -> str:
        return f"{self._suffix_base(e.obj)}.{e.name}{self._targs(e.type_args)}"

    def expr_Call(self, e: ast.Call) -> str:
        args = []
        for i, a in enumerate(e.args):
            name = e.arg_names[i] if i < len(e.arg_names) else None
            args.append(f"{name} := {self.expr(a)}" if name else self.expr(a))
        label = f"@{e.label}" if e.label else ""
        return f"{self._suffix_base(e.callee)}{label}({', '.join(args)})"

    def expr_Index(self, e: ast.Index) -> str:
        return f"{self._suffix_base(e.seq)}[{self._list(e.indices)}]"

    def expr_Slice(self, e: ast.Slice) -> str:
        base = self._suffix_base(e.seq)
        if e.parts:
            return f"{base}[{' : '.join(self.expr(p) for p in e.parts)}]"
        lo = self.expr(e.lo) if e.lo is not None else ""
        hi = self.expr(e.hi) if e.hi is not None else ""
        return f"{base}[{lo}..{hi}]"

    def expr_Update(self, e: ast.Update) -> str:
        return f"{self._suffix_base(e.seq)}[{self.expr(e.index)} := {self.expr(e.value)}]"

    def expr_DatatypeUpdate(self, e: ast.DatatypeUpdate) -> str:
        ups = ", ".join(f"{n} := {self.expr(v)}" for n, v in e.updates)
        return f"{self._suffix_base(e.obj)}.({ups})"

    # ------------------------------------------------------------ displays

    def expr_SeqDisplay(self, e: ast.SeqDisplay) -> str:
        return f"[{self._list(e.elems)}]"

    def expr_SetDisplay(self, e: ast.SetDisplay) -> str:
        return f"{'iset' if e.infinite else ''}{{{self._list(e.elems)}}}"

    def expr_MultisetDisplay(self, e: ast.MultisetDisplay) -> str:
        return f"multiset{{{self._list(e.elems)}}}"

    def expr_MultisetConv(self, e: ast.MultisetConv) -> str:
        return f"multiset({self.expr(e.expr)})"

    def expr_MapDisplay(self, e: ast.MapDisplay) -> str:
        items = ", ".join(f"{self.expr(k)} := {self.expr(v)}" for k, v in e.items)
        return f"{'imap' if e.infinite else 'map'}[{items}]"

    def expr_SeqInit(self, e: ast.SeqInit) -> str:
        targs = f"<{self.type(e.elem_type)}>" if e.elem_type else ""
        return f"seq{targs}({self.expr(e.length)}, {self.expr(e.init)})"

    def expr_TupleExpr(self, e: ast.TupleExpr) -> str:
        if len(e.elems) == 1:
            return f"({self.expr(e.elems[0])},)"
        return f"({self._list(e.elems)})"

    # ------------------------------------------------------------ binders

    def _range_body(self, vars_: tuple[ast.BoundVar, ...], rng: ast.Expr | None) -> str:
        return self._bvars(vars_) + (f" | {self.expr(rng)}" if rng is not None else "")

    def expr_Quantifier(self, e: ast.Quantifier) -> str:
        # attributes follow the bound variables (`forall i {:trigger a[i]} | ...`): before them Dafny
        # reads no identifier
        attrs = f" {self._attrs(e.attributes).rstrip()}" if e.attributes else ""
        rng = f" | {self.expr(e.range)}" if e.range is not None else ""
        return f"{e.kind} {self._bvars(e.vars)}{attrs}{rng} :: {self.expr(e.body)}"

    def expr_SetComprehension(self, e: ast.SetComprehension) -> str:
        kw = "iset" if e.infinite else "set"
        term = f" :: {self.expr(e.term)}" if e.term is not None else ""
        return f"{kw} {self._range_body(e.vars, e.range)}{term}"

    def expr_MapComprehension(self, e: ast.MapComprehension) -> str:
        kw = "imap" if e.infinite else "map"
        key = f"{self.expr(e.key)} := " if e.key is not None else ""
        return f"{kw} {self._range_body(e.vars, e.range)} :: {key}{self.expr(e.value)}"

    def expr_Lambda(self, e: ast.Lambda) -> str:
        params = self._bvars(e.params)
        head = params if len(e.params) == 1 and e.params[0].type is None else f"({params})"
        specs = "".join(f" reads {self.expr(r)}" for r in e.reads)
        specs += "".join(f" requires {self.expr(r)}" for r in e.requires)
        return f"{head}{specs} => {self.expr(e.body)}"

    def expr_Let(self, e: ast.Let) -> str:
        pats = ", ".join(self.pat(p) for p in e.pats)
        ghost = "ghost " if e.ghost else ""
        if e.such_that is not None:
            return f"{ghost}var {pats} :| {self.expr(e.such_that)}; {self.expr(e.body)}"
        op = ":-" if e.fail_op else ":="
        return f"{ghost}var {pats} {op} {self._list(e.values)}; {self.expr(e.body)}"

    def expr_IfThenElse(self, e: ast.IfThenElse) -> str:
        if e.binding:
            cond = f"{self._bvars(e.binding)} :| {self.expr(e.cond)}"
        else:
            cond = self.expr(e.cond)
        return f"if {cond} then {self.expr(e.then)} else {self.expr(e.els)}"

    def expr_MatchExpr(self, e: ast.MatchExpr) -> str:
        cases = []
        for c in e.cases:
            body = c.body
            if isinstance(body, tuple):
                raise ValueError("match statement in expression position")
            # A case body that is itself open would swallow the next case: parenthesise it.
            cases.append(f"case {self.pat(c.pattern)} => {self._wrap(body, precedence(body) == _OPEN)}")
        return f"match {self.expr(e.scrutinee)} {{ {' '.join(cases)} }}"

    # ------------------------------------------------------------ two-state and frames

    def expr_Old(self, e: ast.Old) -> str:
        return f"old{'@' + e.label if e.label else ''}({self.expr(e.expr)})"

    def expr_Fresh(self, e: ast.Fresh) -> str:
        return f"fresh{'@' + e.label if e.label else ''}({self.expr(e.expr)})"

    def expr_Allocated(self, e: ast.Allocated) -> str:
        return f"allocated({self.expr(e.expr)})"

    def expr_Unchanged(self, e: ast.Unchanged) -> str:
        return f"unchanged{'@' + e.label if e.label else ''}({self._list(e.exprs)})"

    def expr_FrameField(self, e: ast.FrameField) -> str:
        return f"{self._suffix_base(e.obj)}`{e.field_name}"

    def expr_DecreasesTo(self, e: ast.DecreasesTo) -> str:
        op = "nonincreases to" if e.allow_equal else "decreases to"
        olds = f"{self._list(e.olds)} " if e.olds else ""
        return f"({olds}{op} {self._list(e.news)})"

    def expr_StmtExpr(self, e: ast.StmtExpr) -> str:
        s = e.stmt
        if isinstance(s, ast.AssertStmt) and s.expr is not None:
            return f"{s.kind} {self.expr(s.expr)}; {self.expr(e.expr)}"
        raise ValueError(f"cannot print statement {type(s).__name__} in an expression")

    # ------------------------------------------------------------ types

    def type_NamedType(self, t: ast.NamedType) -> str:
        if t.args and t.name.endswith("?"):
            return f"{t.name[:-1]}<{', '.join(self.type(a) for a in t.args)}>?"
        return t.name + (f"<{', '.join(self.type(a) for a in t.args)}>" if t.args else "")

    def type_TupleType(self, t: ast.TupleType) -> str:
        return f"({', '.join(self.type(a) for a in t.elems)})"

    def type_ArrowType(self, t: ast.ArrowType) -> str:
        if len(t.params) == 1 and not isinstance(t.params[0], (ast.ArrowType, ast.TupleType)):
            params = self.type(t.params[0])
        else:
            params = f"({', '.join(self.type(a) for a in t.params)})"
        return f"{params} {t.arrow} {self.type(t.result)}"

    # ------------------------------------------------------------ patterns

    def pat_PatVar(self, p: ast.PatVar) -> str:
        return ("ghost " if p.ghost else "") + p.name + (f": {self.type(p.type)}" if p.type else "")

    def pat_PatCtor(self, p: ast.PatCtor) -> str:
        return f"{p.name}({', '.join(self.pat(a) for a in p.args)})"

    def pat_PatTuple(self, p: ast.PatTuple) -> str:
        return f"({', '.join(self.pat(a) for a in p.elems)})"

    def pat_PatLit(self, p: ast.PatLit) -> str:
        return self.expr(p.value)

    def pat_PatWild(self, p: ast.PatWild) -> str:
        return "_"

    def pat_PatAlt(self, p: ast.PatAlt) -> str:
        return " | ".join(self.pat(a) for a in p.alts)

    def pat_PatBind(self, p: ast.PatBind) -> str:
        return f"{self.pat(p.pattern)} as {p.name}"


def _op(e: ast.Expr) -> str | None:
    return e.op if isinstance(e, ast.BinOp) else None


def string_literal(text: str) -> str:
    """A Dafny string literal holding `text`, escaped so any target compiles it."""
    return '"' + _escape(text, '"') + '"'


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", "\0": "\\0"}


def _escape(text: str, quote: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch == quote:
            out.append("\\" + ch)
        elif ord(ch) < 32 or ord(ch) > 126:
            out.append(f"\\U{{{ord(ch):X}}}")
        else:
            out.append(ch)
    return "".join(out)


_PRINTER = _Printer()

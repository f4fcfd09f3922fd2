"""Parse tree (from dafny.lark) to the AST of `dafny.ast`, with a Span on every node.

One method per grammar rule or alias; each receives the rule's meta (positions) and its children
(named terminals as lark Tokens, sub-rules already transformed). Declarations live here; expressions,
types and patterns in `transform_exprs`, clauses and statements in `transform_stmts`.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from lark import Token, v_args

from dspec2test.dafny import ast as A
from dspec2test.dafny.transform_base import (
    TYPES, Wrap, decode_escapes, exprs_of, first_of, span, tok_span, wraps, wrap_value, of_type, strs,
)
from dspec2test.dafny.transform_exprs import ExprRules
from dspec2test.dafny.transform_stmts import StmtRules


@v_args(inline=True, meta=True)
class ToAst(ExprRules, StmtRules):
    """Builds `ast` nodes; `text` is the source so clause text can be sliced exactly as written."""

    def __init__(self, text: str, path: str):
        super().__init__(visit_tokens=False)
        self.text = text
        self.path = path
    # ------------------------------------------------------------ program and declarations

    def start(self, meta, *children):
        includes = tuple(of_type(children, A.Include))
        decls = tuple(d for c in children if not isinstance(c, A.Include) for d in _flat(c))
        return A.Program(self.path, includes, decls, text=self.text, span=span(meta))

    def include(self, meta, s):
        return A.Include(decode_escapes(s[1:-1]), span=span(meta))

    def modifier(self, meta, tok):
        return Wrap("mod", str(tok), tok_span(tok))

    def decl(self, meta, *children):
        mods = {c.value: c.span for c in children if isinstance(c, Wrap) and c.kind == "mod"}
        prefix = tuple(c for c in children if isinstance(c, A.Attribute))
        return _apply_mods(children[-1], mods, span(meta), prefix)

    def at_attr(self, meta, name, args):
        return A.Attribute(str(name), tuple(a for a, _ in args.value) if args is not None else (), span=span(meta))

    def attrs(self, meta, *items):
        return Wrap("attrs", tuple(items))

    def attr(self, meta, name, *args):
        return A.Attribute(str(name), exprs_of(args), span=span(meta))

    def dotted(self, meta, *names):
        return Wrap("dotted", ".".join(str(n) for n in names), span(meta))

    def module_decl(self, meta, attrs, name, *rest):
        decls = tuple(d for c in rest if not isinstance(c, Wrap) for d in _flat(c))
        return A.Module(name.value, decls, refines=wrap_value(rest, "refines"), replaces=wrap_value(rest, "replaces"),
                        attributes=attrs.value, span=span(meta))

    def module_refines(self, meta, name):
        return Wrap("refines", name.value)

    def module_replaces(self, meta, name):
        return Wrap("replaces", name.value)

    def import_decl(self, meta, *children):
        imp = children[-1]
        opened = any(isinstance(c, Token) and c.type == "OPENED" for c in children)
        return A.Import(imp.target, imp.alias, opened, imp.abstract, imp.exports, span=span(meta))

    def import_plain(self, meta, target, sel=None):
        return A.Import(target.value, exports=sel or ())

    def import_alias(self, meta, alias, target, sel=None):
        return A.Import(target.value, alias=str(alias), exports=sel or ())

    def import_abstract(self, meta, alias, target, sel=None):
        return A.Import(target.value, alias=str(alias), abstract=True, exports=sel or ())

    def export_sel(self, meta, *names):
        return strs(names)

    def export_decl(self, meta, *children):
        name = str(children[0]) if children and isinstance(children[0], Token) else None
        provides, reveals, extends = [], [], []
        for c in children:
            if isinstance(c, Wrap):
                {"provides": provides, "reveals": reveals, "extends": extends}[c.kind].extend(c.value)
        return A.Export(name, tuple(provides), tuple(reveals), tuple(extends), span=span(meta))

    def export_extends(self, meta, *names):
        return Wrap("extends", strs(names))

    def export_provides(self, meta, names):
        return Wrap("provides", names)

    def export_reveals(self, meta, names):
        return Wrap("reveals", names)

    def export_names(self, meta, *items):
        return tuple("*" if isinstance(i, Token) else i.value for i in items)

    def class_kw(self, meta, tok):
        return str(tok)

    def extends(self, meta, *types):
        return Wrap("extends", tuple(types))

    def class_decl(self, meta, kind, attrs, name, tparams, extends, *members):
        return A.ClassDecl(
            kind, str(name), _members(members), type_params=tparams.value, extends=extends.value,
            attributes=attrs.value, span=span(meta),
        )

    def datatype_kw(self, meta, tok):
        return str(tok)

    def datatype_decl(self, meta, kind, attrs, name, tparams, extends, *rest):
        ctors = tuple(of_type(rest, A.Ctor))
        members = wrap_value(rest, "members", ())
        return A.Datatype(
            str(name), ctors, type_params=tparams.value, members=members, co=kind == "codatatype",
            attributes=attrs.value, extends=extends.value, refining=bool(wraps(rest, "refining")), span=span(meta),
        )

    def refining(self, meta):
        return Wrap("refining", True)

    def ctor(self, meta, *children):
        ghost = isinstance(children[0], Token) and children[0].type == "GHOST"
        attrs, name, *formals = children[1:] if ghost else children
        return A.Ctor(str(name), tuple(f for f in formals if f is not None), attributes=attrs.value, ghost=ghost,
                      span=span(meta))

    def ctor_formal_named(self, meta, attrs, *children):
        mods = {c.value: c.span for c in wraps(children, "mod")}
        *_, name, typ, default = children
        return A.Formal(str(name), typ, ghost="ghost" in mods, default=default, nameonly="nameonly" in mods,
                        attributes=attrs.value, span=span(meta), ghost_span=mods.get("ghost", A.NO_SPAN))

    def ctor_formal_anon(self, meta, attrs, *children):
        mods = {c.value: c.span for c in wraps(children, "mod")}
        return A.Formal("", children[-1], ghost="ghost" in mods, attributes=attrs.value, span=span(meta),
                        ghost_span=mods.get("ghost", A.NO_SPAN))

    def members(self, meta, *decls):
        return Wrap("members", _members(decls))

    def type_chars(self, meta, *chars):
        return Wrap("chars", tuple(chars))

    def type_char(self, meta, *toks):
        return "".join(str(t) for t in toks)

    def type_decl(self, meta, attrs, name, *rest):
        chars = tuple(c for w in wraps(rest, "chars") for c in w.value)
        tparams = next(w for w in wraps(rest, "tparams"))
        members = wrap_value(rest, "members", ())
        rhs = next((c for c in rest if isinstance(c, Wrap) and c.kind in ("synonym", "subset")), None)
        sp = span(meta)
        if rhs is not None and rhs.kind == "subset":
            var, base, constraint, (wkind, witness) = rhs.value
            return A.SubsetType(
                str(name), var, base or _inferred_base(var, constraint, witness), constraint, witness,
                type_params=tparams.value,
                attributes=attrs.value, witness_kind=wkind, span=sp,
            )
        return A.TypeSynonym(
            str(name), rhs.value if rhs else None, type_params=tparams.value, attributes=attrs.value,
            characteristics=chars, members=members, extends=wrap_value(rest, "extends", ()),
            refining=bool(wraps(rest, "refining")), span=sp,
        )

    def type_extends(self, meta, *types):
        return Wrap("extends", tuple(types))

    def synonym_rhs(self, meta, t, witness=None):
        return Wrap("synonym", t) if witness is None else Wrap("newtype_witness", (t, witness.value))

    def subset_rhs(self, meta, var, *rest):
        base = first_of(rest, TYPES)
        exprs = [c for c in rest if not isinstance(c, (Wrap,) + TYPES) and c is not None]
        witness = wrap_value(rest, "witness", ("", None))
        return Wrap("subset", (str(var), base, exprs[0], witness))

    def newtype_decl(self, meta, attrs, name, tparams, extends, rhs, members):
        sp = span(meta)
        common = {"attributes": attrs.value, "members": members.value, "type_params": tparams.value,
                  "extends": extends.value, "span": sp}
        if rhs.kind == "subset":
            var, base, constraint, (wkind, witness) = rhs.value
            return A.Newtype(
                str(name), var, base or _inferred_base(var, constraint, witness), constraint, witness,
                witness_kind=wkind, **common,
            )
        if rhs.kind == "refining":
            return A.Newtype(str(name), None, A.NamedType(""), None, refining=True, **common)
        if rhs.kind == "newtype_witness":  # `newtype N = Base witness W`
            base, (wkind, witness) = rhs.value
            return A.Newtype(str(name), None, base, None, witness, witness_kind=wkind, **common)
        return A.Newtype(str(name), None, rhs.value, None, **common)

    def witness_plain(self, meta, e):
        return Wrap("witness", ("", e))

    def witness_ghost(self, meta, _tok, e):
        return Wrap("witness", ("ghost", e))

    def witness_star(self, meta, _tok):
        return Wrap("witness", ("*", None))

    def field_decl(self, meta, attrs, *groups):
        named = [item for g in groups if g is not None for item in g.value]
        if len(named) == 1:  # the usual `var x: T`: the field's span is the whole declaration
            named = [(named[0][0], named[0][1], span(meta))]
        return Wrap("many", tuple(A.Field(n, t, attributes=attrs.value, span=sp) for n, t, sp in named))

    def field_names(self, meta, name, typ):
        return Wrap("fields", ((str(name), typ, span(meta)),))

    def const_decl(self, meta, attrs, name, *rest):
        typ = first_of(rest, TYPES)
        value = next((c for c in rest if c is not None and not isinstance(c, TYPES + (Wrap,))), None)
        return A.Const(str(name), typ, value, attributes=attrs.value, span=span(meta))

    def opt_name(self, meta, name=None):
        return Wrap("name", str(name) if name is not None else "", tok_span(name) if name is not None else A.NO_SPAN)

    def tparams(self, meta, tp=None):
        return Wrap("tparams", tp or ())

    def type_params(self, meta, *params):
        return tuple(params)

    def variance(self, meta, tok):
        return Wrap("variance", str(tok))

    def type_param(self, meta, *children):
        name = next(str(c) for c in children if isinstance(c, Token))
        return A.TypeParam(
            name, wrap_value(children, "variance", ""), tuple(c for w in wraps(children, "chars") for c in w.value),
            tuple(of_type(children, TYPES)), span=span(meta),
        )

    def specs(self, meta, *clauses):
        return Wrap("specs", tuple(clauses))

    def opt_block(self, meta, block=None):
        return Wrap("block", block)

    def method_kw(self, meta, *toks):
        return " ".join(str(t) for t in toks)

    def returns(self, meta, formals=None):
        return Wrap("returns", formals.value if formals is not None else ())

    def formals(self, meta, *fs):
        return Wrap("formals", tuple(f for f in fs if f is not None))

    def formal_mod(self, meta, tok):
        return Wrap("mod", str(tok), tok_span(tok))

    def formal(self, meta, attrs, *children):
        mods = {c.value for c in wraps(children, "mod")}
        name = next(str(c) for c in children if isinstance(c, Token))
        typ = first_of(children, TYPES)
        default = next((c for c in children if c is not None and not isinstance(c, (Token, Wrap) + TYPES)), None)
        return A.Formal(
            name, typ, ghost="ghost" in mods, default=default, nameonly="nameonly" in mods,
            older="older" in mods, attributes=attrs.value, span=span(meta),
        )

    def k_type(self, meta, name=None):
        return Wrap("k_type", str(name) if name is not None else "")

    def method_decl(self, meta, kind, attrs, name, tparams, k_type, formals, returns, specs, block):
        kind = {"inductive lemma": "least lemma", "colemma": "greatest lemma"}.get(kind, kind)
        return A.Method(
            kind, name.value, formals.value, returns.value, _spec(specs.value), block.value,
            type_params=tparams.value, attributes=attrs.value, ghost=kind != "method" and kind != "constructor",
            k_type=k_type.value, span=span(meta), name_span=name.span,
        )

    def method_refined(self, meta, kind, attrs, name, specs, block):
        empty = Wrap("formals", ())
        return self.method_decl(meta, kind, attrs, name, Wrap("tparams", ()), Wrap("k_type", ""), empty,
                                Wrap("returns", ()), specs, block)

    def function_kw(self, meta, *toks):
        return Wrap("kw", " ".join(str(t) for t in toks), span(meta))

    def opt_result(self, meta, result=None):
        return Wrap("result", result)

    def result_anon(self, meta, t):
        return A.Formal("", t, span=span(meta))

    def result_named(self, meta, name, t):
        return A.Formal(str(name), t, span=span(meta))

    def opt_fbody(self, meta, body=None):
        return Wrap("fbody", body.value if body is not None else (None, None, A.NO_SPAN))

    def function_body(self, meta, expr, by_method=None):
        return Wrap("fbody", (expr, by_method, span(meta)))

    def function_decl(self, meta, keyword, attrs, name, tparams, k_type, formals, result, specs, body):
        expr, by_method, body_span = body.value
        kind = keyword.value
        # Dafny 4 reading: a function is compiled unless declared ghost (Dafny 3's `function method` = function).
        base = kind.removesuffix(" method")
        base = {"inductive predicate": "least predicate", "copredicate": "greatest predicate"}.get(base, base)
        return A.Function(
            base, str(name), formals.value, result.value, _spec(specs.value), expr, by_method,
            type_params=tparams.value, attributes=attrs.value, span=span(meta), method_form=str(kind).endswith(" method"),
            k_type=k_type.value, name_span=tok_span(name), body_span=body_span, keyword_span=keyword.span,
        )

    def function_refined(self, meta, kind, attrs, name, specs, body):
        empty = Wrap("formals", ())
        return self.function_decl(
            meta, kind, attrs, name, Wrap("tparams", ()), Wrap("k_type", ""), empty, Wrap("result", None), specs, body
        )

    def iterator_decl(self, meta, attrs, name, *rest):
        return A.Iterator(str(name), span=span(meta))


def _flat(decl: Any) -> tuple[Any, ...]:
    if isinstance(decl, Wrap) and decl.kind == "many":
        return decl.value
    return (decl,)


def _members(decls: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(d for c in decls if c is not None for d in _flat(c))


def _apply_mods(body: Any, mods: dict[str, A.Span], sp: A.Span, prefix: tuple[A.Attribute, ...] = ()) -> Any:
    """The declaration with its modifiers set (and where its `ghost` is written: the test build takes
    that word out), `@` attributes put first, and the span from the first word."""
    if isinstance(body, Wrap) and body.kind == "many":
        return Wrap("many", tuple(_apply_mods(d, mods, d.span, prefix) for d in body.value))
    names = {f.name for f in fields(body)}
    changes: dict[str, Any] = {"span": sp}
    if prefix and "attributes" in names:
        changes["attributes"] = prefix + body.attributes
    for mod in mods:
        if mod in names and mod != "name":
            changes[mod] = True
    if "ghost" in mods and "ghost_span" in names:
        changes["ghost_span"] = mods["ghost"]
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


def _inferred_base(var: str, constraint: A.Expr, witness: A.Expr | None) -> A.Type:
    """The base type of `type T = x | constraint witness w` written without one: real where the witness or a
    comparison of x in the constraint is a real literal (`r | r >= 0.0 witness 0.0`), else int, as Dafny
    infers for numbers."""
    if isinstance(witness, A.RealLit):
        return A.NamedType("real")
    todo: list[object] = [constraint]
    while todo:
        e = todo.pop()
        pairs: list[tuple[A.Expr, A.Expr]] = []
        if isinstance(e, A.BinOp):
            pairs, todo = [(e.left, e.right)], todo + [e.left, e.right]
        elif isinstance(e, A.Chain):
            pairs = list(zip(e.operands, e.operands[1:]))
        if any(isinstance(a, A.Name) and a.name == var and isinstance(b, A.RealLit)
               or isinstance(b, A.Name) and b.name == var and isinstance(a, A.RealLit) for a, b in pairs):
            return A.NamedType("real")
    return A.NamedType("int")

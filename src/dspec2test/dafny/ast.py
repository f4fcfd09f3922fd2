"""The one AST for Dafny programs: frozen dataclasses, each with the source span it came from.

Built by `dafny.parser` (a lark Transformer over `dafny.lark`); printed back by `dafny.printer`.
Operators are kept as their Dafny spelling ("==>", "!in", "<<") so printing and labels stay faithful.
Tuples, never lists, so every node is hashable and can key caches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Span:
    """1-based line and column of the first character; end_* point just past the last one."""

    line: int
    col: int
    end_line: int
    end_col: int
    start: int = 0  # character offsets into the file text, for slicing source
    end: int = 0


NO_SPAN = Span(0, 0, 0, 0)


@dataclass(frozen=True)
class Node:
    span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True)
class Declared(Node):
    """A declaration: it knows the file it was written in, which in a program of several files (or a
    module that inherits declarations by refinement) need not be the file of its container."""

    origin: str = field(default="", compare=False, repr=False, kw_only=True)  # "" until a program is loaded


@dataclass(frozen=True)
class Attribute(Node):
    name: str  # "test", "testEntry", "axiom", ...
    args: tuple[Expr, ...] = ()


# ---------------------------------------------------------------- types


@dataclass(frozen=True)
class NamedType(Node):
    """int, nat, bool, char, real, string, ORDINAL, object, bv8, array2?, seq<T>, map<K,V>, M.T<U>..."""

    name: str  # possibly dotted, possibly with a trailing "?" (array?, object?)
    args: tuple[Type, ...] = ()


@dataclass(frozen=True)
class TupleType(Node):
    elems: tuple[Type, ...]  # () is the unit type


@dataclass(frozen=True)
class ArrowType(Node):
    params: tuple[Type, ...]
    result: Type
    arrow: str = "->"  # "->" total, "-->" partial, "~>" reads heap


Type = Union[NamedType, TupleType, ArrowType]


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class IntLit(Node):
    value: int
    text: str = ""  # as written: "0x1F", "1_000"


@dataclass(frozen=True)
class RealLit(Node):
    text: str  # as written, e.g. "3.14"; one written with an exponent (`1.5e2`) is kept as its decimal "150.0"


@dataclass(frozen=True)
class BoolLit(Node):
    value: bool


@dataclass(frozen=True)
class CharLit(Node):
    value: str  # the decoded character
    text: str = ""  # as written, with quotes


@dataclass(frozen=True)
class StringLit(Node):
    value: str  # decoded
    text: str = ""  # as written, with quotes (and @ for verbatim strings)
    verbatim: bool = False


@dataclass(frozen=True)
class NullLit(Node):
    pass


@dataclass(frozen=True)
class ThisExpr(Node):
    pass


@dataclass(frozen=True)
class Wildcard(Node):
    """`*` in decreases, modifies, reads, or a havoc right-hand side."""


@dataclass(frozen=True)
class Name(Node):
    name: str
    type_args: tuple[Type, ...] = ()


@dataclass(frozen=True)
class BinOp(Node):
    """<==> ==> <== && || !! == != < <= > >= in !in + - * / % & | ^ << >> and ==#[k] (op "==#")."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Chain(Node):
    """A chained comparison of three or more operands, `0 <= i < j <= |s|`; two operands are a BinOp."""

    operands: tuple[Expr, ...]
    ops: tuple[str, ...]  # len(ops) == len(operands) - 1


@dataclass(frozen=True)
class UnOp(Node):
    op: str  # "-" or "!"
    operand: Expr


@dataclass(frozen=True)
class Cardinality(Node):
    expr: Expr  # |e|


@dataclass(frozen=True)
class MemberSelect(Node):
    """`obj.name`, also `t.0` on tuples and qualified names `M.f` before resolution."""

    obj: Expr
    name: str
    type_args: tuple[Type, ...] = ()


@dataclass(frozen=True)
class Call(Node):
    callee: Expr  # Name or MemberSelect
    args: tuple[Expr, ...]
    arg_names: tuple[str | None, ...] = ()  # named arguments `f(x := 1)`; empty when none are named
    label: str | None = None  # two-state calls `f@L(...)`


@dataclass(frozen=True)
class Index(Node):
    """`s[i]`; multi-dimensional array access `a[i, j]` has several indices."""

    seq: Expr
    indices: tuple[Expr, ...]


@dataclass(frozen=True)
class Slice(Node):
    """`s[lo..hi]` with either bound optional; `s[..]` has neither. `s[a:b:c]` splits into parts."""

    seq: Expr
    lo: Expr | None
    hi: Expr | None
    parts: tuple[Expr, ...] = ()  # for `s[e1 : e2 : ...]` (slices into sub-sequences), else ()


@dataclass(frozen=True)
class Update(Node):
    """`s[i := v]` on sequences and maps; several updates `m[a := 1, b := 2]` nest left to right."""

    seq: Expr
    index: Expr
    value: Expr


@dataclass(frozen=True)
class DatatypeUpdate(Node):
    obj: Expr
    updates: tuple[tuple[str, Expr], ...]  # d.(f := v, g := w)


@dataclass(frozen=True)
class SeqDisplay(Node):
    elems: tuple[Expr, ...]


@dataclass(frozen=True)
class SetDisplay(Node):
    elems: tuple[Expr, ...]
    infinite: bool = False  # iset{...}


@dataclass(frozen=True)
class MultisetDisplay(Node):
    elems: tuple[Expr, ...]


@dataclass(frozen=True)
class MultisetConv(Node):
    """`multiset(e)` from a sequence or set."""

    expr: Expr


@dataclass(frozen=True)
class MapDisplay(Node):
    items: tuple[tuple[Expr, Expr], ...]
    infinite: bool = False  # imap[...]


@dataclass(frozen=True)
class SeqInit(Node):
    """`seq(n, f)` / `seq<T>(n, i => e)`."""

    length: Expr
    init: Expr
    elem_type: Type | None = None


@dataclass(frozen=True)
class BoundVar(Node):
    name: str
    type: Type | None = None


@dataclass(frozen=True)
class Quantifier(Node):
    """`forall x: int, y | range :: body`; the range is optional."""

    kind: str  # "forall" | "exists"
    vars: tuple[BoundVar, ...]
    range: Expr | None
    body: Expr
    attributes: tuple[Attribute, ...] = ()


@dataclass(frozen=True)
class SetComprehension(Node):
    """`set x | range :: term`; term None means the bound variable itself."""

    vars: tuple[BoundVar, ...]
    range: Expr | None
    term: Expr | None
    infinite: bool = False


@dataclass(frozen=True)
class MapComprehension(Node):
    """`map x | range :: value` or `map x | range :: key := value`."""

    vars: tuple[BoundVar, ...]
    range: Expr | None
    key: Expr | None
    value: Expr
    infinite: bool = False


@dataclass(frozen=True)
class Lambda(Node):
    params: tuple[BoundVar, ...]
    body: Expr
    reads: tuple[Expr, ...] = ()
    requires: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Let(Node):
    """`var p1, p2 := e1, e2; body` (patterns allowed) or `var x :| cond; body` (such_that)."""

    pats: tuple[Pattern, ...]
    values: tuple[Expr, ...]  # empty for let-such-that
    body: Expr
    such_that: Expr | None = None
    ghost: bool = False
    fail_op: bool = False  # `var x :- e; body`


@dataclass(frozen=True)
class IfThenElse(Node):
    cond: Expr
    then: Expr
    els: Expr
    binding: tuple[BoundVar, ...] = ()  # `if x :| P(x) then ...` binding form


@dataclass(frozen=True)
class MatchCase(Node):
    pattern: Pattern
    body: Expr | tuple[Stmt, ...]  # an expression in match expressions, statements in match statements
    attributes: tuple[Attribute, ...] = ()


@dataclass(frozen=True)
class MatchExpr(Node):
    scrutinee: Expr
    cases: tuple[MatchCase, ...]


@dataclass(frozen=True)
class Old(Node):
    expr: Expr
    label: str | None = None


@dataclass(frozen=True)
class Fresh(Node):
    expr: Expr
    label: str | None = None


@dataclass(frozen=True)
class Allocated(Node):
    expr: Expr


@dataclass(frozen=True)
class Unchanged(Node):
    exprs: tuple[Expr, ...]
    label: str | None = None


@dataclass(frozen=True)
class TupleExpr(Node):
    elems: tuple[Expr, ...]  # () is the unit value


@dataclass(frozen=True)
class TypeTest(Node):
    expr: Expr
    type: Type  # e is T


@dataclass(frozen=True)
class Cast(Node):
    expr: Expr
    type: Type  # e as T


@dataclass(frozen=True)
class FrameField(Node):
    """`o`f` in reads/modifies frames."""

    obj: Expr
    field_name: str


@dataclass(frozen=True)
class DecreasesTo(Node):
    """`a, b decreases to c, d`: the termination order as a boolean (`nonincreases to`: allow_equal)."""

    olds: tuple[Expr, ...]
    news: tuple[Expr, ...]
    allow_equal: bool = False


@dataclass(frozen=True)
class StmtExpr(Node):
    """A statement in expression position: `assert P; e`, `assume P; e`, `calc {...} e`, `L(x); e`, `reveal f(); e`."""

    stmt: Stmt
    expr: Expr


Expr = Union[
    IntLit, RealLit, BoolLit, CharLit, StringLit, NullLit, ThisExpr, Wildcard, Name, BinOp, Chain, UnOp,
    Cardinality, MemberSelect, Call, Index, Slice, Update, DatatypeUpdate, SeqDisplay, SetDisplay,
    MultisetDisplay, MultisetConv, MapDisplay, SeqInit, Quantifier, SetComprehension, MapComprehension,
    Lambda, Let, IfThenElse, MatchExpr, Old, Fresh, Allocated, Unchanged, TupleExpr, TypeTest, Cast,
    FrameField, StmtExpr, DecreasesTo,
]


# ---------------------------------------------------------------- patterns


@dataclass(frozen=True)
class PatVar(Node):
    """A variable (or a nullary constructor, told apart only at resolution), optionally typed."""

    name: str
    type: Type | None = None
    ghost: bool = False


@dataclass(frozen=True)
class PatCtor(Node):
    name: str  # possibly dotted
    args: tuple[Pattern, ...]


@dataclass(frozen=True)
class PatTuple(Node):
    elems: tuple[Pattern, ...]


@dataclass(frozen=True)
class PatLit(Node):
    value: Expr  # literal, possibly negated


@dataclass(frozen=True)
class PatWild(Node):
    pass


@dataclass(frozen=True)
class PatAlt(Node):
    """`A | B` disjunctive patterns in a case."""

    alts: tuple[Pattern, ...]


@dataclass(frozen=True)
class PatBind(Node):
    """`C(x) as y`."""

    pattern: Pattern
    name: str


Pattern = Union[PatVar, PatCtor, PatTuple, PatLit, PatWild, PatAlt, PatBind]


# ---------------------------------------------------------------- specifications


@dataclass(frozen=True)
class Clause(Node):
    """One specification clause: `requires L: e` / `ensures e` / `modifies a, b` / `decreases x, y`."""

    kind: str  # requires | ensures | modifies | reads | decreases | invariant | yield requires | ...
    exprs: tuple[Expr, ...]  # one for boolean clauses, several for frames and decreases
    label: str | None = None
    attributes: tuple[Attribute, ...] = ()
    text: str = ""  # the clause's expression source text, as written
    free: bool = False
    # the file it was written in: a member a refining module declares again keeps the refined one's clauses
    origin: str = field(default="", compare=False, repr=False, kw_only=True)

    @property
    def expr(self) -> Expr:
        return self.exprs[0]


@dataclass(frozen=True)
class Spec(Node):
    requires: tuple[Clause, ...] = ()
    ensures: tuple[Clause, ...] = ()
    modifies: tuple[Clause, ...] = ()
    reads: tuple[Clause, ...] = ()
    decreases: tuple[Clause, ...] = ()
    other: tuple[Clause, ...] = ()  # invariant, yield requires/ensures and the like


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Block(Node):
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True)
class ExprRhs(Node):
    expr: Expr
    attributes: tuple[Attribute, ...] = ()


@dataclass(frozen=True)
class NewArray(Node):
    """`new T[n, m]`, `new T[n](f)`, `new T[] [1, 2]`."""

    elem_type: Type | None
    dims: tuple[Expr, ...]
    init: Expr | None = None
    elems: tuple[Expr, ...] | None = None


@dataclass(frozen=True)
class NewObject(Node):
    """`new C`, `new C(args)`, `new C.Init(args)`."""

    type: Type
    ctor: str | None = None
    args: tuple[Expr, ...] | None = None


@dataclass(frozen=True)
class HavocRhs(Node):
    pass


Rhs = Union[ExprRhs, NewArray, NewObject, HavocRhs]


@dataclass(frozen=True)
class VarDecl(Node):
    """`var a: T, b := e1, e2;`, `var (x, y) := p;`, `var x :| P;`, `var x :- e;`."""

    pats: tuple[Pattern, ...]
    rhs: tuple[Rhs, ...] = ()
    op: str | None = None  # ":=", ":-", ":|" or None for a bare declaration
    such_that: Expr | None = None
    ghost: bool = False
    attributes: tuple[Attribute, ...] = ()
    ghost_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)  # its `ghost` word


@dataclass(frozen=True)
class Assign(Node):
    """`a, b := e1, e2;`, `x :- e;`, `x :| P;`, or a bare call/expression statement (op None, no lhs)."""

    lhs: tuple[Expr, ...]
    rhs: tuple[Rhs, ...]
    op: str | None = ":="
    such_that: Expr | None = None


@dataclass(frozen=True)
class GuardedAlt(Node):
    guard: Expr
    body: tuple[Stmt, ...]
    invariants: tuple[Clause, ...] = ()
    binding: tuple[BoundVar, ...] = ()  # `case x :| P(x) => ...` binds x in the body


@dataclass(frozen=True)
class If(Node):
    guard: Expr | None  # None for `if *`
    then: Block
    els: Block | If | None = None
    binding: tuple[BoundVar, ...] = ()  # `if x :| P(x) { }`


@dataclass(frozen=True)
class AltIf(Node):
    alts: tuple[GuardedAlt, ...]  # `if { case g => S ... }`


@dataclass(frozen=True)
class While(Node):
    guard: Expr | None  # None for `while *`
    spec: tuple[Clause, ...]  # invariant, decreases, modifies
    body: Block | None
    alts: tuple[GuardedAlt, ...] = ()  # `while { case ... }` (then guard and body are None)


@dataclass(frozen=True)
class For(Node):
    var: BoundVar
    lo: Expr
    hi: Expr | None  # None for `to *`
    down: bool
    spec: tuple[Clause, ...]
    body: Block | None


@dataclass(frozen=True)
class MatchStmt(Node):
    scrutinee: Expr
    cases: tuple[MatchCase, ...]


@dataclass(frozen=True)
class Return(Node):
    rhs: tuple[Rhs, ...] = ()


@dataclass(frozen=True)
class Yield(Node):
    rhs: tuple[Rhs, ...] = ()


@dataclass(frozen=True)
class AssertStmt(Node):
    """assert / assume / expect; `expect e, msg`; `assert L: e by { ... }`."""

    kind: str  # "assert" | "assume" | "expect"
    expr: Expr | None  # None for `assert ...` ellipsis in refinement
    label: str | None = None
    by: Block | None = None
    message: Expr | None = None
    attributes: tuple[Attribute, ...] = ()


@dataclass(frozen=True)
class Print(Node):
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class CalcStep(Node):
    expr: Expr
    op: str | None = None  # the operator before this line, e.g. "==", "<=", "==>", None for default
    hint: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class Calc(Node):
    op: str | None
    steps: tuple[CalcStep, ...]


@dataclass(frozen=True)
class ForallStmt(Node):
    vars: tuple[BoundVar, ...]
    range: Expr | None
    ensures: tuple[Clause, ...]
    body: Block | None


@dataclass(frozen=True)
class Modify(Node):
    frames: tuple[Expr, ...]
    body: Block | None = None


@dataclass(frozen=True)
class Break(Node):
    label: str | None = None
    count: int = 1  # `break break;`
    is_continue: bool = False


@dataclass(frozen=True)
class Reveal(Node):
    """`reveal f, g;` (`hide` with hide set; `*` with every set): proof directives, no runtime effect."""

    exprs: tuple[Expr, ...]
    hide: bool = False
    every: bool = False


@dataclass(frozen=True)
class Labeled(Node):
    label: str
    stmt: Stmt


@dataclass(frozen=True)
class OpaqueBlock(Node):
    """`opaque ensures ... { }` blocks."""

    spec: tuple[Clause, ...]
    body: Block


@dataclass(frozen=True)
class NewPhase(Node):
    """`new;` in a constructor body: the end of its initialization phase."""


@dataclass(frozen=True)
class Skeleton(Node):
    """`...;` in a refinement module: the statements kept from the refined method."""


Stmt = Union[
    Block, VarDecl, Assign, If, AltIf, While, For, MatchStmt, Return, Yield, AssertStmt, Print, Calc,
    ForallStmt, Modify, Break, Reveal, Labeled, OpaqueBlock, NewPhase, Skeleton,
]


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class TypeParam(Node):
    name: str
    variance: str = ""  # "+", "-", "*", "!" or ""
    characteristics: tuple[str, ...] = ()  # "==", "0", "00", "!new"
    bounds: tuple[Type, ...] = ()


@dataclass(frozen=True)
class Formal(Node):
    name: str
    type: Type
    ghost: bool = False
    default: Expr | None = None
    nameonly: bool = False
    older: bool = False
    attributes: tuple[Attribute, ...] = ()
    lifted: bool = False  # a ghost constructor parameter compiled in the test build (testbuild/)
    ghost_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)  # its `ghost` word

    @property
    def ghost_in_tests(self) -> bool:
        """Ghost where the tests run: declared ghost and not lifted by the test build."""
        return self.ghost and not self.lifted


@dataclass(frozen=True)
class Method(Declared):
    """method, lemma, constructor, twostate lemma, least/greatest lemma."""

    kind: str  # "method" | "lemma" | "constructor" | "twostate lemma" | "least lemma" | "greatest lemma"
    name: str  # "" for an anonymous constructor
    params: tuple[Formal, ...]
    returns: tuple[Formal, ...]
    spec: Spec
    body: Block | None
    type_params: tuple[TypeParam, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    ghost: bool = False
    static: bool = False
    k_type: str = ""  # a least or greatest lemma's `[nat]` / `[ORDINAL]`, as written
    name_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)  # where the name is written


@dataclass(frozen=True)
class Function(Declared):
    """function, predicate, least/greatest predicate, twostate function; optionally `by method`."""

    kind: str  # "function" | "predicate" | "least predicate" | "greatest predicate" | "twostate function"...
    name: str
    params: tuple[Formal, ...]
    result: Formal | None  # named result `: (r: int)` or an anonymous one (name "") ; None for predicates
    spec: Spec
    body: Expr | None
    by_method: Block | None = None
    type_params: tuple[TypeParam, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    ghost: bool = False  # declared ghost (under --function-syntax:3, the loader makes every plain `function` ghost)
    static: bool = False
    method_form: bool = False  # written `function method` / `predicate method` (Dafny 3's compiled form)
    k_type: str = ""  # a least or greatest predicate's `[nat]` / `[ORDINAL]`, as written
    name_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)  # where the name is written
    # from the body's `{` to the end of its `by method` block, if any (NO_SPAN: no body)
    body_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)
    lifted: bool = False  # ghost as written, compiled in the test build (testbuild/)
    ghost_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)  # its `ghost` word
    keyword_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)  # `function`, `predicate`

    @property
    def ghost_in_tests(self) -> bool:
        """Ghost where the tests run: declared ghost (or of a kind that always is) and not lifted by the
        test build."""
        return (self.ghost or self.kind not in ("function", "predicate")) and not self.lifted

    @property
    def result_type(self) -> Type:
        return self.result.type if self.result else NamedType("bool")


@dataclass(frozen=True)
class Field(Declared):
    name: str
    type: Type
    ghost: bool = False
    attributes: tuple[Attribute, ...] = ()
    lifted: bool = False  # ghost as written, compiled in the test build (testbuild/)
    ghost_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)  # its `ghost` word

    @property
    def ghost_in_tests(self) -> bool:
        """Ghost where the tests run: declared ghost and not lifted by the test build."""
        return self.ghost and not self.lifted


@dataclass(frozen=True)
class Const(Declared):
    name: str
    type: Type | None
    value: Expr | None
    ghost: bool = False
    static: bool = False
    attributes: tuple[Attribute, ...] = ()
    lifted: bool = False  # ghost as written, compiled in the test build (testbuild/)
    ghost_span: Span = field(default=NO_SPAN, compare=False, repr=False, kw_only=True)  # its `ghost` word

    @property
    def ghost_in_tests(self) -> bool:
        """Ghost where the tests run: declared ghost and not lifted by the test build."""
        return self.ghost and not self.lifted


@dataclass(frozen=True)
class Ctor(Declared):
    """A datatype constructor with its (possibly named) formals."""

    name: str
    params: tuple[Formal, ...]
    attributes: tuple[Attribute, ...] = ()
    ghost: bool = False  # `datatype D = ghost A | B`: A exists only in specifications


@dataclass(frozen=True)
class Datatype(Declared):
    """A datatype; one written `datatype D ... { }` in a refining module has no constructors of its own."""

    name: str
    ctors: tuple[Ctor, ...]
    type_params: tuple[TypeParam, ...] = ()
    members: tuple[Decl, ...] = ()
    co: bool = False
    attributes: tuple[Attribute, ...] = ()
    extends: tuple[Type, ...] = ()
    refining: bool = False  # `datatype D ... { }`: the refined module's D, with more members


@dataclass(frozen=True)
class TypeSynonym(Declared):
    """`type T<A> = rhs`; an opaque `type T` has rhs None."""

    name: str
    rhs: Type | None
    type_params: tuple[TypeParam, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    characteristics: tuple[str, ...] = ()
    members: tuple[Decl, ...] = ()
    extends: tuple[Type, ...] = ()  # an abstract type's traits: `type T extends Tr { ... }`
    refining: bool = False  # `type T ... { }`: the refined module's T, with more members


@dataclass(frozen=True)
class SubsetType(Declared):
    """`type T = x: Base | constraint witness W` (and `ghost witness`, `witness *`)."""

    name: str
    var: str
    base: Type
    constraint: Expr
    witness: Expr | None = None
    type_params: tuple[TypeParam, ...] = ()
    attributes: tuple[Attribute, ...] = ()
    witness_kind: str = ""  # "", "ghost", "*"


@dataclass(frozen=True)
class Newtype(Declared):
    """`newtype T = x: Base | constraint` or `newtype T = Base`."""

    name: str
    var: str | None
    base: Type
    constraint: Expr | None
    witness: Expr | None = None
    attributes: tuple[Attribute, ...] = ()
    members: tuple[Decl, ...] = ()
    witness_kind: str = ""
    type_params: tuple[TypeParam, ...] = ()
    extends: tuple[Type, ...] = ()
    # `newtype N ... { }`: the refined module's N with more members; until the loader merges them, its
    # base is unknown (an empty name)
    refining: bool = False


@dataclass(frozen=True)
class ClassDecl(Declared):
    kind: str  # "class" | "trait"
    name: str
    members: tuple[Decl, ...]
    type_params: tuple[TypeParam, ...] = ()
    extends: tuple[Type, ...] = ()
    attributes: tuple[Attribute, ...] = ()


@dataclass(frozen=True)
class Iterator(Declared):
    """Iterators are only skipped: kept with their name and span."""

    name: str


@dataclass(frozen=True)
class Import(Declared):
    target: str  # dotted module path
    alias: str | None = None
    opened: bool = False
    abstract: bool = False  # `import A : B`
    exports: tuple[str, ...] = ()  # `import M`{E1, E2}`


@dataclass(frozen=True)
class Export(Declared):
    name: str | None
    provides: tuple[str, ...] = ()
    reveals: tuple[str, ...] = ()
    extends: tuple[str, ...] = ()


@dataclass(frozen=True)
class Module(Declared):
    name: str  # possibly dotted `module A.B`
    decls: tuple[Decl, ...]
    refines: str | None = None
    replaces: str | None = None  # `module N replaces M`: N is the implementation of the replaceable M
    abstract: bool = False
    replaceable: bool = False
    attributes: tuple[Attribute, ...] = ()


@dataclass(frozen=True)
class Unreadable(Declared):
    """A declaration the parser could not read: the parser skipped it to the next declaration of its
    module, class or file (dafny/recover.py) and read the rest. Kept with what is known of it, so that
    later stages refuse it, and what uses it, with the reason instead of not knowing its name. Its span is
    the whole declaration; the error's position is its own."""

    kind: str  # its keyword(s) as written: "method", "least predicate", "class", ...; "" when none was found
    name: str  # "" when none was found
    message: str  # what the parser could not read: "unexpected '...', expected one of ..."
    error_line: int
    error_col: int
    ghost: bool = False  # declared `ghost`

    @property
    def member_name(self) -> str:
        """Its name as members are listed: `_ctor` for an anonymous constructor, `#12` (its line) where no
        name was found."""
        return self.name or ("_ctor" if self.kind == "constructor" else f"#{self.span.line}")

    @property
    def described(self) -> str:
        """`method Foo`, `class C`, or `the declaration` where neither is known."""
        return " ".join(p for p in (self.kind, self.name) if p) or "the declaration"

    @property
    def reason(self) -> str:
        """Why it is not tested, for every report: what could not be read, and where."""
        return (f"dspec2test cannot read {self.described} (lines {self.span.line}-{self.span.end_line}): "
                f"{self.message} at {self.error_line}:{self.error_col}")


Decl = Union[
    Method, Function, Field, Const, Datatype, TypeSynonym, SubsetType, Newtype, ClassDecl, Iterator, Import,
    Export, Module, Unreadable,
]


@dataclass(frozen=True)
class Include(Node):
    path: str


@dataclass(frozen=True)
class Program(Node):
    path: str
    includes: tuple[Include, ...]
    decls: tuple[Decl, ...]
    text: str = field(default="", compare=False, repr=False)  # the source, for clause text and snippets
    # A program of several files (its includes, or a project's files): each file as parsed alone, the
    # root first; `decls` is then all of theirs. Empty for a program of one file.
    files: tuple[Program, ...] = field(default=(), compare=False, repr=False)

    @property
    def sources(self) -> tuple[Program, ...]:
        """The files of the program, each with its own path, text and declarations."""
        return self.files or (self,)

    def source(self, path: str) -> Program:
        """The file of the program named `path` (the program itself when none is)."""
        return next((f for f in self.files if f.path == path), self)


# Fields that are not sub-trees: the position, and a program's per-file copies of its own declarations.
NOT_CHILDREN = frozenset({"span", "files"})


def preorder(root: object):
    """Every AST node inside root (root included, if a node), parents before children, in field order."""
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, Node):
            yield x
            stack.extend(reversed([v for k, v in vars(x).items() if k not in NOT_CHILDREN]))
        elif isinstance(x, tuple):
            stack.extend(reversed(x))

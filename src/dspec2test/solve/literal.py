"""Z3 models to plain Python values, those to Dafny literal text, and back to Z3 terms (for exclusion
and pinning). Plain values: int (also chars and bitvectors), bool, Fraction, tuples for sequences,
sets (in rep order), multisets, tuples and map items, `Data` for datatype values, `Func` for functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import z3

from dspec2test.errors import Unsupported
from dspec2test.model.resolve import RType
from dspec2test.solve.context import model_int
from dspec2test.solve.funcs import Rule, rule_of, rule_text
from dspec2test.solve.recursive import Read
from dspec2test.solve.types import Types
from dspec2test.solve.values import TV, FuncV, MapV, MultisetV, ObjV, SetV


@dataclass(frozen=True)
class Data:
    ctor: str
    args: tuple


@dataclass(frozen=True)
class ObjRef:
    """An object: its identity (0: null) and which of its possible classes it is built as."""

    id: int
    cls: int = 0


@dataclass(frozen=True)
class Atom:
    """A string the solver only compared: a literal's (negative) or a free one's identity."""

    id: int


@dataclass(frozen=True)
class Func:
    entries: tuple  # ((args...), value)
    default: object  # the value beyond the entries (at some point, when it depends on the arguments)
    rule: Rule | None = None  # the value beyond the entries as an expression of the arguments (funcs.py)


_RULE_KINDS = ("int", "bool", "real")  # types whose Z3 terms a rule prints as Dafny as they are


# ---------------------------------------------------------------- reading models


def read_var(model: z3.ModelRef, tv: TV, types: Types):
    v = tv.v
    b = tv.t.base
    if isinstance(v, FuncV):
        fn = v.fn.translate(model.ctx)
        interp = model[fn] if any(fn.eq(d) for d in model.decls()) else None
        ptypes, rt = b.args[:-1], b.args[-1]
        if interp is None:
            return Func((), read_term(model, z3.FreshConst(types.sort(rt)), rt, types, complete=True))
        entries = []
        for row in interp.as_list()[:-1]:
            args = tuple(read_term(model, a, t, types) for a, t in zip(row[:-1], ptypes))
            entries.append((args, read_term(model, row[-1], rt, types)))
        rest = interp.else_value()
        rule = None
        if not _ground(rest) and all(t.base.kind in _RULE_KINDS for t in (*ptypes, rt)):
            rule = rule_of(model, rest)
        return Func(tuple(entries), read_term(model, rest, rt, types), rule)
    if isinstance(v, (SetV, MultisetV, MapV)):
        return read_term(model, v.rep, tv.t, types)
    if isinstance(v, ObjV):
        cls = read_term(model, v.cls, RType("int"), types) if v.cls is not None else 0
        return ObjRef(read_term(model, v.id, RType("int"), types), cls)
    return read_term(model, v, tv.t, types)


class Approximate(Fraction):
    """An irrational real of a model, approximated: a literal of it is not the model's value."""


def _int_in(model: z3.ModelRef, term, what: str) -> int:
    n = model_int(model, term)
    if n is None:
        raise Unsupported(f"{what} the solver's model does not evaluate (a recursive function's value)")
    return n


def read_term(model: z3.ModelRef, term, t: RType, types: Types, complete: bool = True):
    b = t.base
    k = "atom" if types.is_atom(b) else b.kind
    if term.ctx != z3.main_ctx():  # function table entries come in the model's own context
        term = term.translate(z3.main_ctx())
    val = model.eval(term.translate(model.ctx), model_completion=complete)
    if k in ("int", "char", "bv", "class"):
        return val.as_long() if z3.is_int_value(val) or z3.is_bv_value(val) else 0
    if k == "atom":
        return Atom(val.as_long() if z3.is_int_value(val) else 0)
    if k == "bool":
        return z3.is_true(val)
    if k == "real":
        if z3.is_rational_value(val):
            return Fraction(val.numerator_as_long(), val.denominator_as_long())
        if z3.is_algebraic_value(val):
            return Approximate(val.approx(6).as_fraction())
        return Fraction(0)
    if k in ("seq", "array", "set", "multiset"):
        n = _int_in(model, z3.Length(term).translate(model.ctx), "the length of a sequence")
        return tuple(read_term(model, term[i], b.args[0], types) for i in range(n))
    if k in ("array2", "array3"):  # rows (of rows) of elements
        tv = TV(term, t)
        dims = [_int_in(model, d.translate(model.ctx), "the length of an array") for d in types.dims(tv)]

        def rows(prefix: list) -> tuple:
            if len(prefix) == len(dims):
                return read_term(model, types.to_rep(types.cell(tv, [z3.IntVal(i) for i in prefix])), b.args[0], types)
            return tuple(rows(prefix + [i]) for i in range(dims[len(prefix)]))

        return rows([])
    if k == "map":
        srt = types.sort(b)
        keys = read_term(model, srt.accessor(0, 0)(term), RType("seq", (b.args[0],)), types)
        vals = read_term(model, srt.accessor(0, 1)(term), RType("seq", (b.args[1],)), types)
        # a key twice (a map held in a datatype has no canonical rep): the solver reads the first one's value
        return tuple((kk, v) for i, (kk, v) in enumerate(zip(keys, vals)) if kk not in keys[:i])
    if k == "tuple":
        _, accs = types.tuple_make[RType(b.kind, b.args, b.width, b.name)]
        return tuple(read_term(model, acc(term), et, types) for acc, et in zip(accs, b.args))
    if k == "data":
        types.sort(b)
        # this instantiation's constructor: Result<R, E> and Result<seq<R>, E> share the name Success
        info = next((i for i in types.ctors_of(b) if i.ctor.name == val.decl().name()), None)
        if info is None:
            return Data("?", ())
        # a field held as a list (recursive.py): its cells walked, into a term of the values they hold
        return Data(info.ctor.name, tuple(read_term(model, acc.in_model(model, term) if isinstance(acc, Read) else acc(term),
                                                    ft, types) for _, ft, acc in info.fields))
    if k == "arrow":  # a function held in a datatype or collection: an array, stores over a constant
        return _read_table(model, val, b, types)
    raise ValueError(f"cannot read a {k} value")


def _read_table(model: z3.ModelRef, val, b: RType, types: Types) -> Func:
    ptypes, rt = b.args[:-1], b.args[-1]
    index = ptypes[0] if len(ptypes) == 1 else RType("tuple", ptypes)

    def args_of(i) -> tuple:
        got = read_term(model, i, index, types)
        return (got,) if len(ptypes) == 1 else tuple(got)

    entries: list[tuple[tuple, object]] = []
    seen: set = set()
    while z3.is_store(val):  # the latest store first: it is the one that counts for its index
        arr, i, v = val.children()
        args = args_of(i)
        if args not in seen:
            seen.add(args)
            entries.append((args, read_term(model, v, rt, types)))
        val = arr
    if z3.is_K(val):
        return Func(tuple(reversed(entries)), read_term(model, val.arg(0), rt, types))
    if z3.is_as_array(val):
        interp = model[z3.get_as_array_func(val)]
        rows = [(args_of(row[0]), read_term(model, row[-1], rt, types)) for row in interp.as_list()[:-1]]
        rows = [(a, x) for a, x in rows if a not in seen]
        rest = interp.else_value()
        default = read_term(model, rest, rt, types) if _ground(rest) else \
            read_term(model, z3.FreshConst(types.sort(rt)), rt, types)
        return Func(tuple(reversed(entries)) + tuple(rows), default)
    # any other array term (a lambda the model kept): one value, read at an arbitrary argument
    return Func(tuple(reversed(entries)), read_term(model, z3.FreshConst(types.sort(rt)), rt, types))


# ---------------------------------------------------------------- Dafny literal text

_ESC = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def _char_body(c: int, quote: str) -> str:
    ch = chr(c)
    if ch == quote:
        return "\\" + ch
    if ch in _ESC:
        return _ESC[ch]
    if 32 <= c < 127:
        return ch
    return "\\U{%X}" % c


def char_lit(c: int) -> str:
    return "'" + _char_body(c, "'") + "'"


def string_lit(cs) -> str:
    return '"' + "".join(_char_body(c, '"') for c in cs) + '"'


def real_lit(x: Fraction) -> str:
    n, d = x.numerator, x.denominator
    d2, twos, fives = d, 0, 0
    while d2 % 2 == 0:
        d2, twos = d2 // 2, twos + 1
    while d2 % 5 == 0:
        d2, fives = d2 // 5, fives + 1
    if d2 != 1:
        return f"({n}.0 / {d}.0)"
    places = max(twos, fives)
    scaled = abs(n) * (10 ** places) // d
    sign = "-" if n < 0 else ""
    if places == 0:
        return f"{sign}{scaled}.0"
    digits = str(scaled).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _sort_key(pv, t: RType, types: Types | None):
    k = t.base.kind
    if isinstance(pv, Atom):
        return (0, pv.id, "")
    if k in ("int", "char", "bv", "real", "bool"):
        return (0, pv, "")
    return (1, 0, literal(pv, t, types))  # a datatype value's text needs the types (a set of them)


def literal(pv, t: RType, types: Types | None) -> str:
    """Dafny text for a plain value of type t (a test file in the default module can use it)."""
    b = t.base
    k = b.kind
    if k in ("int", "bv"):
        return str(pv)
    if k == "bool":
        return "true" if pv else "false"
    if k == "char":
        return char_lit(pv)
    if k == "real":
        return real_lit(pv)
    if isinstance(pv, Atom):
        return string_lit([ord(c) for c in atom_text(pv, types)])
    if k in ("seq", "array"):
        if b.args[0].base.kind == "char":
            return string_lit(pv)
        return "[" + ", ".join(literal(x, b.args[0], types) for x in pv) + "]"
    if k in ("array2", "array3"):  # as nested sequences: the test builds the array from them
        inner = RType("array2", b.args) if k == "array3" else RType("seq", b.args)
        return "[" + ", ".join(literal(x, inner, types) for x in pv) + "]"
    if k == "set":  # (a set of sequences may list an element twice: its rep is not canonical)
        items = sorted(dict.fromkeys(pv), key=lambda x: _sort_key(x, b.args[0], types))
        return "{" + ", ".join(literal(x, b.args[0], types) for x in items) + "}"
    if k == "multiset":
        items = sorted(pv, key=lambda x: _sort_key(x, b.args[0], types))
        return "multiset{" + ", ".join(literal(x, b.args[0], types) for x in items) + "}"
    if k == "map":
        items = sorted(pv, key=lambda kv: _sort_key(kv[0], b.args[0], types))
        return "map[" + ", ".join(f"{literal(kk, b.args[0], types)} := {literal(v, b.args[1], types)}"
                                  for kk, v in items) + "]"
    if k == "tuple":
        return "(" + ", ".join(literal(x, et, types) for x, et in zip(pv, b.args)) + ")"
    if k == "data":
        if types is None:
            raise ValueError("no literal for a datatype value without the solver's types")
        info = types.ctor_info(b, pv.ctor)
        name = _ctor_text(b, pv.ctor, types.shared_ctors())
        if not info.fields:
            return name
        return name + "(" + ", ".join(literal(x, ft, types) for x, (_, ft, _) in zip(pv.args, info.fields)) + ")"
    if k == "arrow":
        return _lambda(pv, b, types)
    if k == "class":  # stands for an object the test builds (generate.py says how)
        ident = pv.id if isinstance(pv, ObjRef) else pv
        return "null" if ident == 0 else f"object#{ident}"
    raise ValueError(f"no literal for {k}")


def _ctor_text(dt: RType, ctor: str, shared: frozenset[str] = frozenset()) -> str:
    # In a nested module the datatype must be named: M.List.Cons; at top level the bare name is enough,
    # unless another datatype has a constructor of that name (`End` of Abc and of Def: Abc.End)
    if (dt.scope is not None and dt.scope.module) or ctor in shared:
        return f"{dt.name}.{ctor}"
    return ctor


def _ground(term) -> bool:
    """No Var(i) in the term: one value for every argument."""
    return z3.is_var(term) is False and (not z3.is_app(term) or all(_ground(c) for c in term.children())) \
        if not z3.is_quantifier(term) else False


def _lambda(f: Func, b: RType, types) -> str:
    ptypes, rt = b.args[:-1], b.args[-1]
    names = ["x"] if len(ptypes) == 1 else [f"x{i}" for i in range(len(ptypes))]
    body = rule_text(f.rule, names, real_lit) if f.rule is not None else literal(f.default, rt, types)
    for args, val in reversed(f.entries):
        cond = " && ".join(f"{n} == {literal(a, pt, types)}" for n, a, pt in zip(names, args, ptypes))
        body = f"if {cond} then {literal(val, rt, types)} else {body}"
    head = names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"
    return f"{head} => {body}"


# ---------------------------------------------------------------- back to Z3


def _nested_array(pv, depth: int, sort, et: RType, types: Types):
    """A Z3 array (of arrays) holding the nested tuples pv, the element sort's default elsewhere."""
    inner_sort = sort.range()
    if depth == 1:
        out = z3.K(z3.IntSort(), _default(inner_sort))
        for i, x in enumerate(pv):
            out = z3.Store(out, i, term_of(x, et, types))
        return out
    out = z3.K(z3.IntSort(), _nested_array((), depth - 1, inner_sort, et, types))
    for i, row in enumerate(pv):
        out = z3.Store(out, i, _nested_array(row, depth - 1, inner_sort, et, types))
    return out


def _default(sort):
    if sort == z3.IntSort():
        return z3.IntVal(0)
    if sort == z3.BoolSort():
        return z3.BoolVal(False)
    if sort == z3.RealSort():
        return z3.RealVal(0)
    return z3.FreshConst(sort)


def atom_text(a: Atom, types: Types | None) -> str:
    """The string an atom stands for: its literal's, else one no literal of the contract is (`s1`)."""
    literals = types.literals if types is not None else {}
    for text, ident in literals.items():
        if ident == a.id:
            return text
    text = f"s{a.id}"
    while text in literals:
        text += "_"
    return text


def _canonical(elems, et: RType) -> list:
    """A set's plain elements once each, in increasing order where they are numbers (as an input's rep)."""
    out: list = []
    for x in elems:
        if x not in out:
            out.append(x)
    if et.base.kind in ("int", "char", "real", "bv") and all(isinstance(x, (int, Fraction)) for x in out):
        out.sort()
    return out


def term_of(pv, t: RType, types: Types):
    """The rep term of a plain value (None for functions, which are never pinned)."""
    b = t.base
    k = b.kind
    if isinstance(pv, Atom):
        return z3.IntVal(pv.id)
    if types.is_atom(b):  # a searched string where the solver holds strings as atoms: its literal's
        return z3.IntVal(types.atom_of(pv if isinstance(pv, str) else "".join(map(chr, pv))))
    if k in ("int", "char"):
        return z3.IntVal(pv)
    if k == "class":
        return z3.IntVal(pv.id if isinstance(pv, ObjRef) else pv)
    if k == "bool":
        return z3.BoolVal(pv)
    if k == "real":
        return z3.RealVal(f"{pv.numerator}/{pv.denominator}")
    if k == "bv":
        return z3.BitVecVal(pv, b.width)
    if k in ("seq", "array", "set", "multiset"):
        et = b.args[0]
        if k == "set":  # the rep of the value: a model's field may repeat an element or be out of order
            pv = _canonical(pv, et)
        elems = [term_of(x, et, types) for x in pv]
        if any(x is None for x in elems):
            return None
        if k == "set" and types.is_atom(et):  # a set of atoms' rep is ordered by their identities
            elems = sorted({x.as_long(): x for x in elems}.values(), key=lambda x: x.as_long())
        parts = [z3.Unit(x) for x in elems]
        if not parts:
            return z3.Empty(types.sort(b))
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)
    if k in ("array2", "array3"):
        dims_n = int(k[-1])
        dims, level = [], pv
        for _ in range(dims_n):
            dims.append(len(level))
            level = level[0] if level else ()
        srt = types.sort(b)
        data_sort = srt.constructor(0).domain(dims_n)
        data = _nested_array(pv, dims_n, data_sort, b.args[0], types)
        return srt.constructor(0)(*[z3.IntVal(d) for d in dims], data)
    if k == "map":
        srt = types.sort(b)
        keys = term_of(tuple(kk for kk, _ in pv), RType("seq", (b.args[0],)), types)
        vals = term_of(tuple(v for _, v in pv), RType("seq", (b.args[1],)), types)
        return srt.constructor(0)(keys, vals)
    if k == "tuple":
        types.sort(b)
        make, _ = types.tuple_make[RType(b.kind, b.args, b.width, b.name)]
        items = [term_of(x, et, types) for x, et in zip(pv, b.args)]
        return None if any(x is None for x in items) else make(*items)
    if k == "data":
        info = types.ctor_info(b, pv.ctor)
        args = [term_of(x, ft, types) for x, (_, ft, _) in zip(pv.args, info.fields)]
        if any(a is None for a in args):
            return None
        return info.make(*args) if args else info.make()
    if k == "arrow" and isinstance(pv, Func) and pv.rule is None:
        # a function held in a datatype: its table over the constant of its default
        ptypes = b.args[:-1]
        index = ptypes[0] if len(ptypes) == 1 else RType("tuple", ptypes)
        default = term_of(pv.default, b.args[-1], types)
        if default is None:
            return None
        out = z3.K(types.sort(index), default)
        for args, v in pv.entries:
            i = term_of(args[0] if len(ptypes) == 1 else tuple(args), index, types)
            value = term_of(v, b.args[-1], types)
            if i is None or value is None:
                return None
            out = z3.Store(out, i, value)
        return out
    return None

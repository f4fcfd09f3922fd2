"""The rule a Z3 model gives a function-typed input beyond its finite table.

Z3 gives a function as a table of entries and an `else` that may depend on the arguments
(`Var(0) % 2 == 0`) and call auxiliary functions of the same model. Reading the `else` at one point keeps
only one value of it, and the test's lambda then breaks the requires (`forall k :: k > 100 ==> P(k)`
read as `x => false`). Here the `else` becomes an expression of the arguments, the auxiliary functions
inlined, as a small tree that the literal printer writes as the lambda's last branch. Only for the types
whose Z3 terms print as Dafny directly (int, bool, real); anything else keeps the value read at a point.
"""

from __future__ import annotations

from fractions import Fraction

import z3

Rule = tuple  # ("var", i) | ("int", n) | ("real", Fraction) | ("bool", b) | (operator, *operand rules)
Scalar = int | Fraction  # a rule's value (a bool is an int)

MAX_INLINE = 4  # depth of auxiliary functions inlined into one another
MAX_SIZE = 400  # nodes of a rule; a larger one is no readable test input (the value at a point stands)

_NARY = {z3.Z3_OP_AND: "&&", z3.Z3_OP_OR: "||", z3.Z3_OP_ADD: "+", z3.Z3_OP_MUL: "*", z3.Z3_OP_SUB: "-"}
_BINARY = {z3.Z3_OP_IMPLIES: "==>", z3.Z3_OP_IFF: "==", z3.Z3_OP_EQ: "==", z3.Z3_OP_XOR: "!=",
           z3.Z3_OP_LE: "<=", z3.Z3_OP_LT: "<", z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">",
           z3.Z3_OP_IDIV: "/", z3.Z3_OP_DIV: "/", z3.Z3_OP_MOD: "%"}
_UNARY = {z3.Z3_OP_NOT: "!", z3.Z3_OP_UMINUS: "neg", z3.Z3_OP_TO_REAL: "as real", z3.Z3_OP_TO_INT: "floor"}


class _Untranslatable(Exception):
    pass


def rule_of(model: z3.ModelRef, term: z3.ExprRef) -> Rule | None:
    """The term (an `else` over Var(0), Var(1), ...) as a rule; None if it uses what a rule cannot say."""
    try:
        rule = _rule(model, z3.simplify(term), 0)
    except (_Untranslatable, z3.Z3Exception):
        return None
    rule = _piecewise(rule) or rule
    return rule if _size(rule) <= MAX_SIZE else None


_COMPARE = ("<", "<=", ">", ">=", "==", "!=")


def _piecewise(rule: Rule) -> Rule | None:
    """A rule of one integer argument that only compares it with constants is constant between those
    constants: as `if x < 78 then true else if x < 101 then false else true`, not the disjunction of
    interval tests Z3 builds. None when the rule is not of that kind."""
    consts: set[int] = set()
    if not _compares_only(rule, consts) or not consts:
        return None
    bounds = sorted({k for c in consts for k in (c, c + 1)})
    try:
        values = [_eval(rule, bounds[0] - 1)] + [_eval(rule, b) for b in bounds]
    except (ZeroDivisionError, TypeError):
        return None
    # values[0] holds below bounds[0], values[i + 1] from bounds[i] on: merge equal neighbours
    starts: list[tuple[int, Scalar]] = []
    for i, value in enumerate(values):
        if not starts or starts[-1][1] != value:
            starts.append((i, value))
    out: Rule = _const(starts[-1][1])
    for (i, v), (j, _) in zip(reversed(starts[:-1]), reversed(starts[1:])):
        out = ("ite", ("<", ("var", 0), ("int", bounds[j - 1])), _const(v), out)
    return out


def _const(v: Scalar) -> Rule:
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, Fraction) and v.denominator != 1:
        return ("real", v)
    return ("int", int(v))


def _compares_only(rule: Rule, consts: set[int]) -> bool:
    """Every use of an argument is argument 0 compared with an integer constant (collected)."""
    head = rule[0]
    if head == "var":
        return False
    if head in ("int", "real", "bool"):
        return True
    if head in _COMPARE:
        a, b = rule[1], rule[2]
        for x, y in ((a, b), (b, a)):
            if x == ("var", 0) and y[0] == "int":
                consts.add(y[1])
                return True
    return all(_compares_only(r, consts) for r in rule[1:])


def _eval(rule: Rule, x: int) -> Scalar:
    head = rule[0]
    if head == "var":
        return x
    if head in ("int", "real", "bool"):
        return rule[1]
    v = [_eval(r, x) for r in rule[1:]]
    if head == "ite":
        return v[1] if v[0] else v[2]
    if head == "&&":
        return all(v)
    if head == "||":
        return any(v)
    if head == "!":
        return not v[0]
    if head == "==>":
        return (not v[0]) or v[1]
    if head == "neg":
        return -v[0]
    if head == "+":
        return sum(v)
    if head == "*":
        out: Scalar = 1
        for a in v:
            out *= a
        return out
    if head == "-":
        return v[0] - sum(v[1:])
    ops = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
           ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
    if head in ops:
        return ops[head](v[0], v[1])
    raise TypeError(head)  # division, casts: not folded


def _rule(model: z3.ModelRef, t: z3.ExprRef, depth: int) -> Rule:
    if z3.is_var(t):
        return ("var", z3.get_var_index(t))
    srt = t.sort().kind()
    if srt not in (z3.Z3_INT_SORT, z3.Z3_BOOL_SORT, z3.Z3_REAL_SORT):
        raise _Untranslatable(str(t.sort()))
    if z3.is_int_value(t):
        return ("int", t.as_long())
    if z3.is_rational_value(t):
        return ("real", Fraction(t.numerator_as_long(), t.denominator_as_long()))
    if z3.is_true(t) or z3.is_false(t):
        return ("bool", z3.is_true(t))
    if not z3.is_app(t):
        raise _Untranslatable(str(t))
    k = t.decl().kind()
    args = t.children()
    if k == z3.Z3_OP_UNINTERPRETED:
        return _rule(model, _inlined(model, t, depth), depth + 1)
    if k == z3.Z3_OP_ITE:
        return ("ite", *(_rule(model, a, depth) for a in args))
    if k == z3.Z3_OP_DISTINCT and len(args) == 2:
        return ("!=", _rule(model, args[0], depth), _rule(model, args[1], depth))
    if k in _NARY and args:
        return (_NARY[k], *(_rule(model, a, depth) for a in args))
    if k in _BINARY and len(args) == 2:
        return (_BINARY[k], _rule(model, args[0], depth), _rule(model, args[1], depth))
    if k in _UNARY and len(args) == 1:
        return (_UNARY[k], _rule(model, args[0], depth))
    raise _Untranslatable(t.decl().name())


def _inlined(model: z3.ModelRef, app: z3.ExprRef, depth: int) -> z3.ExprRef:
    """An auxiliary function applied in a rule, replaced by its interpretation (table, then else)."""
    g = app.decl()
    if depth >= MAX_INLINE or not any(g.eq(d) for d in model.decls()):
        raise _Untranslatable(g.name())
    interp = model[g]
    args = app.children()
    out = z3.substitute_vars(interp.else_value(), *args)
    for row in reversed(interp.as_list()[:-1]):
        out = z3.If(z3.And([a == v for a, v in zip(args, row[:-1])]), row[-1], out)
    return out


def _size(rule: Rule) -> int:
    if rule[0] in ("var", "int", "real", "bool"):
        return 1
    return 1 + sum(_size(r) for r in rule[1:])


def rule_text(rule: Rule, names: list[str], real_lit, top: bool = True) -> str:
    """Dafny text of a rule over the lambda's parameter names; compound parts are parenthesised, except
    at the top and in a conditional's condition and last branch."""
    head = rule[0]
    if head == "var":
        return names[rule[1]]
    if head == "int":
        return str(rule[1]) if rule[1] >= 0 or top else f"({rule[1]})"
    if head == "real":
        text = real_lit(rule[1])
        return f"({text})" if text.startswith("-") and not top else text
    if head == "bool":
        return "true" if rule[1] else "false"
    if head == "ite":
        c, a, b = (rule_text(r, names, real_lit, t) for r, t in zip(rule[1:], (True, False, True)))
        return f"if {c} then {a} else {b}" if top else f"(if {c} then {a} else {b})"
    parts = [rule_text(r, names, real_lit, False) for r in rule[1:]]
    if head == "!":
        return f"!{parts[0]}"
    if head == "neg":
        return f"-{parts[0]}" if top else f"(-{parts[0]})"
    if head == "as real":
        return f"({parts[0]} as real)"
    if head == "floor":
        return f"{parts[0]}.Floor"
    text = f" {head} ".join(parts)
    return text if top else f"({text})"

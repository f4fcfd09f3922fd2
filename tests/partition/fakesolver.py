"""A tiny Z3-backed stand-in for dspec2test.solve.Solver over int, bool, seq<int> and `Opt` variables
(`datatype Opt = None | Some(value: int)`, see OPT_DECL), with lets and matches.

Enough for hand-built contracts in the partition/emit tests, so they do not depend on the real
encoder; it follows the same interface (check / solve / optimize / outputs_unique).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from dspec2test.dafny import ast
from dspec2test.dafny.printer import print_expr
from dspec2test.errors import Unsupported
from dspec2test.oracle import SolveResult


OPT_DECL = ast.Datatype("Opt", (ast.Ctor("None", ()), ast.Ctor("Some", (ast.Formal("value", ast.NamedType("int")),))))
_opt = z3.Datatype("Opt")
_opt.declare("Nothing")
_opt.declare("Some", ("value", z3.IntSort()))
OPT = _opt.create()




@dataclass
class Model:
    values: dict[str, str]
    raw: object = None


@dataclass
class FakeSolver:
    vars: list[tuple[str, ast.Type, bool]]
    length_limit: int = 10
    calls: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.z = {}
        for name, t, _ in self.vars:
            tn = t.name if isinstance(t, ast.NamedType) else ""
            if tn in ("int", "nat"):
                self.z[name] = z3.Int(name)
            elif tn == "bool":
                self.z[name] = z3.Bool(name)
            elif tn == "seq":
                self.z[name] = z3.Const(name, z3.SeqSort(z3.IntSort()))
            elif tn == "Opt":
                self.z[name] = z3.Const(name, OPT)
            else:
                raise Unsupported(f"type {tn}")

    def _base(self, limit: bool) -> list:
        out = []
        for name, t, _ in self.vars:
            if t.name == "nat":
                out.append(self.z[name] >= 0)
            if t.name == "seq" and limit:
                out.append(z3.Length(self.z[name]) <= self.length_limit)
        return out

    def enc(self, e: ast.Expr, env: dict | None = None):
        env = env if env is not None else self.z
        if isinstance(e, ast.IntLit):
            return z3.IntVal(e.value)
        if isinstance(e, ast.BoolLit):
            return z3.BoolVal(e.value)
        if isinstance(e, ast.Name) and e.name == "None" and e.name not in env:
            return OPT.Nothing
        if isinstance(e, ast.MemberSelect):
            obj = self.enc(e.obj, env)
            return OPT.is_Some(obj) if e.name == "Some?" else OPT.is_Nothing(obj) if e.name == "None?" else OPT.value(obj)
        if isinstance(e, ast.Let):
            inner = dict(env)
            for p, v in zip(e.pats, e.values):
                inner[p.name] = self.enc(v, env)
            return self.enc(e.body, inner)
        if isinstance(e, ast.MatchExpr):
            scrut = self.enc(e.scrutinee, env)
            arms = []
            for case in e.cases:
                cond, binds = self._pattern(case.pattern, scrut)
                arms.append((cond, self.enc(case.body, {**env, **binds})))
            out = arms[-1][1]
            for cond, val in reversed(arms[:-1]):
                out = z3.If(cond, val, out)
            return out
        if isinstance(e, ast.Name):
            if e.name not in env:
                raise Unsupported("unknown name " + e.name, e.span.line, e.span.col)
            return env[e.name]
        if isinstance(e, ast.UnOp):
            x = self.enc(e.operand, env)
            return z3.Not(x) if e.op == "!" else -x
        if isinstance(e, ast.Cardinality):
            return z3.Length(self.enc(e.expr, env))
        if isinstance(e, ast.Index):
            return self.enc(e.seq, env)[self.enc(e.indices[0], env)]
        if isinstance(e, ast.Chain):
            xs = [self.enc(o, env) for o in e.operands]
            return z3.And(*[_cmp(op, a, b) for op, a, b in zip(e.ops, xs, xs[1:])])
        if isinstance(e, ast.BinOp):
            a, b = self.enc(e.left, env), self.enc(e.right, env)
            ops = {"&&": z3.And, "||": z3.Or, "==>": z3.Implies, "<==": lambda x, y: z3.Implies(y, x),
                   "<==>": lambda x, y: x == y, "+": lambda x, y: x + y, "-": lambda x, y: x - y,
                   "*": lambda x, y: x * y}
            if e.op in ops:
                return ops[e.op](a, b)
            return _cmp(e.op, a, b)
        if isinstance(e, ast.IfThenElse):
            return z3.If(self.enc(e.cond, env), self.enc(e.then, env), self.enc(e.els, env))
        if isinstance(e, ast.Quantifier):
            inner = dict(env)
            bs = []
            for v in e.vars:
                inner[v.name] = z3.Int(v.name)
                bs.append(inner[v.name])
            body = self.enc(e.body, inner)
            if e.range is not None:
                r = self.enc(e.range, inner)
                body = z3.And(r, body) if e.kind == "exists" else z3.Implies(r, body)
            return z3.Exists(bs, body) if e.kind == "exists" else z3.ForAll(bs, body)
        raise Unsupported(type(e).__name__, e.span.line, e.span.col)

    def _pattern(self, p, scrut):
        if isinstance(p, ast.PatWild):
            return z3.BoolVal(True), {}
        if isinstance(p, ast.PatVar):
            if p.name == "None":
                return OPT.is_Nothing(scrut), {}
            return z3.BoolVal(True), {p.name: scrut}
        if isinstance(p, ast.PatLit):
            return scrut == self.enc(p.value), {}
        if isinstance(p, ast.PatCtor) and p.name == "Some":
            cond, binds = self._pattern(p.args[0], OPT.value(scrut))
            return z3.And(OPT.is_Some(scrut), cond), binds
        raise Unsupported(type(p).__name__)

    def _solver(self, constraints, limit=True):
        s = z3.Solver()
        s.set("timeout", 5000)
        s.add(*self._base(limit), *[self.enc(c) for c in constraints])
        return s

    def check(self, constraints, budget=0):
        self.calls.append("check")
        r = self._solver(constraints).check()
        if r == z3.sat:
            return SolveResult.SAT
        return SolveResult.UNSAT if r == z3.unsat else SolveResult.UNKNOWN

    def solve(self, constraints, exclude=(), relevant=None, avoid=()):
        s = self._solver(constraints)
        for m in exclude:
            s.add(z3.Or(*[self.z[n] != m.raw.eval(self.z[n], model_completion=True)
                          for n, _, out in self.vars if not out]))
        if s.check() != z3.sat:
            return None
        m = s.model()
        return Model({n: _lit(m.eval(self.z[n], model_completion=True)) for n, _, _ in self.vars}, m)

    def holds(self, e, model):
        self.calls.append("holds")
        v = model.raw.eval(self.enc(e), model_completion=True)
        return True if z3.is_true(v) else False if z3.is_false(v) else None

    def optimize(self, term, constraints, maximize):
        self.calls.append(f"optimize {print_expr(term)}")
        t = self.enc(term)
        # Z3's optimizer can loop on unbounded objectives over sequences: test unboundedness first.
        probe = self._solver(constraints, limit=False)
        probe.set("timeout", 500)
        probe.add(t >= 10**6 if maximize else t <= -10**6)
        if probe.check() != z3.unsat:
            return "unbounded"
        o = z3.Optimize()
        o.set("timeout", 5000)
        o.add(*self._base(False), *[self.enc(c) for c in constraints])
        h = o.maximize(t) if maximize else o.minimize(t)
        if o.check() != z3.sat:
            return None
        v = o.upper(h) if maximize else o.lower(h)
        return v.as_long() if z3.is_int_value(v) else "unbounded"

    def outputs_unique(self, constraints, model):
        s = self._solver(constraints, limit=False)
        for n, _, out in self.vars:
            val = model.raw.eval(self.z[n], model_completion=True)
            s.add(self.z[n] == val if not out else z3.BoolVal(True))
        s.add(z3.Or(*[self.z[n] != model.raw.eval(self.z[n], model_completion=True)
                      for n, _, out in self.vars if out] or [z3.BoolVal(False)]))
        return model if s.check() == z3.unsat else None


def _cmp(op, a, b):
    if op in ("==", "!="):
        return a == b if op == "==" else a != b
    return {"<": lambda: a < b, "<=": lambda: a <= b, ">": lambda: a > b, ">=": lambda: a >= b}[op]()


def _lit(v) -> str:
    if z3.is_int_value(v):
        n = v.as_long()
        return str(n) if n >= 0 else f"-{-n}"
    if z3.is_true(v) or z3.is_false(v):
        return "true" if z3.is_true(v) else "false"
    # sequences of ints: unit / concat / empty
    items = []

    def go(x):
        if z3.is_app_of(x, z3.Z3_OP_SEQ_CONCAT):
            for c in x.children():
                go(c)
        elif z3.is_app_of(x, z3.Z3_OP_SEQ_UNIT):
            items.append(_lit(x.children()[0]))
        elif z3.is_app_of(x, z3.Z3_OP_SEQ_EMPTY):
            pass
        else:
            raise ValueError(str(x))

    go(v)
    return "[" + ", ".join(items) + "]"

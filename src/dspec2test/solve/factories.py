"""Inputs a test makes by calling a function of the program.

A parser (a datatype holding functions under a quantified constraint, its type often `witness *`) is a
value Z3 seldom finds and a test cannot write. The program's own function that returns that type
(`function ValueParser(cs: FreshCursor): (p: ValueParser)`) makes one from arguments Z3 does find. The
input is then that call: its arguments are solver variables of their own, its value the function's body
on them (lambdas held in fields as arrays where their bodies encode, else opaque: encode/calls.py), the
function's requires constrain the arguments, and the test writes the call. Dafny proved the result is of
the type, so the type's constraint is not asked again. Admission parses the call back and decides the
member's requires on it; what reads an opaque function stays undecided, and such a test is not written.
"""

from __future__ import annotations

from dataclasses import replace

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import iter_members
from dspec2test.model.exports import default_names
from dspec2test.model.refine import module_paths
from dspec2test.model.resolve import Resolver, RType, Scope
from dspec2test.model.walk import dotted
from dspec2test.solve.core import SolverCore, SolverVar
from dspec2test.solve.made import Made
from dspec2test.solve.relevance import Relevance
from dspec2test.solve.values import Env


def factory(resolver: Resolver, program: ast.Program, t: RType
            ) -> tuple[ast.Function, Scope, list[RType]] | None:
    """The compiled module-level function with the fewest parameters whose result has type t, which the
    tests may call (its module's default export set provides it), and whose parameters a test can solve
    for (no function, object or value of t itself)."""
    best: tuple[ast.Function, Scope, list[RType]] | None = None
    modules = module_paths(program.decls)
    for mscope, d in iter_members(program.decls):
        if not isinstance(d, ast.Function) or d.kind != "function" or d.ghost or d.body is None or d.type_params \
                or getattr(mscope, "owner", None) is not None:
            continue
        scope = resolver.scope_of(d)
        module = modules.get(scope.module) if scope.module else None
        names = default_names(module) if module is not None else None
        if names is not None and "*" not in names and d.name not in names:
            continue
        try:
            if resolver.rtype(d.result_type, scope) != t:
                continue
            ptypes = [resolver.rtype(p.type, scope) for p in d.params]
        except Unsupported:
            continue
        if any(p.base.kind in ("arrow", "class") or p == t for p in ptypes):
            continue
        if best is None or len(d.params) < len(best[0].params):
            best = (d, scope, ptypes)
    return best


def witness_function(resolver: Resolver, t: RType) -> tuple[ast.Function, Scope] | None:
    """The function a subset type's witness calls with no arguments (`witness ParserWitness<T, R>()`, the
    usual way to give a type holding functions a witness), where it is compiled: Dafny proved its result
    is of the type, so a test may make an input by calling it."""
    while t.kind in ("subset", "newtype"):
        decl, scope = t.refinement
        w = decl.witness if isinstance(decl, ast.SubsetType) and not decl.witness_kind else None
        if w is not None:
            name = dotted(w.callee) if isinstance(w, ast.Call) and not w.args else None
            found = scope.lookup(name) if name is not None else None
            if found is None or not isinstance(found[0], ast.Function):
                return None
            f, fscope = found[0], resolver.scope_of(found[0])
            if f.ghost or f.body is None or f.params or fscope.cls is not None:
                return None
            return f, fscope
        t = t.args[0]
    return None


def hidden_datatype(resolver: Resolver, t: RType) -> bool:
    """A datatype (under any subset layers) its module's default export set does not reveal: a test outside
    the module cannot write its constructors."""
    while t.kind in ("subset", "newtype"):
        t = t.args[0]
    return t.kind == "data" and t.scope is not None and not _revealed(resolver, t.scope.module, t.datatype[0].name)


def _revealed(resolver: Resolver, module: tuple[str, ...], name: str) -> bool:
    """Is declaration `name` of `module` revealed outside it? Yes where the module declares no default
    export set (`export` or `export <module name>`), or that set reveals it or `*`."""
    if not module:
        return True
    decl = resolver.modules.get(module[:-1], {}).get(module[-1])
    exports = [d for d in getattr(decl, "decls", ()) if isinstance(d, ast.Export) and d.name in (None, module[-1])]
    return not exports or any(name in e.reveals or "*" in e.reveals for e in exports)


class Factories(SolverCore):
    def make_from_functions(self) -> list[str]:
        """Inputs whose type's constraint is about functions, or whose datatype its module's export set does
        not reveal (a test cannot write its constructors), made by the program's function that returns that
        type (once, at the member's start); what was done, for the user."""
        if self.contract is None:
            return []
        params = {p.name for p in self.contract.params}
        notes = []
        for i, v in enumerate(list(self.vars)):
            if v.output or v.name not in params:
                continue
            if not (self.types.constrains_functions(v.type) or hidden_datatype(self.resolver, v.type)):
                continue
            found = factory(self.resolver, self.resolver.program, v.type)
            witness = witness_function(self.resolver, v.type) if found is None else None
            if witness is not None:
                found = (witness[0], witness[1], [])
            if found is None:
                continue
            d, scope, ptypes = found
            names = [f"{v.name}#{p.name}" for p in d.params]
            args = [SolverVar(n, pt, False, self.types.declare(n, pt)) for n, pt in zip(names, ptypes)]
            callee = scope.prefix() + d.name
            env = Env({a.name: a.tv for a in args}, self.scope)
            try:
                value = self.encoder.call_once(ast.Call(ast.Name(callee), tuple(ast.Name(n) for n in names)), env,
                                               expect=v.type)
                if value is None:
                    continue
                bound = Env({p.name: a.tv for p, a in zip(d.params, args)}, scope)
                requires = [self.encoder.boolean(x, bound) for c in d.spec.requires for x in c.exprs]
            except (Unsupported, z3.Z3Exception):
                continue
            self.vars[i] = replace(v, tv=replace(value, t=v.type))
            self.vars += args
            self._frame += requires
            self.made[v.name] = Made(callee, tuple(names))
            self.env = self.env.bind({v.name: self.vars[i].tv, **{a.name: a.tv for a in args}})
            what = "its type's witness" if witness is not None else "the program's function that returns its type"
            notes.append(f"{v.name} is made by {callee}({', '.join(p.name for p in d.params)}), {what}"
                         + (", with its arguments solved for" if d.params else ""))
        if notes:
            self._wf_cache.clear()
            self._encoded.clear()
            self.relevance = Relevance(self.types, self.encoder, self.env, {v.name: v.type for v in self.vars if v.output})
        return notes

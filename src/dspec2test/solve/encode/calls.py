"""Names, objects and calls: fields of objects and datatype values, constants, globals; calls of
functions (inlined, Z3 recursive functions, or opaque), of members of objects, constructors, arrows and lambdas."""

from __future__ import annotations

from dataclasses import replace

import z3

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.resolve import BOOL, INT, RType, Scope, unreadable_use
from dspec2test.model.walk import dotted
from dspec2test.solve.seqbound import length_bound
from dspec2test.solve.encode.base import ANY, EncoderBase, NULL, _called_names, _match_type
from dspec2test.solve.values import Env, FuncV, HEAP, LambdaV, OPAQUE, ObjV, SetV, THIS, TV, unsupported as _u


LAMBDA_UNFOLD = 4  # unfoldings of a recursive function given a lambda (more while its sequence shortens)
UNFOLD_BUDGET = 64  # bodies one outermost call of it unfolds in all (a body calling itself twice doubles them)


class CallsMixin(EncoderBase):
    def field_of(self, obj: TV, name: str, node, env: Env) -> TV:
        """The value of field `name` of an object, in the environment's heap state."""
        o = obj.v
        if not isinstance(o, ObjV):
            raise _u(f"field {name} of a non-object", node)
        heap = env.vars.get(HEAP)
        key = f"{o.name}.{name}"
        if o.name and heap is not None and key in heap.v.fields:
            return heap.v.fields[key]
        if not o.name and heap is not None and name in heap.v.elements:  # an object held in a collection
            fn, ft = heap.v.elements[name]
            return self.types.from_rep(fn(o.id), ft)
        decl = self._member_of(o, name)
        if isinstance(decl, ast.Const) and decl.value is not None and not decl.static:
            return self._const_value(decl, obj, env)
        if not o.name:
            raise _u(f"field {name} of an object in a collection", node)
        raise _u(f"field {name} of {o.name}", node)

    def _datatype_field(self, obj: TV, name: str) -> TV | None:
        for info in self.types.ctors_of(obj.t.base):
            for fname, ft, acc in info.fields:
                if fname == name:
                    return self.types.from_rep(acc(obj.v), ft)
        return None

    def _datatype_const(self, obj: TV, name: str, env: Env) -> TV | None:
        """An instance constant declared in the datatype of a value (`v.Valid?` of `const Valid? := ...`)."""
        decl = obj.t.base.decl
        const = next((m for m in getattr(decl, "members", ()) if isinstance(m, ast.Const) and m.name == name
                      and not m.static and m.value is not None), None)
        return self._const_value(const, obj, env) if const is not None else None

    def _ctor_test(self, obj: TV, name: str) -> TV | None:
        """`v.C?` for a constructor C of the value's datatype."""
        for info in self.types.ctors_of(obj.t.base):
            if info.ctor.name == name[:-1]:
                return TV(info.test(obj.v), BOOL)
        return None

    def _datatype_member(self, obj: TV, name: str) -> ast.Function | None:
        """A function declared in the datatype of a value (`c.WF()`)."""
        decl = obj.t.base.decl
        return next((m for m in getattr(decl, "members", ()) if isinstance(m, ast.Function) and m.name == name
                     and not m.static), None)

    def _is_field(self, name: str, env: Env) -> bool:
        """Does a bare name denote a field of the receiver (in a function body of a class or datatype)?"""
        if THIS not in env.vars:
            return False
        this = env.vars[THIS]
        if this.t.base.kind == "data" and env.scope.lookup(name) is None \
                and any(fname == name for info in self.types.ctors_of(this.t.base) for fname, _, _ in info.fields):
            return True  # a destructor of the datatype value a member belongs to (`chain.Length()`)
        found = env.scope.lookup(name)
        return found is not None and isinstance(found[0], (ast.Field, ast.Const)) and not getattr(found[0], "static", False) \
            and isinstance(found[1].cls, ast.ClassDecl)

    def _member_of(self, o: ObjV, name: str):
        """The declaration of member `name` of the object (in its first possible class)."""
        for kinds in o.classes:
            for decl in kinds:
                for m in decl.members:
                    if getattr(m, "name", None) == name:
                        return m
        return None

    def _const_value(self, decl: ast.Const, obj: TV | None, env: Env) -> TV:
        scope = self.resolver.scope_of(decl)
        vars_ = {k: env.vars[k] for k in (HEAP,) if k in env.vars}
        if obj is not None:
            vars_[THIS] = obj
        if decl.value is None:
            raise _u("constant without a value", decl)
        tv = self.enc(decl.value, Env(vars_, scope, env.budget))
        if decl.type is not None:
            tv = self.coerce(tv, self.resolver.rtype(decl.type, scope))
        return tv

    def _instance_call(self, obj: TV, name: str, args: list[TV], node, env: Env) -> TV:
        """`o.F(args)`: F of the object's class, with `this` the object; where the object may be of several
        classes that define F differently, the one of its class."""
        o = obj.v
        heap = env.vars.get(HEAP)
        if not args and isinstance(o, ObjV) and o.name and heap is not None:
            held = heap.v.fields.get(f"{o.name}.{name}()")  # a driven object's predicate: a value of its state
            if held is not None:
                return held
        if not isinstance(o, ObjV) or not o.classes:
            raise _u(f"call of {name} on an object of unknown class", node)
        found = []
        for kinds in o.classes:
            decl = None
            for k in kinds:  # the class first, then the traits it extends
                decl = next((m for m in k.members if getattr(m, "name", None) == name), None)
                if decl is not None:
                    break
            if isinstance(decl, ast.Unreadable):
                raise _used(decl, node)
            if not isinstance(decl, ast.Function):
                raise _u(f"call of {name}, not a function of the object's class", node)
            found.append(decl)
        results = [self._call_function(f, self.resolver.scope_of(f), args, node, env, this=obj) for f in found]
        out = results[-1]
        if o.cls is not None:
            for i in reversed(range(len(results) - 1)):
                a, out = self.unify(results[i], out)
                out = self.ite(o.cls == i, a, out, node)
        return out

    def _global(self, name: str, node, env: Env) -> TV:
        found = env.scope.lookup(name)
        this = env.vars.get(THIS)
        if found is None and this is not None and this.t.base.kind == "data" and "." not in name:
            # a field, or a constructor test, of the datatype value a member belongs to
            field_ = self._datatype_field(this, name) if not name.endswith("?") else self._ctor_test(this, name)
            if field_ is not None:
                return field_
        if found is None:
            raise _u(f"unknown name {name}", node)
        decl, scope = found
        if isinstance(decl, ast.Unreadable):
            raise _used(decl, node)
        if isinstance(decl, ast.Const) and not decl.static and isinstance(scope.cls, ast.Datatype) \
                and this is not None and this.t.base.kind == "data" and decl.value is not None:
            return self._const_value(decl, this, env)
        if isinstance(decl, (ast.Field, ast.Const)) and not getattr(decl, "static", False) \
                and isinstance(scope.cls, ast.ClassDecl) and THIS in env.vars:
            return self.field_of(env.vars[THIS], name, node, env)
        if isinstance(decl, ast.Const):
            if decl.value is None:
                raise _u("const without a value", node)
            tv = self.enc(decl.value, Env({}, scope))
            if decl.type is not None:
                tv = self.coerce(tv, self.resolver.rtype(decl.type, scope))
            return tv
        if isinstance(decl, ast.Ctor):
            if decl.params:
                raise _u("constructor used as a function value", node)
            return self._construct(decl, scope, [], node, env.expect)
        if isinstance(decl, ast.Function) and not decl.params:
            return self._call_function(decl, scope, [], node, env)
        if isinstance(decl, ast.Function) and (decl.static or not isinstance(scope.cls, (ast.ClassDecl, ast.Datatype))):
            return self._function_value(decl, node, env)
        raise _u(f"name {name} ({type(decl).__name__.lower()})", node)

    def _function_value(self, f: ast.Function, node, env: Env) -> TV:
        """A function named as a value (`frac.SplitFrom?(cs, Spec.Frac)`): the lambda that calls it."""
        names = tuple(f"#{f.name}.{p.name}" for p in f.params)  # no Dafny name: shadows none
        body = ast.Call(node, tuple(ast.Name(n, span=node.span) for n in names), span=node.span)
        ptypes = tuple(ANY for _ in f.params) if f.type_params else \
            tuple(self.resolver.rtype(p.type, self.resolver.scope_of(f)) for p in f.params)
        lam = LambdaV(names, body, env, node)
        return TV(lam, RType("arrow", (*ptypes, self._lambda_result(lam, ptypes))))

    def e_Call(self, e, env):
        if e.label is not None:
            raise _u("two-state call", e)
        named = any(n is not None for n in e.arg_names)
        callee = e.callee
        if named and not (isinstance(callee, (ast.Name, ast.MemberSelect)) and not self._local_callee(callee, env)):
            raise _u("named arguments", e)
        if isinstance(callee, ast.Name) and callee.name in env.vars:
            f = env.vars[callee.name]
            return self._apply(f, [self.enc(a, env) for a in e.args], e)
        path = dotted(callee.obj) if isinstance(callee, ast.MemberSelect) else None
        head = (path or "").split(".")[0]
        # the receiver is a value: `this`, a variable or field, or any expression that is no dotted name
        # (`fn(cs).value.StrictlySplitFrom?(cs)`: a member call, whatever `?` the member's name ends in)
        if isinstance(callee, ast.MemberSelect) and (isinstance(callee.obj, ast.ThisExpr) or path is None
                                                     or head in env.vars or (head and self._is_field(head, env))
                                                     or self._names_value(path, env)):
            return self._member_call(self.enc(callee.obj, env), callee, e, env)
        name = callee.name if isinstance(callee, ast.Name) else dotted(callee)
        # a function held in a field of the datatype value a member belongs to (`pre(cs)` in SubParser)
        held = self._held_function(env.vars[THIS], callee.name) if isinstance(callee, ast.Name) and THIS in env.vars \
            else None
        if held is not None:
            return self._apply(held, [self.enc(a, env) for a in e.args], e)
        if name is None or name.split(".")[0] in env.vars:
            fv = self.enc(callee, env)
            return self._apply(fv, [self.enc(a, env) for a in e.args], e)
        found = env.scope.lookup(name)
        if found is None:
            raise _u(f"unknown function {name}", e)
        decl, scope = found
        if isinstance(decl, ast.Unreadable):
            raise _used(decl, e)
        if isinstance(decl, (ast.Datatype, ast.SubsetType, ast.TypeSynonym, ast.Newtype)):
            # a constructor named as a type (`Chain(previous, v)` of datatype Chain, `Writer(0, Empty)` of
            # datatype Writer_ beside `type Writer = w: Writer_ | ...`): the type took the name's entry
            decl = self.resolver.ctor_named(scope.module, name.split(".")[-1]) or decl
        if named and not isinstance(decl, (ast.Ctor, ast.Function)):
            raise _u("named arguments", e)
        if isinstance(decl, ast.Ctor) and not named:
            return self._construct(decl, scope, self._ctor_args(decl, scope, e, env), e, env.expect)
        args = self._named_args(decl.params, self.resolver.scope_of(decl) if isinstance(decl, ast.Function) else scope,
                                e, env) if named else [self.enc(a, env) for a in e.args]
        if isinstance(decl, ast.Ctor):
            return self._construct(decl, scope, args, e, env.expect)
        if isinstance(decl, ast.Function):
            if isinstance(scope.cls, ast.ClassDecl) and not decl.static and "." not in name and THIS in env.vars:
                return self._instance_call(env.vars[THIS], name, args, e, env)  # `Valid()` in a class's contract
            if isinstance(scope.cls, ast.Datatype) and not decl.static and "." not in name and THIS in env.vars:
                return self._call_function(decl, scope, args, e, env, this=env.vars[THIS])
            return self._call_function(decl, scope, args, e, env)
        if isinstance(decl, ast.Method):
            raise _u("method call in an expression", e)
        raise _u(f"call of {type(decl).__name__.lower()} {name}", e)

    def _ctor_args(self, ctor: ast.Ctor, scope: Scope, e: ast.Call, env: Env) -> list[TV]:
        """A constructor's arguments, each datatype one encoded expecting its formal's type where that is known
        (the datatype is not generic, or the context instantiates it): `CREATES(..., None)` of a field
        `salt: Option<u256>` is an Option<u256>, not the Option<int> a bare `None` defaults to."""
        dt = self._datatype_of(ctor, scope)
        wanted = env.expect.base if env.expect is not None else None
        subst = {p.name: t for p, t in zip(dt.type_params, wanted.args)} \
            if wanted is not None and wanted.kind == "data" and wanted.decl is dt else None
        out = []
        for p, a in zip(ctor.params, e.args):
            t = None
            if subst is not None or not dt.type_params:
                try:
                    t = self.resolver.rtype(p.type, scope, subst or {})
                except Unsupported:
                    t = None
            out.append(self.enc(a, replace(env, expect=t) if t is not None and t.base.kind == "data" else env))
        return out

    def constructed(self, e: ast.Call, env: Env, expect: RType) -> TV | None:
        """A constructor call's value with the type arguments its arguments do not say from `expect` (None:
        not a constructor named plainly). Its arguments are encoded without it: theirs are their own."""
        callee = e.callee
        name = callee.name if isinstance(callee, ast.Name) else dotted(callee)
        if name is None or any(n is not None for n in e.arg_names) or self._local_callee(callee, env):
            return None
        found = env.scope.lookup(name)
        if found is None:
            return None
        decl, scope = found
        if not isinstance(decl, ast.Ctor):
            return None
        return self._construct(decl, scope, [self.enc(a, env) for a in e.args], e, expect)

    def is_constructor(self, x: ast.Expr, env: Env) -> bool:
        """Is x a datatype constructor named plainly (`None`, `Opt.None`, `Success(v)`)?"""
        ref = x.callee if isinstance(x, ast.Call) else x
        if isinstance(ref, ast.Name) and ref.name in env.vars:
            return False
        name = ref.name if isinstance(ref, ast.Name) else dotted(ref)
        found = env.scope.lookup(name) if name is not None else None
        return found is not None and isinstance(found[0], ast.Ctor)

    def against(self, x: ast.Expr, env: Env, want: RType | None) -> TV:
        """x encoded, a constructor in it instantiated by `want` where that is a datatype."""
        if want is not None and want.base.kind == "data" and self.is_constructor(x, env):
            if isinstance(x, ast.Call):
                made = self.constructed(x, env, want)
                if made is not None:
                    return made
            else:
                return self.enc(x, replace(env, expect=want))
        return self.enc(x, env)

    def _local_callee(self, callee, env: Env) -> bool:
        """Is the callee a value (a variable's function, a receiver's member), not a declaration by name?
        Named arguments are taken for declarations only."""
        head = callee.name if isinstance(callee, ast.Name) else (dotted(callee.obj) or "").split(".")[0]
        return head in env.vars or THIS in env.vars or (isinstance(callee, ast.MemberSelect) and not head)

    def _named_args(self, formals: tuple[ast.Formal, ...], scope: Scope, e, env: Env) -> list[TV]:
        """`Code(contents := c)`: the arguments in the formals' order, a formal not given its default (which may
        read the formals before it)."""
        given: dict[int, ast.Expr] = {}
        for k, (a, name) in enumerate(zip(e.args, (*e.arg_names, *[None] * len(e.args)))):
            at = k if name is None else next((j for j, p in enumerate(formals) if p.name == name), -1)
            if at < 0 or at in given:
                raise _u(f"named argument {name}", e)
            given[at] = a
        out: list[TV] = []
        for j, p in enumerate(formals):
            if j in given:
                out.append(self.enc(given[j], env))
            elif p.default is not None:
                known = {q.name: a for q, a in zip(formals, out)}
                out.append(self.enc(p.default, Env(known, scope, expect=self.resolver.rtype(p.type, scope))))
            else:
                raise _u(f"call without an argument for {p.name}", e)
        return out

    def _member_call(self, target: TV, callee: ast.MemberSelect, e: ast.Call, env: Env) -> TV:
        """`v.F(args)` on a value v: a function of its class or datatype, a function it holds in a field, or
        `requires`/`reads` of an arrow."""
        name = callee.name
        if target.t.base.kind == "arrow" and name in ("requires", "reads"):
            return self._arrow_member(name)
        if target.t.base.kind == "class":
            return self._instance_call(target, name, [self.enc(a, env) for a in e.args], e, env)
        skipped = next((m for m in getattr(target.t.base.decl, "members", ()) if isinstance(m, ast.Unreadable)
                        and m.name == name), None)
        if skipped is not None:
            raise _used(skipped, e)
        member = self._datatype_member(target, name) if target.t.base.kind == "data" else None
        if member is not None:
            return self._call_function(member, self.resolver.scope_of(member),
                                       [self.enc(a, env) for a in e.args], e, env, this=target)
        held = self._held_function(target, name)  # `p.fn(cs)`
        if held is not None:
            return self._apply(held, [self.enc(a, env) for a in e.args], e)
        if target.t.base.kind == "data":
            held = self._datatype_const(target, name, env)  # a constant member holding a function
            if held is None:
                # never a constructor test: `v.N?(...)` has arguments, so it calls a member N? of v's type
                raise _u(f"call of {name}: no function {name} in datatype {target.t.base.name}", e)
            return self._apply(held, [self.enc(a, env) for a in e.args], e)
        return self._apply(self.enc(callee, env), [self.enc(a, env) for a in e.args], e)

    def _names_value(self, path: str, env: Env) -> bool:
        """Does a dotted name denote a value (a constant `M.c`), not a module or type?"""
        found = env.scope.lookup(path)
        return found is not None and isinstance(found[0], ast.Const)

    @staticmethod
    def _arrow_member(name: str) -> TV:
        """`f.requires(x)` and `f.reads(x)` of a function value: the functions a test builds (a lambda
        from the model) are total and read nothing, so true and the empty set."""
        if name == "requires":
            return TV(z3.BoolVal(True), BOOL)
        return TV(SetV(()), RType("set", (NULL,)))

    def e_Lambda(self, e, env):
        """A lambda in a contract (`Seq.Map(x => x + 1, s)`): a closure over the environment, applied where
        it is called. Parameter types not written come from the function it is passed to."""
        ptypes = tuple(self.resolver.rtype(p.type, env.scope) if p.type is not None else ANY for p in e.params)
        lam = LambdaV(tuple(p.name for p in e.params), e.body, env, e)
        return TV(lam, RType("arrow", (*ptypes, self._lambda_result(lam, ptypes))))

    def _lambda_result(self, lam: LambdaV, ptypes: tuple[RType, ...]) -> RType:
        """The type of a lambda's body with its parameters of the given types (ANY while one is unknown)."""
        if ANY in ptypes:
            return ANY
        if self.lambda_bodies:
            return ANY
        binds = {p: self.types.declare(self.types.fresh(p), t) for p, t in zip(lam.params, ptypes)}
        self.lambda_bodies += 1
        try:
            return self.enc(lam.body, lam.env.bind(binds)).t
        except (Unsupported, z3.Z3Exception):
            return ANY  # a body that does not encode fails where the lambda is applied; stored, it is opaque
        finally:
            self.lambda_bodies -= 1

    def _apply(self, f: TV, args: list[TV], node) -> TV:
        ptypes = f.t.base.args[:-1]
        if isinstance(f.v, LambdaV):  # a function input's literal, checked against the requires (admit.py)
            binds = {p: self.coerce(a, t) for p, a, t in zip(f.v.params, args, ptypes)}
            return self.coerce(self.enc(f.v.body, f.v.env.bind(binds)), f.t.base.args[-1])
        if not isinstance(f.v, FuncV):
            raise _u("call of a non-function value", node)
        reps = [self.types.to_rep(self.coerce(a, t)) for a, t in zip(args, ptypes)]
        return self.types.from_rep(f.v.apply(reps), f.t.base.args[-1])

    def _construct(self, ctor: ast.Ctor, scope: Scope, args: list[TV], node, expect: RType | None = None) -> TV:
        dtdecl = self._datatype_of(ctor, scope)
        args = self._with_defaults(ctor.params, args, scope)
        # instantiate type parameters as the context's declared type says, else from the arguments
        # (default int): an argument of a subset type must not make an instantiation of its own
        subst: dict[str, RType] = {}
        wanted = expect.base if expect is not None else None
        if wanted is not None and wanted.kind == "data" and wanted.decl is dtdecl:
            subst.update({p.name: t for p, t in zip(dtdecl.type_params, wanted.args)})
        for formal, a in zip(ctor.params, args):
            _match_type(formal.type, a.t, subst, {p.name for p in dtdecl.type_params})
        targs = tuple(subst.get(p.name, INT) for p in dtdecl.type_params)
        dt = RType("data", targs, name=scope.prefix() + dtdecl.name, decl=dtdecl, scope=scope)
        info = self.types.ctor_info(dt, ctor.name)
        if len(args) != len(info.fields):
            raise _u("constructor arity", node)
        reps = [self.lambda_rep(a.v, ft) if isinstance(a.v, LambdaV) and ft.base.kind == "arrow"
                else self.types.to_rep(self.coerce(a, ft)) for a, (_, ft, _) in zip(args, info.fields)]
        return TV(info.make(*reps) if reps else info.make(), dt)

    def lambda_rep(self, f: LambdaV, t: RType) -> z3.ExprRef:
        """A lambda put into a datatype's function field (`SubParser(cs, pre, fn, spec)` made by a function a
        test calls): the array of its values where its body encodes, else an opaque array (OPAQUE), which
        leaves whatever reads the field undecided."""
        b = t.base
        if self.lambda_bodies:
            return z3.FreshConst(self.types.sort(b), OPAQUE)
        ptypes = b.args[:-1]
        x = z3.FreshConst(self.types.sort(b).domain(), "x")
        if len(ptypes) == 1:
            reps = [x]
        else:
            self.types.sort(RType("tuple", ptypes))
            reps = [acc(x) for acc in self.types.tuple_make[RType("tuple", ptypes)][1]]
        self.lambda_bodies += 1
        try:
            binds = {p: self.types.from_rep(r, pt) for p, r, pt in zip(f.params, reps, ptypes)}
            # its result's type instantiates what the body does not say (`_ => Failure(EOF)`)
            env = replace(f.env.bind(binds), expect=b.args[-1] if b.args[-1].base.kind == "data" else None)
            body = self.coerce(self.enc(f.body, env), b.args[-1])
            return z3.Lambda([x], self.types.to_rep(body))
        except (Unsupported, z3.Z3Exception):
            return z3.FreshConst(self.types.sort(b), OPAQUE)
        finally:
            self.lambda_bodies -= 1

    def _held_function(self, value: TV, name: str) -> TV | None:
        """The function a datatype value holds in its field `name` (None: no such field, or not a function)."""
        held = self._datatype_field(value, name) if value.t.base.kind == "data" else None
        return held if held is not None and held.t.base.kind == "arrow" else None

    def _inline(self, f: ast.Function, fscope: Scope, heap: dict, args: list[TV], ptypes: list[RType],
                rtype: RType, env: Env) -> TV:
        """The body of f with its parameters bound to the arguments, as the call's value."""
        assert f.body is not None  # a function without one is opaque (_opaque)
        binds = {p.name: self._bound(a, t) for p, a, t in zip(f.params, args, ptypes)}
        try:
            return self.coerce(self.enc(f.body, Env({**heap, **binds}, fscope, env.budget, rtype)), rtype)
        except Unsupported as exc:  # a line of f's body is a line of f's file
            raise exc.located(f.origin) if f.origin else exc

    def _bound(self, a: TV, t: RType) -> TV:
        """An argument as the parameter of an inlined body: of the parameter's type, unless it is a datatype
        value of another instantiation (a `Structural<jcolon>` given for `Structural<View>`), whose sort is
        its own: it keeps its type (relabelled, it would meet accessors of the other sort)."""
        if t.base.kind == "data" and a.t.base.kind == "data" and isinstance(a.v, z3.ExprRef) \
                and not a.v.sort().eq(self.types.sort(t)):
            return a
        return TV(a.v, t, a.lit)

    def _reps_for(self, fn: z3.FuncDeclRef, skip: int, args: list[TV], node) -> list:
        """The arguments' terms for a Z3 function; one of another sort than its parameter (a datatype value of
        another instantiation) is unsupported, not an internal error."""
        reps = [self.types.to_rep(a) for a in args]
        for i, r in enumerate(reps):
            if isinstance(r, z3.ExprRef) and not r.sort().eq(fn.domain(skip + i)):
                raise _u(f"a {r.sort()} where a function over {fn.domain(skip + i)} is called", node)
        return reps

    def failure_member(self, value: TV, name: str, node, env: Env, expect: RType | None = None) -> TV:
        """`value.IsFailure()`, `.PropagateFailure()` or `.Extract()` of a failure-compatible type (`:-`)."""
        member = self._datatype_member(value, name) if value.t.base.kind == "data" else None
        if member is None:
            raise _u(f":- on a value without {name}", node)
        return self._call_function(member, self.resolver.scope_of(member), [], node, env, this=value, expect=expect)

    def _with_defaults(self, formals: tuple[ast.Formal, ...], args: list[TV], scope: Scope) -> list[TV]:
        """The arguments with the default values of the trailing formals a call leaves out
        (`ERROR(STACK_UNDERFLOW)` for `ERROR(error: Error, gas: nat := 0)`); a default may read the
        formals before it."""
        if len(args) >= len(formals) or any(p.default is None for p in formals[len(args):]):
            return args
        out = list(args)
        for p in formals[len(args):]:
            assert p.default is not None  # checked above
            known = {q.name: a for q, a in zip(formals, out)}
            out.append(self.enc(p.default, Env(known, scope, expect=self.resolver.rtype(p.type, scope))))
        return out

    def _datatype_of(self, ctor: ast.Ctor, scope: Scope) -> ast.Datatype:
        for d in self.resolver.modules.get(scope.module, {}).values():
            if isinstance(d, ast.Datatype) and any(c is ctor for c in d.ctors):
                return d
        raise _u("constructor outside a datatype", ctor)

    def call_once(self, e: ast.Call, env: Env, expect: RType | None = None) -> TV | None:
        """A call of a module-level function with its body inlined once, recursive or not (None: `e` calls no
        such function): an input a test makes by calling a function (factories.py), whose own calls inside
        stay as the encoder treats them. `expect`: the input's type, which instantiates what the arguments
        do not (`ParserWitness<T, R>()`)."""
        name = dotted(e.callee)
        found = env.scope.lookup(name) if name is not None and name.split(".")[0] not in env.vars else None
        if found is None or not isinstance(found[0], ast.Function) or found[0].body is None \
                or isinstance(self.resolver.scope_of(found[0]).cls, (ast.ClassDecl, ast.Datatype)):
            return None
        return self._call_function(found[0], found[1], [self.enc(a, env) for a in e.args], e, env, expect=expect,
                                   once=True)

    def _call_function(self, f: ast.Function, scope: Scope, args: list[TV], node, env: Env,
                       this: TV | None = None, expect: RType | None = None, once: bool = False) -> TV:
        args = self._with_defaults(f.params, args, self.resolver.scope_of(f))
        if len(args) != len(f.params):
            raise _u(f"call of {f.name} with {len(args)} arguments", node)
        fscope = self.resolver.scope_of(f)
        if isinstance(fscope.cls, (ast.ClassDecl, ast.Datatype)) and not f.static and this is None:
            raise _u("instance function", node)
        # what the body may read besides its parameters: the receiver and the heap state it is called in
        heap = {k: v for k, v in ((THIS, this), (HEAP, env.vars.get(HEAP))) if v is not None}
        subst: dict[str, RType] = {}
        if this is not None and isinstance(fscope.cls, ast.Datatype) and this.t.base.kind == "data":
            # a member of a generic datatype reads its type parameters as the receiver instantiates them
            subst.update({p.name: t for p, t in zip(fscope.cls.type_params, this.t.base.args)})
        tparams = {p.name for p in f.type_params}
        for formal, a in zip(f.params, args):
            _match_type(formal.type, a.t, subst, tparams)
        for i, (formal, a) in enumerate(zip(f.params, args)):
            # a lambda's untyped parameters take the formal's types, which the other arguments fixed
            if isinstance(a.v, LambdaV) and ANY in a.t.base.args and isinstance(formal.type, ast.ArrowType) \
                    and len(formal.type.params) == len(a.v.params):
                known = {**{p: INT for p in tparams}, **subst}
                lp = tuple(self.resolver.rtype(pt, fscope, known) if at == ANY else at
                           for pt, at in zip(formal.type.params, a.t.base.args))
                args[i] = a = TV(a.v, RType("arrow", (*lp, self._lambda_result(a.v, lp))))
                _match_type(formal.type, a.t, subst, tparams)
        if expect is not None and f.result_type is not None:  # a type parameter only the result says
            _match_type(f.result_type, expect, subst, tparams)
        for p in f.type_params:
            subst.setdefault(p.name, INT)
        ptypes = [self.resolver.rtype(p.type, fscope, subst) for p in f.params]
        rtype = self.resolver.rtype(f.result_type, fscope, subst)
        args = [self.coerce(a, t) for a, t in zip(args, ptypes)]
        if f.body is None:
            return self._opaque(f, ptypes, rtype, args, heap)
        if once:
            return self._inline(f, fscope, heap, args, ptypes, rtype, env)
        recursive = self._is_recursive(f, fscope)
        if recursive and self.opaque_recursion:
            return self._opaque(f, ptypes, rtype, args, heap)
        if not recursive:
            return self._inline(f, fscope, heap, args, ptypes, rtype, env)
        lam = next((a.v for a in args if isinstance(a.v, LambdaV)), None)
        if lam is not None:
            return self._unfold(f, fscope, heap, args, ptypes, rtype, env, lam.node or node, "lambda")
        if any(isinstance(a.v, SetV) and a.v.rep is None and len(a.v.cands) > self.types.cap for a in args):
            # a set built in a contract larger than a definition's parameter is read as (types.py _set_rep)
            return self._unfold(f, fscope, heap, args, ptypes, rtype, env, node, "set built in a contract")
        # the fields the body reads are free constants of its Z3 definition: one definition per receiver
        # and heap state; a datatype's member takes its receiver, a value, as one more argument (one
        # definition for `l.Size()` and `r.Size()` alike, which a definition per receiver would unfold
        # without end)
        value = this if this is not None and isinstance(fscope.cls, ast.Datatype) else None
        shared = {k: v for k, v in heap.items() if not (value is not None and k == THIS)}
        key = (id(f), tuple(ptypes), rtype, value.t if value is not None else None,
               *(id(v.v) for v in shared.values()))
        if key not in self._recfuns:
            sorts = ([self.types.sort(value.t)] if value is not None else []) + [self.types.sort(t) for t in ptypes]
            rec = z3.RecFunction(self.types.fresh(f.name), *sorts, self.types.sort(rtype))
            self._recfuns[key] = rec
            formals = [z3.Const(self.types.fresh(p.name), s) for p, s in zip(f.params, sorts[len(sorts) - len(ptypes):])]
            binds = {p.name: self.types.from_rep(c, t) for p, c, t in zip(f.params, formals, ptypes)}
            if value is not None:
                receiver = z3.Const(self.types.fresh("this"), sorts[0])
                formals = [receiver] + formals
                binds[THIS] = self.types.from_rep(receiver, value.t)
            # a quantifier in the body expands as anywhere (`forall i :: 0 <= i < |kids| ==> P(kids[i])` over a
            # tree's capped children); one left a Z3 quantifier, Z3 does not take in a recursive definition
            try:
                body = self.coerce(self.enc(f.body, Env({**shared, **binds}, fscope, expect=rtype)), rtype)
                rep = self.types.to_rep(body)
                if _quantified(rep):  # placed at f, in f's file (the call may be in another one)
                    raise _u(f"quantifier over an unbounded range in the recursive function {f.name} (in its "
                             f"body or a function it calls)", f)
            except Unsupported as exc:
                del self._recfuns[key]  # not defined: a later call must not use it
                raise exc.located(f.origin) if f.origin else exc
            z3.RecAddDefinition(rec, formals, rep)
            self.rec_defs.append((rec, formals, rep))
        rec = self._recfuns[key]
        receiver_arg = [self.types.to_rep(value)] if value is not None else []
        return self.types.from_rep(rec(*receiver_arg, *self._reps_for(rec, len(receiver_arg), args, node)), rtype)

    def _unfold(self, f: ast.Function, fscope: Scope, heap: dict, args: list[TV], ptypes: list[RType],
                rtype: RType, env: Env, node, what: str) -> TV:
        """A recursive function given a lambda (or a set built in a contract, larger than the length limit a
        definition's parameter is read with): a Z3 definition takes terms, and a lambda is none, so the body
        is unfolded instead (what looks recursive may call another type's member of the same name:
        `cs.SplitFrom?(cs0)`). LAMBDA_UNFOLD levels always; beyond, only while a sequence argument's length
        bound (seqbound.py) shrinks from level to level. An argument whose bound is 0 is the empty sequence,
        and conditions in its level are decided where they simplify to a constant: the branch that would
        recurse on it is not encoded, which ends the unfolding exactly. Given a set, every level's conditions
        are decided so (`match eips[0]` of a literal): a set of each arm's candidates would multiply them."""
        seqs = [i for i, t in enumerate(ptypes) if t.base.kind == "seq" and isinstance(args[i].v, z3.ExprRef)]
        depth, outer, spent, known = self._lambda_unfold.get(id(f), (0, None, [0], {}))
        if not depth:  # the outermost call: a sequence its structure does not bound may be bounded by the inputs'
            for i in seqs:
                if length_bound(args[i].v) is None:
                    proved = self._seq_bound(args[i], node, required=False)
                    if proved is not None:
                        known[args[i].v.get_id()] = proved
        bounds = tuple(length_bound(args[i].v, known) for i in seqs)
        outer = bounds if outer is None else outer
        shrinks = any(b is not None and a is not None and b < a for a, b in zip(outer, bounds))
        if (depth >= LAMBDA_UNFOLD and not shrinks) or spent[0] >= UNFOLD_BUDGET:
            why = f"it unfolds into more than {UNFOLD_BUDGET} bodies" if spent[0] >= UNFOLD_BUDGET else \
                "it takes no sequence to bound its recursion" if not seqs else \
                "its sequence's length has no known bound" if all(b is None for b in bounds) else \
                "its recursion does not shorten its sequence"
            raise _u(f"{what} passed to the recursive function {f.name} ({why})", node)
        spent[0] += 1
        args = list(args)
        emptied = [i for i, b in zip(seqs, bounds) if b == 0]
        for i in emptied:
            args[i] = TV(z3.Empty(self.types.sort(ptypes[i])), ptypes[i])
        self._lambda_unfold[id(f)] = (depth + 1, bounds, spent, known)
        decide = bool(emptied) or what != "lambda"
        self.decide_conditions += decide
        try:
            return self._inline(f, fscope, heap, args, ptypes, rtype, env)
        finally:
            self.decide_conditions -= decide
            if depth:
                self._lambda_unfold[id(f)] = (depth, outer, spent, known)
            else:
                del self._lambda_unfold[id(f)]

    def _opaque(self, f: ast.Function, ptypes: list[RType], rtype: RType, args: list[TV], heap: dict) -> TV:
        """A function without a body (abstract, {:extern}): an uninterpreted Z3 function, one per heap
        state, of its arguments and its receiver. The solver assumes nothing of it; a clause calling it is
        checked by the test where it compiles, else listed as unchecked."""
        key = ("opaque", id(f), tuple(ptypes), rtype, id(heap[HEAP].v) if HEAP in heap else None)
        this = heap.get(THIS)
        extra = [this.v.id] if this is not None and isinstance(this.v, ObjV) else []
        if key not in self._recfuns:
            sorts = [z3.IntSort()] * len(extra) + [self.types.sort(t) for t in ptypes]
            self._recfuns[key] = z3.Function(self.types.fresh(f.name), *sorts, self.types.sort(rtype))
        app = self._recfuns[key](*extra, *self._reps_for(self._recfuns[key], len(extra), args, f))
        return self.types.from_rep(app, rtype)

    def opaque_functions(self) -> frozenset[str]:
        """The Z3 names of the functions without a body encoded so far (solve/axioms.py matches on them)."""
        return frozenset(fn.name() for key, fn in self._recfuns.items() if key[0] == "opaque")

    def _is_recursive(self, f: ast.Function, scope: Scope) -> bool:
        if id(f) not in self._recursive:
            seen: set[int] = set()
            todo = [(f, scope)]
            found = False
            while todo and not found:
                g, s = todo.pop()
                for name in _called_names(g.body):
                    hit = s.lookup(name)
                    if hit is None and "." in name:  # `l.Size()` in Size's body: a member of the value's type
                        hit = s.lookup(name.rsplit(".", 1)[-1])
                    if hit and isinstance(hit[0], ast.Function):
                        if hit[0] is f:
                            found = True
                            break
                        if id(hit[0]) not in seen and hit[0].body is not None:
                            seen.add(id(hit[0]))
                            todo.append((hit[0], self.resolver.scope_of(hit[0])))
            self._recursive[id(f)] = found
        return self._recursive[id(f)]


def _quantified(term) -> bool:
    """Does a Z3 term hold a quantifier (shared subterms visited once)?"""
    seen: set[int] = set()
    todo = [term]
    while todo:
        t = todo.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_quantifier(t):
            return True
        if z3.is_app(t):
            todo += t.children()
    return False


def _used(decl: ast.Unreadable, node) -> Unsupported:
    sp = getattr(node, "span", None)
    return unreadable_use(decl, sp.line if sp else 0, sp.col if sp else 0)

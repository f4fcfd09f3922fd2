"""The lemmas Dafny takes on trust that define the functions without a body a member's contract reaches.

`function Tri(n: nat): nat` without a body is whatever the lemmas Dafny takes on trust say of it
(`lemma {:axiom} TriSucc(n: nat) ensures Tri(n + 1) == Tri(n) + n + 1`, or the same lemma with no body):
the verifier knows no more of it, and neither can a test compute it. The solver can: with these lemmas as
axioms, instantiated on a test's concrete arguments, `Tri(5)` is 15 (solve/axioms.py). Which lemmas those
are is a question about the program alone, answered here by name, as probe.py follows calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.model.contracts import Contract, iter_members, qualified_name
from dspec2test.model.walk import called_names


@dataclass(frozen=True)
class Axiom:
    """A lemma taken on trust whose clauses speak of a function without a body the contract reaches."""

    lemma: ast.Method
    name: str  # qualified, `M.TriSucc`
    line: int
    functions: frozenset[str]  # the functions without a body its clauses call (short names)

    @property
    def label(self) -> str:
        """How a check names it: `TriSucc (line 4)`."""
        return f"{self.name.rsplit('.', 1)[-1]} (line {self.line})"


def axioms_reached(program: ast.Program, contract: Contract) -> tuple[Axiom, ...]:
    """The trusted lemmas that define the bodiless functions the contract's clauses call (directly or
    through functions with bodies), and those that define the bodiless functions these lemmas call in turn;
    in program order. Empty where the contract reaches no function without a body (the usual case)."""
    bodies: dict[str, ast.Expr] = {}
    bodiless: set[str] = set()
    lemmas: list[tuple[ast.Method, str, frozenset[str]]] = []
    for scope, d in iter_members(program.decls):
        owner = scope.owner
        in_trait = isinstance(owner, ast.ClassDecl) and owner.kind == "trait"
        if isinstance(d, ast.Function):
            if d.body is not None:
                bodies[d.name] = d.body
            elif not scope.abstract and not in_trait:  # refinements and classes give those a body
                bodiless.add(d.name)
        elif isinstance(d, ast.Method) and _trusted_axiom(d, scope.abstract) and (owner is None or d.static):
            calls = set().union(*(_calls(x) for c in (*d.spec.requires, *d.spec.ensures) for x in c.exprs))
            lemmas.append((d, qualified_name(scope, d.name), frozenset(calls)))
    if not bodiless:
        return ()
    reached = _through_bodies(set().union(*(_calls(cl.expr) for cl in contract.clauses)), bodies)
    chosen: dict[int, Axiom] = {}
    grew = True
    while grew:
        grew = False
        for lemma, name, mentioned in lemmas:
            defined = mentioned & bodiless & reached
            if id(lemma) in chosen or not defined:
                continue
            chosen[id(lemma)] = Axiom(lemma, name, lemma.span.line, frozenset(mentioned & bodiless))
            # what the lemma relates the function to is reached too: its axioms are needed to compute it
            reached |= _through_bodies(set(mentioned), bodies)
            grew = True
    return tuple(a for lemma, _, _ in lemmas if (a := chosen.get(id(lemma))) is not None)


def _trusted_axiom(m: ast.Method, abstract: bool) -> bool:
    """A lemma the verifier takes on trust as written: `{:axiom}`, or no body outside an abstract module (an
    abstract module's bodiless lemma is what its refinements must prove). Generic ones are left out."""
    if m.kind != "lemma" or m.type_params or not m.spec.ensures:
        return False
    return any(a.name == "axiom" for a in m.attributes) or (m.body is None and not abstract)


def _through_bodies(names: set[str], bodies: dict[str, ast.Expr]) -> set[str]:
    """`names` and every name the bodies of the functions among them call, transitively."""
    out = set(names)
    todo = [n for n in names if n in bodies]
    while todo:
        for n in _calls(bodies[todo.pop()]):
            if n not in out:
                out.add(n)
                if n in bodies:
                    todo.append(n)
    return out


def _calls(e: ast.Node) -> set[str]:
    """The short names of the functions `e` calls (`M.Tri(n)` calls Tri)."""
    return {name.rsplit(".", 1)[-1] for name in called_names(e)}

"""What a member's generation hands the search, and what it gets back: for each of its partitions, the
candidates to test, the partitions told apart by the harness's projections of their clauses' branches."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.errors import Unsupported
from dspec2test.model.contracts import Contract, ContractClause, iter_members
from dspec2test.model.resolve import Resolver, RType
from dspec2test.model.walk import called_names
from dspec2test.oracle import SolverLike
from dspec2test.partition.partitions import PartitionSpec
from dspec2test.search.compiled import Compiled
from dspec2test.search.domains import Vocabulary
from dspec2test.search.engine import Candidate, search_member
from dspec2test.search.harness import Entry
from dspec2test.solve.literal import literal
from dspec2test.solve.types import Types
from dspec2test.search.objects import Calls, calls_text, class_key
from dspec2test.emit.objects import DRIVE


@dataclass(frozen=True)
class SearchAccess:
    """A member's functions in a compiled harness."""

    compiled: Compiled
    entry: Entry


DEFAULT_LENGTH = 10  # the solver's length limit, for the types a literal is printed with where there is no solver
WITNESS_RLIMIT = 500_000  # Z3 units to show a candidate meets a combination of branches (inputs fixed)
WITNESSES = 2  # candidates tried per combination before the solver is asked about it in general


class MemberSearch:
    """A member's candidates (its pool, searched once), and what partitioning and generation ask of them."""

    def __init__(self, access: SearchAccess, contract: Contract, solver: SolverLike | None, program: ast.Program):
        """`solver`: None where the solver cannot take the contract: types and literals then come from the
        program's declarations, and nothing is confirmed."""
        self.entry = access.entry
        self.harness_classes = access.compiled.harness.classes
        self.contract = contract
        self.solver = solver
        resolver = Resolver(program)
        if solver is not None:
            self.types = solver.var_types()
            self.literal_of: Callable[[object, RType], str] = solver.literal_of
        else:
            scope = resolver.scope_of(contract.member)
            subst = {name: resolver.rtype(t, scope) for name, t in contract.instantiation}
            self.types = {v.name: resolver.rtype(v.type, scope, subst) for v in contract.params}
            for r in contract.objects.roots:
                if r.name == "this" and not r.output:
                    self.types["this"] = resolver.rtype(r.type, scope, subst)
            types = Types(resolver, cap=DEFAULT_LENGTH)
            self.literal_of = lambda value, t: literal(value, t, types)
        self.vocab = Vocabulary.of(contract_nodes(contract, program))
        self.pool = search_member(access.compiled, self.entry, self.types, resolver.ctor_fields, self.vocab)
        self._rows = {id(cl): self.entry.projections[i] for i, cl in enumerate(contract.clauses)
                      if i < len(self.entry.projections)}

    def names(self, clauses: Sequence[ContractClause], path: Sequence[int]) -> tuple[str, ...]:
        """The projections of the branches `path` takes of `clauses` (a clause the harness did not split
        says nothing)."""
        out: list[str] = []
        for clause, branch in zip(clauses, path):
            row = self._rows.get(id(clause))
            if row is not None and branch < len(row) and row[branch] is not None:
                out.append(row[branch])  # type: ignore[arg-type]
        return tuple(out)

    def known(self, clauses: Sequence[ContractClause]) -> Callable[[tuple[int, ...], tuple[ast.Expr, ...]], bool]:
        """For partitioning: a combination of branches is satisfiable when a candidate in its projections,
        fixed in the solver, meets its literals: a quick question where the general one may not end (a
        contract over recursive functions)."""
        def known(path: tuple[int, ...], literals: tuple[ast.Expr, ...]) -> bool:
            if self.solver is None:
                return False
            for cand in self.pool.matching(self.names(clauses, path))[:WITNESSES]:
                if cand.objects:
                    return False  # an object's state is what its calls left: nothing the solver can fix
                try:
                    if self.solver.solve_at(literals, cand.values, budget=WITNESS_RLIMIT) is not None:
                        return True
                except (Unsupported, KeyError):
                    return False
            return False

        return known

    def test_inputs(self, cand: Candidate) -> dict[str, str]:
        """The candidate as a test's inputs: values as literals, objects as the constructor and calls that
        make them (emit/objects.py writes those as statements)."""
        out: dict[str, str] = {}
        classes = self.harness_classes
        for name, value in cand.values.items():
            t = self.types[name]
            if isinstance(value, Calls):
                out.update(calls_text(name, value, classes[class_key(t)], self.literal_of, DRIVE))
            else:
                out[name] = self.literal_of(value, t)
        return out

    def chosen(self, clauses: Sequence[ContractClause], parts: Sequence[PartitionSpec], per_partition: int,
               total: int) -> dict[int, tuple[Candidate, ...]]:
        """The candidates chosen for each partition (by id): `per_partition` at most and about `total` in all,
        and twice that offered, since the solver may rule some out."""
        if not parts:
            return {}
        per = max(1, min(per_partition, total // len(parts)))
        partitions = [(part.id, self.names(clauses, part.branches)) for part in parts]
        return self.pool.choose(partitions, self.types, 2 * per, self.vocab.chars)


def contract_nodes(contract: Contract, program: ast.Program) -> list[ast.Node]:
    """The contract's clauses, its inputs' types' constraints, and the bodies of the functions they call
    (transitively): where the constants a search should try are written."""
    functions: dict[str, list[ast.Function]] = {}
    refined: dict[str, ast.SubsetType | ast.Newtype] = {}
    for _, d in iter_members(program.decls):
        if isinstance(d, ast.Function) and d.body is not None:
            functions.setdefault(d.name, []).append(d)
        elif isinstance(d, (ast.SubsetType, ast.Newtype)) and d.constraint is not None:
            refined[d.name] = d
    out: list[ast.Node] = [cl.expr for cl in contract.clauses]
    for v in contract.params:
        for n in ast.preorder(v.type):
            if isinstance(n, ast.NamedType) and n.name.split(".")[-1] in refined:
                decl = refined[n.name.split(".")[-1]]
                if decl.constraint is not None:
                    out.append(decl.constraint)
    todo = set().union(*(called_names(e) for e in out)) if out else set()
    seen: set[str] = set()
    while todo:
        name = todo.pop().split(".")[-1]
        if name in seen:
            continue
        seen.add(name)
        for f in functions.get(name, ()):
            assert f.body is not None
            out.append(f.body)
            todo |= called_names(f.body)
    return out

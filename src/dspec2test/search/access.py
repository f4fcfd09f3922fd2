"""What a member's generation hands the search, and what it gets back: for each of its partitions, the
candidates to test, the partitions told apart by the harness's projections of their clauses' branches."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dspec2test.dafny import ast
from dspec2test.model.contracts import Contract, ContractClause, iter_members
from dspec2test.model.resolve import Resolver
from dspec2test.model.walk import called_names
from dspec2test.oracle import SolverLike
from dspec2test.partition.partitions import PartitionSpec
from dspec2test.search.compiled import Compiled
from dspec2test.search.domains import Vocabulary
from dspec2test.search.engine import Candidate, search_member
from dspec2test.search.harness import Entry


@dataclass(frozen=True)
class SearchAccess:
    """A member's functions in a compiled harness."""

    compiled: Compiled
    entry: Entry


def candidates_for(access: SearchAccess, contract: Contract, usable: Sequence[ContractClause],
                   parts: Sequence[PartitionSpec], solver: SolverLike, program: ast.Program,
                   per_partition: int, total: int) -> dict[int, tuple[Candidate, ...]]:
    """The candidates chosen for each partition (by id), `per_partition` of each at most and about `total`
    in all; none where the search cannot run."""
    entry = access.entry
    rows = {id(cl): entry.projections[i] for i, cl in enumerate(contract.clauses) if i < len(entry.projections)}
    partitions = []
    for part in parts:
        names: list[str] = []
        for clause, branch in zip(usable, part.branches):
            row = rows.get(id(clause))
            if row is not None and branch < len(row) and row[branch] is not None:
                names.append(row[branch])  # type: ignore[arg-type]
        partitions.append((part.id, tuple(names)))
    if not partitions:
        return {}
    per = max(1, min(per_partition, total // len(partitions)))
    resolver = Resolver(program)
    found = search_member(access.compiled, entry, solver.var_types(), resolver.ctor_fields,
                          Vocabulary.of(contract_nodes(contract, program)), partitions, per)
    return found.chosen


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

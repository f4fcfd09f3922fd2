"""Where a MutDafny mutant changed its program, to explain survivors.

MutDafny names a mutant `<Program>_<start>[-<end>]_<operator>[_arg]`, the offsets being character
offsets in the original program (`-` when the operator has no position). The member whose span holds
the start offset is the one mutated; one with no requires/ensures cannot be reached by spec tests.

A mutant is out of reach of any contract-driven test when its member has no contract and no member that
has one mentions it, directly or through other members: no generated test can execute the change. The
benchmark reports the kill rate over the mutants in reach beside the plain one, as the paper's
"realistically killable" figure, without labelling any mutant by hand.
"""

from __future__ import annotations

from dspec2test.dafny import ast
from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.errors import DspecError


def mutation_offset(program: str, mutant: str) -> int | None:
    rest = mutant[len(program) + 1:] if mutant.startswith(program + "_") else ""
    head = rest.lstrip("_").split("_", 1)[0].split("-", 1)[0]
    return int(head) if head.isdigit() else None


def mutation_site(program_name: str, program_text: str, mutant: str) -> str:
    """e.g. "Triple (no contract)", "twoSum", or "" when unknown."""
    try:
        tree = parse_program(program_text, program_name + ".dfy")
    except DspecError:
        return ""
    found = _innermost(tree, mutation_offset(program_name, mutant))
    if found is None:
        return ""
    return found[0] + ("" if found[1] else " (no contract)")


def out_of_reach(program_name: str, program_text: str, mutants: list[str]) -> set[str]:
    """The mutants (by name) sure to be out of reach: the mutated member has no contract and no
    contracted member reaches it by name, directly or through other members."""
    try:
        tree = parse_program(program_text, program_name + ".dfy")
    except DspecError:
        return set()
    members = list(iter_members(tree))
    short = {name: name.rsplit(".", 1)[-1] for name, _ in members}
    mentions = {name: _mentioned(member) for name, member in members}
    reached = {name for name, member in members if _has_contract(member)}
    frontier = list(reached)
    while frontier:
        current = frontier.pop()
        for name, _ in members:
            if name not in reached and short[name] in mentions[current]:
                reached.add(name)
                frontier.append(name)
    out = set()
    for mutant in mutants:
        found = _innermost(tree, mutation_offset(program_name, mutant))
        if found is not None and not found[1] and found[0] not in reached:
            out.add(mutant)
    return out


def _innermost(tree: ast.Program, offset: int | None) -> tuple[str, bool] | None:
    """(name, has a contract) of the smallest member whose span holds the offset."""
    if offset is None:
        return None
    best: tuple[int, str, bool] | None = None
    for name, member in iter_members(tree):
        if member.span.start <= offset < member.span.end:
            size = member.span.end - member.span.start
            if best is None or size < best[0]:
                best = (size, name, _has_contract(member))
    return None if best is None else (best[1], best[2])


def _has_contract(member) -> bool:
    spec = getattr(member, "spec", None)
    return bool(spec and (spec.requires or spec.ensures))


def _mentioned(member) -> set[str]:
    """Every identifier a member's contract or body names (calls, function values, qualified names)."""
    out: set[str] = set()
    for node in ast.preorder(member):
        if isinstance(node, ast.Name):
            out.add(node.name)
        elif isinstance(node, ast.MemberSelect):
            out.add(node.name)
    return out

"""Where a MutDafny mutant changed its program, to explain survivors.

MutDafny names a mutant `<Program>_<start>[-<end>]_<operator>[_arg]`, the offsets being character
offsets in the original program (`-` when the operator has no position). The member whose span holds
the start offset is the one mutated; one with no requires/ensures cannot be reached by spec tests.
"""

from __future__ import annotations

from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.errors import DspecError


def mutation_offset(program: str, mutant: str) -> int | None:
    rest = mutant[len(program) + 1:] if mutant.startswith(program + "_") else ""
    head = rest.lstrip("_").split("_", 1)[0].split("-", 1)[0]
    return int(head) if head.isdigit() else None


def mutation_site(program_name: str, program_text: str, mutant: str) -> str:
    """e.g. "Triple (no contract)", "twoSum", or "" when unknown."""
    offset = mutation_offset(program_name, mutant)
    if offset is None:
        return ""
    try:
        tree = parse_program(program_text, program_name + ".dfy")
    except DspecError:
        return ""
    best: tuple[int, str, bool] | None = None
    for name, member in iter_members(tree):
        if member.span.start <= offset < member.span.end:
            size = member.span.end - member.span.start
            has_contract = bool(member.spec.requires or member.spec.ensures)
            if best is None or size < best[0]:
                best = (size, name, has_contract)
    if best is None:
        return ""
    return best[1] + ("" if best[2] else " (no contract)")

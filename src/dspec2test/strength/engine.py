"""Contract strength of one member: mutate its code, keep the mutants Dafny still verifies, and show each
is a real difference by running it beside the member on the spec tests' inputs.

    mutants (mutate.py) -> at most `max_mutants`, spread over the code -> one `dafny verify` of all copies
    (verifier.py) -> survivors -> one build running member, control and survivors on the inputs
    (differ.py) -> survivors with no differing input: more inputs from the same partitions, once

A survivor with a differing input is a finding; one without is counted as equivalent and never
reported. Everything after the inputs runs within `budget_s` per member.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from dspec2test.dafny import ast
from dspec2test.model.contracts import Contract
from dspec2test.model.program import LoadedProgram
from dspec2test.model.walk import free_names, walk
from dspec2test.records import TestCase
from dspec2test.strength import differ, verifier
from dspec2test.strength.copies import build
from dspec2test.strength.mutate import Mutant, mutants
from dspec2test.strength.records import Measured, MemberStrength, WeakFinding
from dspec2test.toolchain import Toolchain, find_toolchain

MoreInputs = Callable[[], Sequence[TestCase]]


@dataclass(frozen=True)
class StrengthOptions:
    budget_s: float = 60.0  # per member, from the first mutant to the last comparison
    max_mutants: int = 32  # verified per member, spread over its code
    cores: int = field(default_factory=lambda: os.cpu_count() or 2)  # cores Dafny's verifier uses
    verification_time_limit_s: int = 20  # per proof obligation of a mutant
    test_timeout_s: float = 10.0  # per test run (a mutant may loop where the member does not)


def unmeasurable(contract: Contract) -> str:
    """Why the member's strength cannot be measured ("" when it can)."""
    member = contract.member
    if contract.is_lemma or member.ghost:
        return "ghost: no compiled code to mutate"
    if contract.is_constructor:
        return "a constructor (its copies would be other constructors)"
    if any(a.name == "extern" for a in member.attributes):
        return "an {:extern} member"
    if not contract.requires and not contract.ensures:
        return "no contract"
    if contract.body_missing:
        return "no body"
    if isinstance(member, ast.Function) and not member.spec.ensures:
        return "a function without ensures: its body is its specification"
    if member.name_span.end <= member.name_span.start:
        return "internal error: no position for the member's name"
    return ""


def choose(all_mutants: list[Mutant], cap: int) -> list[Mutant]:
    """At most `cap` mutants, spread over the code: one per changed place in turn, places far apart first
    when there are more places than the cap."""
    if len(all_mutants) <= cap:
        return list(all_mutants)
    places: dict[tuple[int, int], list[Mutant]] = {}
    for m in all_mutants:
        places.setdefault((m.edit.start, m.edit.end), []).append(m)
    groups = list(places.values())
    order = _spread(len(groups))
    out: list[Mutant] = []
    depth = 0
    while len(out) < cap:
        added = False
        for i in order:
            if depth < len(groups[i]) and len(out) < cap:
                out.append(groups[i][depth])
                added = True
        if not added:
            break
        depth += 1
    return sorted(out, key=lambda m: m.id)


def _spread(n: int) -> list[int]:
    """0..n-1 in an order that visits far-apart indices first (0, n/2, n/4, 3n/4, ...)."""
    out: list[int] = []
    seen: set[int] = set()
    step = n
    while step >= 1 and len(out) < n:
        for i in range(0, n, step):
            if i not in seen:
                seen.add(i)
                out.append(i)
        step //= 2
    return out + [i for i in range(n) if i not in seen]


def measure(loaded: LoadedProgram, contract: Contract, cases: Sequence[TestCase],
            options: StrengthOptions = StrengthOptions(), more: MoreInputs | None = None,
            tools: Toolchain | None = None) -> MemberStrength:
    """The strength of `contract`'s member in the program `loaded`, given the spec tests' `cases`."""
    start = time.monotonic()
    base = MemberStrength(contract.name, contract.file, contract.line, Measured.MEASURED)
    why = unmeasurable(contract)
    if why:
        return replace(base, status=Measured.SKIPPED, reason=why)
    tools = tools or find_toolchain()
    if not tools.dafny:
        return replace(base, status=Measured.ERROR, reason="dafny not found (run scripts/setup.sh or set DSPEC2TEST_DAFNY)")
    member = contract.member
    source = loaded.program.source(member.origin or loaded.program.path)
    made = mutants(member, loaded.program, source.text)
    chosen = choose(made, options.max_mutants)
    base = replace(base, mutants=len(made), chosen=len(chosen))
    if not chosen:
        return replace(base, reason="no mutation applies to its code", seconds={"total": time.monotonic() - start})
    deadline = start + options.budget_s
    by_id = {m.id: m for m in chosen}
    with tempfile.TemporaryDirectory(prefix="dspec2test-strength-") as tmp:
        work = Path(tmp)
        (work / "verify").mkdir()
        # verification leaves time to run what survives it: a slow proof gets partial verdicts instead
        checked = verifier.check(source, member, chosen, work / "verify", tools, deadline - _run_reserve(options),
                                 verifier.VerifySettings(options.cores, options.verification_time_limit_s))
        seconds = {"verify": round(checked.wall_s, 2)}
        base = replace(base, chosen=len(chosen) - len(checked.unverified), incompetent=len(checked.incompetent),
                       killed=len(checked.killed), survived=len(checked.survived))
        if checked.error:
            return replace(base, status=Measured.ERROR, reason=checked.error,
                           seconds={**seconds, "total": round(time.monotonic() - start, 2)})
        survivors = list(checked.survived)
        differences: dict[int, differ.Difference] = {}
        tried: set[int] = set()  # survivors run beside the member at least once
        inputs = nondeterministic = 0
        notes = [] if cases or not survivors else ["no spec test inputs: the mutants that verify could not be run"]
        if checked.unverified:
            notes.append(f"the budget ran out before {len(checked.unverified)} of the {len(chosen)} mutants were "
                         f"verified")
        batches: list[Sequence[TestCase]] = [cases] if cases else []
        asked_more = False
        while survivors and batches:
            batch = batches.pop(0)
            left = deadline - time.monotonic()
            if left <= 5:
                notes.append("the budget ran out before every mutant that verifies was run")
                break
            runs = sum(1 for k in seconds if k.startswith("run")) + 1
            path = work / f"run{runs}" / Path(source.path).name
            path.parent.mkdir()
            path.write_text(build(source, member, [by_id[k] for k in survivors]).text, encoding="utf-8")
            compared = differ.compare(path, contract.name, survivors, batch, options.test_timeout_s, left)
            seconds[f"run{runs}"] = round(compared.wall_s, 2)
            if compared.error:
                return replace(base, status=Measured.ERROR, reason=compared.error,
                               seconds={**seconds, "total": round(time.monotonic() - start, 2)})
            differences.update(compared.differences)
            tried.update(survivors)
            inputs += compared.inputs
            nondeterministic += compared.nondeterministic
            survivors = list(compared.same)
            if survivors and more is not None and not asked_more and deadline - time.monotonic() > 10:
                asked_more = True  # more inputs of the same partitions, once
                t0 = time.monotonic()
                extra = _renamed_more(more(), cases)
                seconds["inputs"] = round(time.monotonic() - t0, 2)
                if extra:
                    batches.append(extra)
    findings = tuple(_finding(contract, source, by_id[k], d) for k, d in sorted(differences.items()))
    total = round(time.monotonic() - start, 2)
    return replace(base, findings=findings, equivalent=len(tried) - len(findings),
                   unrun=base.survived - len(tried), inputs=inputs, nondeterministic=nondeterministic,
                   reason="; ".join(notes), seconds={**seconds, "total": total})


def _run_reserve(options: StrengthOptions) -> float:
    """Seconds of the budget kept for running the mutants that verify (one build and run of them)."""
    return min(15.0, options.budget_s / 4)


def _renamed_more(extra: Sequence[TestCase], cases: Sequence[TestCase]) -> list[TestCase]:
    """Further inputs, without those the spec tests have, under names of their own."""
    known = [tc.inputs for tc in cases]
    return [replace(tc, name=f"{tc.name}_more") for tc in extra if tc.inputs not in known]


def _finding(contract: Contract, source: ast.Program, mutant: Mutant, d: differ.Difference) -> WeakFinding:
    before, after = mutated_line(source.text, mutant)
    return WeakFinding(contract.name, contract.file, contract.line, mutant.id, mutant.operator, mutant.line,
                       before, after, mutant.description, d.inputs, d.original, d.mutated, d.test, d.partition,
                       d.label, ruling_clause(contract, d), d.inputs_differing)


def mutated_line(text: str, mutant: Mutant) -> tuple[str, str]:
    """The lines the mutant changes, as written and as mutated (each on one line)."""
    e = mutant.edit
    first = text.rfind("\n", 0, e.start) + 1
    last = text.find("\n", e.end)
    last = len(text) if last < 0 else last
    before = text[first:last]
    after = text[first:e.start] + e.text + text[e.end:last]
    return " ".join(before.split()), " ".join(after.split())


def ruling_clause(contract: Contract, d: differ.Difference) -> str | None:
    """What the contract lacks, when it is plain: an output no ensures mentions, or no ensures at all."""
    changed = [k for k in sorted(set(d.original) | set(d.mutated)) if d.original.get(k) != d.mutated.get(k)]
    if "(end)" in changed:
        return None
    if not contract.ensures:
        return f"{contract.short} has no ensures: nothing constrains {', '.join(changed) or 'its outputs'}"
    loose = [k for k in changed if not any(k in free_names(c.expr) for c in contract.ensures)]
    if loose:
        return f"no ensures constrains {', '.join(loose)}"
    for k in changed:
        about = [c for c in contract.ensures if k in free_names(c.expr)]
        if about and not any(_pins(c.expr, k) for c in about):
            said = "; ".join(f"{c.text} (line {c.line})" for c in about[:2])
            return f"the ensures only bound {k} ({said}): none says which value it takes"
    return None


def _pins(e: ast.Expr, name: str) -> bool:
    """Whether `e` compares `name` (or an element of it) for equality, or says what it holds."""
    for node in walk(e):
        if isinstance(node, ast.BinOp) and node.op in ("==", "<==>", "in", "!in") and \
                name in free_names(node.left) | free_names(node.right):
            return True
        if isinstance(node, ast.Chain) and "==" in node.ops and any(name in free_names(o) for o in node.operands):
            return True
        if isinstance(node, (ast.Call, ast.Quantifier)) and name in free_names(node):
            return True  # a predicate or quantifier about it: not plainly a bound
    return False

#!/usr/bin/env python3
"""Contract strength against MutDafny's verdicts: a benchmark (issue 30), not a test.

For a corpus (CORPUS/programs/*.dfy, CORPUS/mutants/<P>/*.dfy, optional CORPUS/verify-status.tsv):
  1. every mutant's `dafny verify` verdict (from verify-status.tsv, else verified here, cached by content);
  2. each mutant that verifies ("alive": MutDafny found the contract accepts it) is mapped to the member
     its character offset (in its file name) falls in; those members are the reference;
  3. `dspec2test strength` on the members of each program (the reference ones, or all with --all);
  4. how many reference members we flag, the time per member, and the findings outside the reference.

    PYTHONPATH=src .venv/bin/python scripts/strength_bench.py CORPUS_DIR --all --json out.json

With --compare-verify N, it also times, on N members with mutants, one `dafny verify` of all copies
against one `dafny verify` per mutant (two at a time), the choice the engine made.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

from dspec2test.bench.classify import Classifier, read_recorded
from dspec2test.bench.corpus import load_corpus
from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.emit.tests_file import EmitContext, checks_of, emit_file, emit_test, modules_to_open
from dspec2test.generate import GenerateOptions, generate
from dspec2test.model.contracts import select
from dspec2test.model.program import load_program
from dspec2test.run import RunOptions, run_tests
from dspec2test.run.process import run_limited
from dspec2test.run.verify import Verification
from dspec2test.strength import verifier
from dspec2test.strength.copies import splice
from dspec2test.strength.engine import StrengthOptions, choose, unmeasurable
from dspec2test.strength.mutate import mutants
from dspec2test.strength.program import strength_of_file
from dspec2test.toolchain import DAFNY_VERSION, find_toolchain


def offset_of(mutant: str, program: str) -> int | None:
    """MutDafny's `<program>_<start>[-<end>]_<OP>...` file names: the start offset (None for `-`)."""
    rest = mutant[len(program):].lstrip("_")
    first = rest.split("_", 1)[0]
    start = first.split("-", 1)[0]
    return int(start) if start.isdigit() else None


def enclosing(text: str, path: str, offset: int) -> tuple[str, str] | None:
    """(qualified name, kind) of the innermost member whose text holds `offset`."""
    program = parse_program(text, path)
    around = [(name, m) for name, m in iter_members(program) if m.span.start <= offset < m.span.end]
    if not around:
        return None
    name, m = min(around, key=lambda nm: nm[1].span.end - nm[1].span.start)
    return name, ("ghost " if m.ghost else "") + m.kind


def statuses(root: Path, corpus, cache: Path, jobs: int) -> dict[str, Verification]:
    recorded = read_recorded(root)
    out: dict[str, Verification] = {}
    todo = []
    for m in corpus.mutants:
        key = str(m.path.relative_to(root))
        if key in recorded:
            out[m.name] = recorded[key]
        else:
            todo.append((m.name, m.text))
    for p in corpus.programs:
        key = str(p.path.relative_to(root))
        if key in recorded:
            out[p.name] = recorded[key]
        else:
            todo.append((p.name, p.text))
    if todo:
        print(f"classify: {len(todo)} files with dafny verify", file=sys.stderr, flush=True)
        got = Classifier(find_toolchain(), DAFNY_VERSION, cache, jobs).classify(todo)
        out.update({name: c.verification for name, c in got.items()})
    return out


def reference(corpus, verdicts: dict[str, Verification]) -> tuple[dict[str, dict[str, list[str]]], dict]:
    """program -> member -> alive mutants, and counts of the alive mutants by where they are."""
    ref: dict[str, dict[str, list[str]]] = {}
    where = {"alive": 0, "no position": 0, "outside members": 0}
    kinds: dict[str, int] = {}
    for p in corpus.programs:
        if verdicts.get(p.name) is not Verification.VERIFIED:
            continue
        for m in corpus.mutants_of(p.name):
            if verdicts.get(m.name) is not Verification.VERIFIED:
                continue
            where["alive"] += 1
            offset = offset_of(m.name, p.name)
            if offset is None:
                where["no position"] += 1
                continue
            found = enclosing(p.text, str(p.path), offset)
            if found is None:
                where["outside members"] += 1
                continue
            kinds[found[1]] = kinds.get(found[1], 0) + 1
            ref.setdefault(p.name, {}).setdefault(found[0], []).append(m.name)
    return ref, {**where, "by kind": kinds}


def mutdafny_differences(program: Path, member: str, mutants: list[Path]) -> dict[str, dict | None]:
    """Whether each of MutDafny's verified mutants of `member` computes something else than the program
    on our inputs (the spec tests with boundary values, then three solutions per partition): the same
    question strength asks of its own mutants. None: no input told them apart (likely equivalent)."""
    loaded = load_program(str(program))
    contracts = select(loaded.program, (member,))
    if not contracts:
        return {m.stem: None for m in mutants}
    contract = contracts[0]
    cases = list(generate(str(program), GenerateOptions(methods=(member,), bva=100)).cases)
    more = generate(str(program), GenerateOptions(methods=(member,), repeat=3, probe=False)).cases
    cases += [replace(tc, name=tc.name + "_more") for tc in more if tc.inputs not in [c.inputs for c in cases]]
    if not cases:
        return {m.stem: None for m in mutants}
    ctx = EmitContext.of(loaded.program)
    checks = checks_of(contract, ctx)
    text = emit_file(str(program), modules_to_open([contract]),
                     [emit_test(contract, tc, checks, ctx, False, observe=True) for tc in cases])
    options = RunOptions(target="py", timeout_s=10)
    base = run_tests(program, text, cases, options)
    out: dict[str, dict | None] = {}
    for m in mutants:
        got = run_tests(m, text, cases, options)
        statuses = {v.test: v.status.value for v in got.verdicts}
        first = None
        ran = ("passed", "failed", "crashed")  # a test that timed out or did not run says nothing either way
        for v in base.verdicts:
            if v.status.value not in ran or statuses.get(v.test) not in ran:
                continue
            same_end = statuses.get(v.test) == v.status.value
            if not same_end or got.outputs.get(v.test) != base.outputs.get(v.test):
                first = {"inputs": v.inputs, "original": base.outputs.get(v.test), "status": v.status.value,
                         "mutated": got.outputs.get(v.test), "mutant_status": statuses.get(v.test)}
                break
        out[m.stem] = first
    return out


def compare_verify(corpus, limit: int, cap: int) -> list[dict]:
    """One process for all copies against one process per mutant, on `limit` members."""
    tools = find_toolchain()
    rows = []
    for p in corpus.programs:
        if len(rows) >= limit:
            break
        loaded = load_program(str(p.path))
        for c in select(loaded.program):
            if len(rows) >= limit or unmeasurable(c):
                continue
            chosen = choose(mutants(c.member, loaded.program, p.text), cap)
            if len(chosen) < 4:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.monotonic()
                one = verifier.check(loaded.program, c.member, chosen, Path(tmp), tools, time.monotonic() + 600)
                t_one = time.monotonic() - t0
            t0 = time.monotonic()
            with ThreadPoolExecutor(max_workers=2) as pool:
                separate = list(pool.map(lambda m: _verify_alone(p.text, p.path.name, c.name, m, tools), chosen))
            t_sep = time.monotonic() - t0
            rows.append({"program": p.name, "member": c.name, "mutants": len(chosen), "one_process_s": round(t_one, 1),
                         "separate_s": round(t_sep, 1), "one_survived": len(one.survived),
                         "separate_survived": sum(1 for s in separate if s == 0)})
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def _verify_alone(text: str, name: str, member: str, mutant, tools) -> int | None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(splice(text, [mutant.edit]))
        argv = [tools.dafny, "verify", "--allow-warnings", *tools.solver_args(), f"--filter-symbol={member}.",
                "--verification-time-limit", "20", name]
        return run_limited(argv, Path(tmp), tools.dafny_env(), 600).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--programs", help="glob of program names")
    ap.add_argument("--all", action="store_true", help="measure every member with a contract, not only the reference")
    ap.add_argument("--budget", type=float, default=StrengthOptions().budget_s)
    ap.add_argument("--max-mutants", type=int, default=StrengthOptions().max_mutants)
    ap.add_argument("--cache", default=".dspec2test-cache")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every member's row here")
    ap.add_argument("--compare-verify", type=int, default=0, metavar="N")
    ap.add_argument("--equivalence", action="store_true",
                    help="also run MutDafny's verified mutants on our inputs: which of them differ from the program")
    args = ap.parse_args()
    root = Path(args.corpus)
    corpus = load_corpus(root, args.programs)
    if args.compare_verify:
        rows = compare_verify(corpus, args.compare_verify, args.max_mutants)
        print(json.dumps(rows, indent=2))
        return 0
    verdicts = statuses(root, corpus, Path(args.cache), args.jobs)
    ref, where = reference(corpus, verdicts)
    options = StrengthOptions(budget_s=args.budget, max_mutants=args.max_mutants)
    rows = []
    done_path = Path(args.json + ".partial") if args.json else None
    done = {}
    if done_path and done_path.exists():
        done = {(r["program"], r["name"]): r for r in map(json.loads, done_path.read_text().splitlines())}
    for p in corpus.programs:
        if verdicts.get(p.name) is not Verification.VERIFIED:
            continue
        members = sorted(ref.get(p.name, {}))
        if not members and not args.all:
            continue
        wanted = () if args.all else tuple(members)
        loaded = load_program(str(p.path))
        names = [c.name for c in select(loaded.program, wanted)] if not isinstance(loaded, Exception) else []
        if all((p.name, n) in done for n in names) and names:
            rows += [done[(p.name, n)] for n in names]
            continue
        got = strength_of_file(str(p.path), options, wanted, GenerateOptions(bva=100),
                               progress=lambda r: print(f"{p.name}: {r.member}: {r.status.value} {len(r.findings)} "
                                                        f"findings {r.seconds.get('total', 0):.1f} s {r.reason}",
                                                        file=sys.stderr, flush=True))
        alive_paths = {m.name: m.path for m in corpus.mutants_of(p.name)}
        for r in got.members:
            differs = {}
            if args.equivalence and r.member in ref.get(p.name, {}) and r.status.value != "skipped":
                differs = mutdafny_differences(p.path, r.member, [alive_paths[n] for n in ref[p.name][r.member]])
            row = {"program": p.name, "name": r.member, "reference": r.member in ref.get(p.name, {}),
                   "alive_differs": differs,
                   "alive": ref.get(p.name, {}).get(r.member, []), "status": r.status.value, "reason": r.reason,
                   "weak": r.weak, "mutants": r.chosen, "killed": r.killed, "incompetent": r.incompetent,
                   "survived": r.survived, "equivalent": r.equivalent, "findings": len(r.findings),
                   "seconds": r.seconds, "generate_s": got.generate_s,
                   "examples": [asdict(f) for f in r.findings[:2]]}
            rows.append(row)
            if done_path:
                with done_path.open("a") as fh:
                    fh.write(json.dumps(row) + "\n")
    summary = summarise(rows, ref, where)
    print(json.dumps(summary, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "members": rows}, indent=2) + "\n")
    return 0


def summarise(rows: list[dict], ref: dict, where: dict) -> dict:
    ref_members = [(p, m) for p, ms in ref.items() for m in ms]
    by_key = {(r["program"], r["name"]): r for r in rows}
    in_scope = [k for k in ref_members if k in by_key and by_key[k]["status"] != "skipped"]
    measured = [k for k in in_scope if by_key[k]["status"] == "measured"]
    flagged = [k for k in in_scope if by_key[k]["weak"]]
    times = [r["seconds"].get("total", 0.0) for r in rows if r["status"] == "measured"]
    differing = [k for k in in_scope if any(v for v in by_key[k].get("alive_differs", {}).values())]
    others = [r for r in rows if not r["reference"] and r["status"] == "measured"]
    return {
        "alive mutants": where, "reference members": len(ref_members),
        "reference members with a contract and code (in scope)": len(in_scope),
        "of those measured": len(measured), "of those flagged": len(flagged),
        "in scope with a MutDafny mutant that differs on our inputs": len(differing),
        "of those, flagged": sum(1 for k in differing if by_key[k]["weak"]),
        "in scope whose MutDafny mutants never differ on our inputs (likely equivalent)": len(
            [k for k in in_scope if by_key[k].get("alive_differs") and k not in differing]),
        "not in scope": sorted(f"{p}:{m}" + (f" ({by_key[(p, m)]['reason']})" if (p, m) in by_key else "")
                               for p, m in ref_members if (p, m) not in in_scope),
        "not measured": {f"{p}:{m}": by_key[(p, m)]["reason"] for p, m in in_scope if (p, m) not in measured},
        "reference members measured but not flagged": sorted(f"{p}:{m}" for p, m in measured if (p, m) not in flagged),
        "members measured": len(times), "other members measured": len(others),
        "other members flagged": sum(1 for r in others if r["weak"]),
        "findings": sum(r["findings"] for r in rows),
        "seconds per member": {"median": round(statistics.median(times), 1) if times else 0,
                               "mean": round(statistics.mean(times), 1) if times else 0,
                               "max": round(max(times), 1) if times else 0},
    }


if __name__ == "__main__":
    sys.exit(main())

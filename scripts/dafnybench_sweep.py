#!/usr/bin/env python3
"""DafnyBench sweep: generate and run tests for every program of a corpus folder, then summarise.

A benchmark, not a test. For each PROG in CORPUS/programs (or CORPUS itself):
  1. `dspec2test parse PROG --json`                       (parse error?)
  2. `dspec2test generate PROG --bva -o T.dfy --json T.json` under a wall-clock and memory cap
  3. `dspec2test run PROG --tests T.dfy --target py --json R.json`
The corpus programs verify, so every failing test is a false alarm, a bug of ours, unless the member's
proof rests on `assume` statements (the run reports their lines; such failures are listed apart).

Each program's outcome is kept in OUT/<stem>/outcome.json, so an interrupted sweep resumes where it
stopped (pass --fresh to redo everything). OUT/summary.json holds the totals, and they are printed.

    .venv/bin/python scripts/dafnybench_sweep.py CORPUS --out OUT      # CORPUS: a folder of DafnyBench programs

The child commands run as `<this python> -m dspec2test`, so PYTHONPATH selects which source tree is
measured.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

TIMEOUT_RCS = {124, 137}  # timeout(1): limit reached, or killed after the grace period


def main(argv: list[str] | None = None) -> int:
    args = _arguments().parse_args(argv)
    corpus = Path(args.corpus)
    folder = corpus / "programs" if (corpus / "programs").is_dir() else corpus
    programs = sorted(folder.glob("*.dfy"))
    if args.only:
        programs = [p for p in programs if any(o in p.name for o in args.only)]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = max(1, min(args.jobs, 2))  # the machine is shared: never more than two at once

    def one(program: Path) -> dict[str, Any]:
        record = out / program.stem / "outcome.json"
        if record.is_file() and not args.fresh:
            return json.loads(record.read_text())
        outcome = sweep_program(program, out / program.stem, args)
        record.write_text(json.dumps(outcome, indent=2) + "\n")
        print(f"[{outcome['category']:>16}] {program.name} ({outcome['wall_s']:.0f} s)", file=sys.stderr,
              flush=True)
        return outcome

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(one, programs))
    summary = summarise(outcomes)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(render(summary))
    return 0


def _arguments() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("corpus", help="a corpus folder (with programs/) or a folder of .dfy files")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--jobs", type=int, default=2, help="programs at once (at most 2)")
    p.add_argument("--gen-timeout", type=float, default=120, help="wall-clock seconds for generate")
    p.add_argument("--run-timeout", type=float, default=600, help="wall-clock seconds for run")
    p.add_argument("--mem", type=int, default=4_000_000_000, help="address-space cap (bytes) for generate")
    p.add_argument("--target", default="py", help="Dafny target of run")
    p.add_argument("--only", action="append", default=[], help="only programs whose name contains this")
    p.add_argument("--fresh", action="store_true", help="ignore outcomes of an earlier sweep")
    return p


def _cli(*words: str) -> list[str]:
    return [sys.executable, "-m", "dspec2test", *words]


def _capped(argv: list[str], seconds: float, mem: int | None = None) -> list[str]:
    # timeout -k: SIGTERM at the limit, SIGKILL 5 s later; prlimit: Z3 can also run away with memory.
    prefix = ["timeout", "-k", "5", str(int(seconds))]
    if mem:
        prefix += ["prlimit", f"--as={mem}"]
    return prefix + argv


def _call(argv: list[str], log: Path) -> tuple[int, float]:
    start = time.monotonic()
    with log.open("w") as fh:
        rc = subprocess.run(argv, stdout=fh, stderr=subprocess.STDOUT).returncode
    return rc, time.monotonic() - start


def sweep_program(program: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One program's outcome: category, members, unsupported reasons, run verdicts, false alarms."""
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    outcome: dict[str, Any] = {"program": program.name, "members": 0, "members_with_tests": 0,
                               "unsupported": [], "tests": 0, "summary": None, "false_alarms": [],
                               "timeouts": [], "errors": [], "detail": ""}

    def done(category: str, detail: str = "") -> dict[str, Any]:
        outcome["category"] = category
        outcome["detail"] = detail
        outcome["wall_s"] = round(time.monotonic() - started, 1)
        return outcome

    parsed = subprocess.run(_cli("parse", str(program), "--json"), capture_output=True, text=True)
    try:
        parse_doc = json.loads(parsed.stdout)["files"][0]
    except (ValueError, KeyError, IndexError):
        return done("parse error", parsed.stderr.strip()[-500:])
    if not parse_doc.get("ok"):
        return done("parse error", json.dumps(parse_doc.get("error")))

    tests, manifest = work / "T.dfy", work / "T.json"
    for stale in (tests, manifest, work / "R.json"):
        stale.unlink(missing_ok=True)
    rc, gen_s = _call(_capped(_cli("generate", str(program), "--bva", "-o", str(tests), "--json", str(manifest)),
                              args.gen_timeout, args.mem), work / "generate.log")
    outcome["generate_rc"], outcome["generate_s"] = rc, round(gen_s, 1)
    if rc in TIMEOUT_RCS:
        return done("timeout", f"generate exceeded {args.gen_timeout:g} s (rc {rc})")
    if not manifest.is_file():
        signal = f" (killed by signal {-rc})" if rc < 0 else ""
        return done("generate error", f"exit {rc}{signal}: " + _tail(work / "generate.log"))
    methods = json.loads(manifest.read_text()).get("methods", [])
    outcome["members"] = len(methods)
    for m in methods:
        if any(s.get("test") for part in m.get("partitions", []) for s in part.get("scenarios", [])):
            outcome["members_with_tests"] += 1
        outcome["unsupported"] += [{"member": m["name"], "construct": u.get("construct"), "line": u.get("line"),
                                    "message": u.get("message")} for u in m.get("unsupported", [])]
    if not methods:
        return done("no contracts", "no contract-bearing members")
    if outcome["members_with_tests"] == 0 or not tests.is_file():
        return done("all unsupported", "no member got a test")

    run_json = work / "R.json"
    rc, run_s = _call(_capped(_cli("run", str(program), "--tests", str(tests), "--target", args.target,
                                   "--json", str(run_json)), args.run_timeout), work / "run.log")
    outcome["run_rc"], outcome["run_s"] = rc, round(run_s, 1)
    if rc in TIMEOUT_RCS:
        return done("timeout", f"run exceeded {args.run_timeout:g} s (rc {rc})")
    if not run_json.is_file():
        return done("build error" if rc == 2 else "run error", _tail(work / "run.log"))
    verdicts = json.loads(run_json.read_text())
    outcome["summary"] = verdicts.get("summary")
    outcome["tests"] = (verdicts.get("summary") or {}).get("tests", 0)
    if verdicts.get("build_errors"):
        outcome["build_errors"] = verdicts["build_errors"][:5]
        return done("build error", json.dumps(verdicts["build_errors"][:2])[:800])
    for t in verdicts.get("tests", []):
        if t.get("status") == "passed":
            continue
        alarm = {k: t.get(k) for k in ("name", "method", "status", "inputs", "clause", "clause_line", "expected",
                                       "actual", "message", "assumes")}
        # A failed test is a false alarm; an error (a member with no body, a test that would not build)
        # and a timeout are kept apart, since the program itself may be to blame. So is a failure of a
        # member whose proof rests on `assume`: verification promised nothing the run could break.
        key = {"failed": "false_alarms", "timeout": "timeouts"}.get(t.get("status"), "errors")
        if key == "false_alarms" and t.get("assumes"):
            key = "assumed"
        outcome.setdefault(key, []).append(alarm)
    return done("runnable")


def _tail(path: Path, chars: int = 800) -> str:
    return path.read_text(errors="replace").strip()[-chars:] if path.is_file() else ""


def summarise(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    reasons = Counter(u["construct"] for o in outcomes for u in o["unsupported"])
    categories = Counter(o["category"] for o in outcomes)
    return {
        "programs": len(outcomes),
        "members": sum(o["members"] for o in outcomes),
        "members_with_tests": sum(o["members_with_tests"] for o in outcomes),
        "tests": sum(o["tests"] for o in outcomes),
        "unsupported_histogram": dict(reasons.most_common()),
        "categories": dict(categories.most_common()),
        "runnable": [o["program"] for o in outcomes if o["category"] == "runnable"],
        "not_runnable": [{"program": o["program"], "why": o["category"], "detail": o["detail"]}
                         for o in outcomes if o["category"] != "runnable"],
        "false_alarms": [dict(a, program=o["program"]) for o in outcomes for a in o["false_alarms"]],
        "timeouts": [dict(a, program=o["program"]) for o in outcomes for a in o["timeouts"]],
        "assumed": [dict(a, program=o["program"]) for o in outcomes for a in o.get("assumed", [])],
        "errors": [dict(a, program=o["program"]) for o in outcomes for a in o.get("errors", [])],
    }


def render(s: dict[str, Any]) -> str:
    lines = [f"programs processed:        {s['programs']}",
             f"contract-bearing members:  {s['members']}",
             f"members that got tests:    {s['members_with_tests']}",
             f"tests run:                 {s['tests']}",
             f"programs with runnable tests: {len(s['runnable'])}",
             "programs without, by reason: " + ", ".join(f"{k} {v}" for k, v in s["categories"].items()
                                                         if k != "runnable"),
             "unsupported reasons (construct: count):"]
    lines += [f"  {k}: {v}" for k, v in s["unsupported_histogram"].items()]
    lines.append("programs without runnable tests:")
    lines += [f"  [{n['why']}] {n['program']}: {n['detail'][:160]}" for n in s["not_runnable"]]
    lines.append(f"false alarms: {len(s['false_alarms'])}")
    for a in s["false_alarms"]:
        lines.append(f"  {a['program']} {a['name']} [{a['status']}] inputs={a['inputs']} clause={a['clause']!r}"
                     f" (line {a['clause_line']}) {str(a['message'])[:200]}")
    lines.append(f"failures of members whose proof assumes (not counted as false alarms): {len(s['assumed'])}")
    lines += [f"  {a['program']} {a['name']} assume at {a['assumes']} clause={a['clause']!r} actual={a['actual']}"
              for a in s["assumed"]]
    lines.append(f"test timeouts: {len(s['timeouts'])}")
    lines += [f"  {a['program']} {a['name']} inputs={a['inputs']} actual={a['actual']}: {str(a['message'])[:80]}"
              for a in s["timeouts"]]
    lines.append(f"test errors (not counted as false alarms): {len(s['errors'])}")
    lines += [f"  {a['program']} {a['name']}: {str(a['message'])[:160]}" for a in s["errors"]]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

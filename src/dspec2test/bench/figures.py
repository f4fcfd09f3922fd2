"""Figures of a benchmark run: per strategy, per mutant (the kill matrix), and between strategies."""

from __future__ import annotations

from itertools import combinations

from dspec2test.bench.engine import BenchRun, MutantClass, MutantStatus, StrategyRun, mutant_key
from dspec2test.bench.sites import mutation_site, out_of_reach

KILLS = (MutantStatus.KILLED, MutantStatus.TIMEOUT)


def _rate(num: float, den: float) -> float:
    return round(num / den, 4) if den else 0.0


def strategy_figures(bench: BenchRun, run: StrategyRun) -> dict:
    bugs = [mutant_key(m) for m in bench.corpus.mutants if bench.classes[mutant_key(m)] is MutantClass.BUG]
    labelled = {mutant_key(m) for m in bench.corpus.mutants if m.label is not None}
    count = {s: sum(run.status.get(k) is s for k in bugs) for s in MutantStatus}
    supported_bugs = len(bugs) - count[MutantStatus.UNSUPPORTED]
    kills = count[MutantStatus.KILLED] + count[MutantStatus.TIMEOUT]
    killable = [k for k in bugs if k not in labelled and run.status.get(k) is not MutantStatus.ERROR]
    unreachable = _out_of_reach(bench)
    in_reach = [k for k in bugs if k not in unreachable]
    killed_in_reach = sum(run.status.get(k) in KILLS for k in in_reach)
    alive = [mutant_key(m) for m in bench.corpus.mutants if bench.classes[mutant_key(m)] is MutantClass.ALIVE]
    supported = [p.name for p in bench.corpus.programs if p.name not in run.unsupported]
    wall = {phase: round(seconds, 2) for phase, seconds in run.wall.items()}
    return {
        "programs": len(bench.corpus.programs),
        "programs_supported": len(supported),
        "mutants": len(bugs),
        "mutants_supported": supported_bugs,
        "killed": count[MutantStatus.KILLED],
        "survived": count[MutantStatus.SURVIVED],
        "timeout": count[MutantStatus.TIMEOUT],
        "error": count[MutantStatus.ERROR],
        "unsupported": count[MutantStatus.UNSUPPORTED],
        "kill_rate": _rate(kills, supported_bugs),
        "kill_rate_all": _rate(kills, len(bugs)),
        "killable": len(killable),
        "killed_killable": sum(run.status.get(k) in KILLS for k in killable),
        "kill_rate_killable": _rate(sum(run.status.get(k) in KILLS for k in killable), len(killable)),
        "in_reach": len(in_reach),
        "killed_in_reach": killed_in_reach,
        "kill_rate_in_reach": _rate(killed_in_reach, len(in_reach)),
        "out_of_reach": sorted(k for k in bugs if k in unreachable),
        "tests": sum(run.prepared[p].tests for p in supported),
        "tests_generated": sum(p.tests for p in run.prepared.values()),
        "false_alarms": sum(len(v) for v in run.false_alarms.values()),
        "false_alarm_programs": sorted(run.false_alarms),
        "false_alarm_tests": {k: v for k, v in sorted(run.false_alarms.items())},
        "assumption_failures": sum(len(v) for v in run.assumed.values()),
        "assumption_failure_programs": sorted(run.assumed),
        "no_implementation_tests": sum(len(v) for v in run.no_body.values()),
        "unbuilt_tests": sum(len(v) for v in run.unbuilt.values()),
        "alive_run": sum(k in run.status for k in alive),
        "alive_failing": sum(run.status.get(k) in KILLS for k in alive),
        "wall_s": round(sum(run.wall.values()), 2),
        "wall_phase_s": wall,
        "builds": run.builds,
        "mutants_per_s": _rate(run.subjects_run, run.wall.get("kill", 0.0)) if run.subjects_run else 0.0,
        "unsupported_programs": dict(sorted(run.unsupported.items())),
        "per_program": {p.name: {"tests": run.prepared[p.name].tests if p.name in run.prepared else 0,
                                 "generate_s": round(run.prepared[p.name].seconds, 2) if p.name in run.prepared else 0.0,
                                 "supported": p.name not in run.unsupported}
                        for p in bench.corpus.programs},
    }


def _out_of_reach(bench: BenchRun) -> set[str]:
    """Mutant keys no contract-driven test can execute (see bench/sites.py)."""
    out: set[str] = set()
    for p in bench.corpus.programs:
        mine = bench.corpus.mutants_of(p.name)
        names = out_of_reach(p.name, p.text, [m.name for m in mine])
        out |= {mutant_key(m) for m in mine if m.name in names}
    return out


def kill_matrix(bench: BenchRun) -> list[dict]:
    rows = []
    for m in bench.corpus.mutants:  # sorted by (program, mutant) when loaded
        key = mutant_key(m)
        rows.append({
            "program": m.program,
            "mutant": m.name,
            "class": bench.classes[key].value,
            "label": m.label.value if m.label else None,
            "status": {r.strategy.value: (r.status[key].value if key in r.status else None) for r in bench.runs},
        })
    return rows


def overlap(bench: BenchRun) -> dict:
    bugs = [mutant_key(m) for m in bench.corpus.mutants if bench.classes[mutant_key(m)] is MutantClass.BUG]
    killed = {r.strategy.value: {k for k in bugs if r.status.get(k) in KILLS} for r in bench.runs}
    unique = {name: sorted(ks - set().union(*(v for n, v in killed.items() if n != name))) for name, ks in killed.items()}
    pairs = {
        f"{a}|{b}": {"both": len(killed[a] & killed[b]), f"only_{a}": len(killed[a] - killed[b]),
                     f"only_{b}": len(killed[b] - killed[a]), "neither": len(set(bugs) - killed[a] - killed[b])}
        for a, b in combinations(sorted(killed), 2)
    }
    return {"unique_kills": {n: len(v) for n, v in unique.items()}, "unique": unique, "pairs": pairs}


def to_json(bench: BenchRun) -> dict:
    runs = {r.strategy.value: strategy_figures(bench, r) for r in bench.runs}
    ov = overlap(bench)
    for name, figures in runs.items():
        figures["unique_kills"] = ov["unique_kills"][name]
    classes = [bench.classes[mutant_key(m)].value for m in bench.corpus.mutants]
    texts = {p.name: p.text for p in bench.corpus.programs}
    survivors = {k for r in bench.runs for k, s in r.status.items() if s is MutantStatus.SURVIVED}
    sites = {mutant_key(m): mutation_site(m.program, texts[m.program], m.name)
             for m in bench.corpus.mutants if mutant_key(m) in survivors}
    return {
        "corpus": str(bench.corpus.root),
        "classification": {
            "mutants": len(classes),
            **{c.value: classes.count(c.value) for c in MutantClass},
            "labelled_equivalent": sum(1 for m in bench.corpus.mutants if m.label and m.label.value == "equivalent"),
            "originals_not_verifying": sorted(n for n, c in bench.originals.items() if c.verification.value != "verified"),
            "skipped_programs": dict(sorted(bench.skipped.items())),
            "recorded": bench.recorded,
            "wall_s": round(bench.classify_wall, 2),
        },
        "config": {"strategies": [s.value for s in bench.config.strategies], "jobs": bench.config.jobs,
                   "timeout_s": bench.config.timeout_s, "target": bench.config.target, "batch": bench.config.batch,
                   "kill_time_factor": bench.config.kill_time_factor,
                   "kill_time_floor_s": bench.config.kill_time_floor_s},
        "strategies": runs,
        "overlap": ov,
        "mutants": kill_matrix(bench),
        "survivors": {r.strategy.value: {k: sites[k] for k in sorted(r.status)
                                         if r.status[k] is MutantStatus.SURVIVED and bench.classes[k] is MutantClass.BUG}
                      for r in bench.runs},
    }

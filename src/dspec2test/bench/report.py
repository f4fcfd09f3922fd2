"""Render a benchmark's JSON figures: terminal table, markdown report, bar chart."""

from __future__ import annotations

from pathlib import Path

COLUMNS: list[tuple[str, str | None]] = [  # (header, key: None for the strategy's name)
    ("strategy", None), ("progs", "programs_supported"), ("mutants", "mutants"), ("killed", "killed"),
    ("surv", "survived"), ("tmo", "timeout"), ("err", "error"), ("unsup", "unsupported"),
    ("kill%", "kill_rate"), ("all%", "kill_rate_all"), ("reach%", "kill_rate_in_reach"), ("tests", "tests"), ("false", "false_alarms"),
    ("uniq", "unique_kills"), ("gen s", "generate"), ("safe s", "safety"), ("kill s", "kill"),
    ("total s", "wall_s"), ("mut/s", "mutants_per_s"),
]


def _cell(figures: dict, key: str) -> str:
    if key in ("generate", "safety", "kill"):
        return f"{figures['wall_phase_s'].get(key, 0.0):.1f}"
    value = figures[key]
    if key.startswith("kill_rate"):
        return f"{100 * value:.1f}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def rows(data: dict) -> list[list[str]]:
    out = []
    for name, figures in data["strategies"].items():
        out.append([name] + [_cell(figures, key) for _, key in COLUMNS[1:] if key is not None])
    return out


def terminal_table(data: dict) -> str:
    header = [h for h, _ in COLUMNS]
    body = rows(data)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    c = data["classification"]
    lines = [
        f"mutants: {c['mutants']} ({c['bug']} fail verification = bugs, {c['alive']} alive, "
        f"{c['incompetent']} incompetent); classification {c['wall_s']:.1f} s",
        fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in body),
    ]
    for name, figures in data["strategies"].items():
        for program, reason in figures["unsupported_programs"].items():
            lines.append(f"  {name}: unsupported {program}: {reason}")
    return "\n".join(lines) + "\n"


def markdown(data: dict) -> str:
    c = data["classification"]
    header = [h for h, _ in COLUMNS]
    out = [
        "# dspec2test bench", "",
        f"Corpus `{data['corpus']}`: {c['mutants']} mutants, {c['bug']} fail `dafny verify` (bugs), "
        f"{c['alive']} verify (alive), {c['incompetent']} incompetent; classification took {c['wall_s']:.1f} s"
        f" ({c.get('recorded', 0)} verdicts from the corpus's verify-status.tsv).",
        "",
        *(f"- skipped `{program}`: {reason}" for program, reason in c.get("skipped_programs", {}).items()),
        "",
        "kill% = (killed + timeout) / bug mutants of supported programs; all% over all bug mutants; reach% over "
        "the bug mutants a contract-driven test can execute (not those in a member without contract that no "
        "contracted member reaches).", "",
        "| " + " | ".join(header) + " |", "|" + "---|" * len(header),
        *("| " + " | ".join(r) + " |" for r in rows(data)), "",
    ]
    for name, figures in data["strategies"].items():
        out.append(f"## {name}")
        out.append("")
        out.append(f"- killable (bug, unlabelled, builds): {figures['killable']}, killed {figures['killed_killable']}"
                   f" ({100 * figures['kill_rate_killable']:.1f}%)")
        out.append(f"- in reach of contract tests: {figures['in_reach']}, killed {figures['killed_in_reach']}"
                   f" ({100 * figures['kill_rate_in_reach']:.1f}%); out of reach: {len(figures['out_of_reach'])}")
        out.append(f"- false alarms (tests failing on originals): {figures['false_alarms']}"
                   + (f" in {', '.join(figures['false_alarm_programs'])}" if figures['false_alarm_programs'] else ""))
        if figures["alive_run"]:
            out.append(f"- tests failing on alive (verified) mutants: {figures['alive_failing']} of {figures['alive_run']}")
        out.append(f"- Dafny builds in the kill phase: {figures['builds']}")
        for program, reason in figures["unsupported_programs"].items():
            out.append(f"- unsupported `{program}`: {reason}")
        survivors = data["survivors"].get(name, {})
        if survivors:
            out.append(f"- survivors ({len(survivors)}), with the mutated member where known:")
            out += [f"  - `{k}`" + (f" in {site}" if site else "") for k, site in survivors.items()]
        out.append("")
    names = list(data["strategies"])
    if names:
        out += ["## Per program (tests generated; - = unsupported)", "",
                "| program | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for program in data["strategies"][names[0]]["per_program"]:
            cells = []
            for name in names:
                info = data["strategies"][name]["per_program"][program]
                cells.append(str(info["tests"]) if info["supported"] else f"- ({info['tests']})")
            out.append(f"| {program} | " + " | ".join(cells) + " |")
        out.append("")
    pairs = data["overlap"]["pairs"]
    if pairs:
        out += ["## Overlap of kills", "", "| pair | both | only first | only second | neither |", "|---|---|---|---|---|"]
        for pair, v in pairs.items():
            a, b = pair.split("|")
            out.append(f"| {a} vs {b} | {v['both']} | {v['only_' + a]} | {v['only_' + b]} | {v['neither']} |")
        out.append("")
    return "\n".join(out)


def plot(data: dict, path: Path) -> None:
    import matplotlib  # optional dependency, only for --plot

    matplotlib.use("Agg")
    from matplotlib import pyplot

    names = list(data["strategies"])
    rates = [100 * data["strategies"][n]["kill_rate"] for n in names]
    rates_all = [100 * data["strategies"][n]["kill_rate_all"] for n in names]
    fig, ax = pyplot.subplots(figsize=(1.6 * len(names) + 2, 4))
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], rates, width=0.4, label="supported programs")
    ax.bar([x + 0.2 for x in xs], rates_all, width=0.4, label="all bug mutants")
    for x, r in zip(xs, rates):
        ax.text(x - 0.2, r + 1, f"{r:.1f}", ha="center", fontsize=8)
    ax.set_xticks(list(xs), names)
    ax.set_ylim(0, 105)
    ax.set_ylabel("kill rate (%)")
    ax.set_title("Kill rate on mutants that fail verification", fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot.close(fig)

"""The job summary (GITHUB_STEP_SUMMARY): totals, then one table row per member and partition."""

from __future__ import annotations

from typing import Iterable, Sequence

from dspec2test.report.findings import MEMBER, Totals
from dspec2test.errors import Diagnostic
from dspec2test.records import Status, Verdict

MAX_ROWS = 500  # GitHub caps a step summary at 1 MiB; the JUnit and JSON files keep everything

ICON = {Status.PASSED: "✅ passed", Status.FAILED: "❌ failed", Status.CRASHED: "💥 crashed", Status.TIMEOUT: "⏱️ timeout",
        Status.BAD_INPUT: "⚠️ bad-input", Status.NO_IMPLEMENTATION: "🚧 no-implementation",
        Status.NOT_TESTED: "⚠️ not-tested"}


def cell(text: str) -> str:
    """Table-safe markdown: Dafny's `|s|` must not split a cell, newlines must not end a row."""
    return " ".join(str(text).split()).replace("|", "\\|")


def code(text: str) -> str:
    text = cell(text)
    return f"``{text}``" if "`" in text else f"`{text}`"


def render(
    verdicts: Sequence[Verdict],
    title: str = "dspec2test",
    diagnostics: Iterable[Diagnostic] = (),
    notes: Iterable[str] = (),
    members: Iterable[tuple[str, str, str]] = (),
    footer: Iterable[str] = (),
) -> str:
    """members: (file, name, reason) of the affected members, listed when nothing could be tested;
    footer: closing lines (which toolchain ran)."""
    totals = Totals.of(verdicts)
    lines = [f"## {title}", "", headline(totals), ""]
    quoted = [f"> {cell(n)}" for n in notes]
    lines += quoted + [""] * bool(quoted)  # a blank line ends the quote: else the table is swallowed by it
    if totals.tests:
        lines += [
            "| File | Method | Partition | Status | Tests | Details |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        rows: dict[tuple[str, str, int], list[Verdict]] = {}
        for v in verdicts:
            rows.setdefault((v.file, v.method, v.partition), []).append(v)
        ordered = sorted(rows.items(), key=lambda item: (all(v.status is Status.PASSED for v in item[1]), item[0]))
        shown = sorted(ordered[:MAX_ROWS], key=lambda item: item[0])  # failing rows first to keep, then in order
        for (file, method, partition), vs in shown:
            worst = min(vs, key=lambda v: (v.status.rank, v.scenario))
            passed = sum(v.status is Status.PASSED for v in vs)
            label = vs[0].label or ""
            where = f"{file}:{vs[0].member_line}" if vs[0].member_line else file
            part = "—" if partition == MEMBER else f"{partition}{': ' + code(label) if label else ''}"
            tests = "—" if partition == MEMBER else f"{passed}/{len(vs)}"
            lines.append(f"| {cell(where)} | {code(method)} | {part} | {ICON[worst.status]} | {tests} | "
                         f"{details(worst, vs)} |")
        if len(ordered) > MAX_ROWS:
            lines.append(f"\n{len(ordered) - MAX_ROWS} more passing partitions are in the JUnit and JSON reports.")
        lines.append("")
    diags = list(diagnostics)
    if diags:
        lines += ["**Diagnostics**", ""] + [f"- {code(d.render())}" for d in diags] + [""]
    listed = list(members)
    if listed and not totals.tests:
        lines += ["**Affected members**", ""] + [f"- {code(f'{f}: {n}')} ({cell(r)})" for f, n, r in listed] + [""]
    lines += [f"<sub>{cell(line)}</sub>" for line in footer]
    return "\n".join(lines) + "\n"


def headline(totals: Totals) -> str:
    if not totals.tests:
        return "No tests were run: no affected member with a contract."
    members = f"{totals.methods} member{'s' * (totals.methods != 1)}"
    tests = f"{totals.tests} test{'s' * (totals.tests != 1)}"
    if not totals.not_passing:
        return f"**{'All ' * (totals.tests > 1)}{tests} passed** in {members}."
    return f"**{totals.not_passing} of {tests} not passing** ({totals.breakdown()}) in {members}; {totals.passed} passed."


def details(worst: Verdict, scenarios: Sequence[Verdict]) -> str:
    """The worst scenario's inputs, expected and actual output and clause; every scenario's status."""
    if worst.status is Status.PASSED:
        return ""
    parts = []
    if worst.inputs:
        parts.append("inputs " + code(", ".join(f"{k} = {x}" for k, x in worst.inputs.items())))
    if worst.expected:
        parts.append("expected " + code(worst.expected))
    if worst.actual:
        parts.append("actual " + code(worst.actual))
    if worst.clause_line:
        parts.append(f"clause line {worst.clause_line}")
    if not parts and worst.message:
        parts.append(cell(worst.message))
    if len(scenarios) > 1:
        parts.append(", ".join(f"s{v.scenario} {v.status.value}" for v in sorted(scenarios, key=lambda v: v.scenario)))
    return "; ".join(parts)

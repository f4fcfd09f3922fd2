"""The job summary (GITHUB_STEP_SUMMARY): totals, then one table row per member and partition."""

from __future__ import annotations

from typing import Iterable, Sequence

from dspec2test.action.findings import Totals
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
) -> str:
    """members: (file, name, reason) of the affected members, listed when nothing could be tested."""
    totals = Totals.of(verdicts)
    lines = [f"## {title}", ""]
    if totals.tests:
        lines.append(
            f"**{totals.failed} of {totals.tests} tests not passing** in {totals.methods} "
            f"method{'s' if totals.methods != 1 else ''} ({totals.passed} passed)."
            if totals.failed else
            f"**All {totals.tests} tests passed** in {totals.methods} method{'s' if totals.methods != 1 else ''}."
        )
    else:
        lines.append("No tests were run: no affected member with a contract.")
    lines.append("")
    lines.extend(f"> {cell(n)}" for n in notes)
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
            bad = [v for v in vs if v.status is not Status.PASSED]
            status = bad[0].status if bad else Status.PASSED
            label = vs[0].label or ""
            details = ""
            if bad:
                first = bad[0]
                parts = []
                if first.inputs:
                    parts.append("inputs " + code(", ".join(f"{k} = {x}" for k, x in first.inputs.items())))
                if first.expected:
                    parts.append("expected " + code(first.expected))
                if first.actual:
                    parts.append("actual " + code(first.actual))
                if first.clause_line:
                    parts.append(f"clause line {first.clause_line}")
                if not parts and first.message:
                    parts.append(cell(first.message))
                details = "; ".join(parts)
            where = f"{file}:{vs[0].member_line}" if vs[0].member_line else file
            lines.append(
                f"| {cell(where)} | {code(method)} | {partition}{': ' + code(label) if label else ''} | "
                f"{ICON[status]} | {len(vs) - len(bad)}/{len(vs)} | {details} |"
            )
        if len(ordered) > MAX_ROWS:
            lines.append(f"\n{len(ordered) - MAX_ROWS} more passing partitions are in the JUnit and JSON reports.")
        lines.append("")
    diags = list(diagnostics)
    if diags:
        lines += ["**Diagnostics**", ""] + [f"- {code(d.render())}" for d in diags] + [""]
    listed = list(members)
    if listed and not totals.tests:
        lines += ["**Affected members**", ""] + [f"- {code(f'{f}: {n}')} ({cell(r)})" for f, n, r in listed] + [""]
    return "\n".join(lines) + "\n"

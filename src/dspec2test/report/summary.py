"""The job summary (GITHUB_STEP_SUMMARY): totals, then what did not pass, then every partition.

Failures come first: one section per broken clause and member (report/findings.py), linked to its line
in the commit tested, with a table of the inputs that broke it, the value expected and the one returned.
Then the table of every member and partition, passing ones included.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from dspec2test.report.findings import MEMBER, Finding, Totals, expected_of, facts, group, inputs_text, scenario_of
from dspec2test.errors import Diagnostic
from dspec2test.records import Status, Verdict

MAX_ROWS = 500  # GitHub caps a step summary at 1 MiB; the JUnit and JSON files keep everything
MAX_FINDINGS = 50  # sections of failures shown; the rest are counted
MAX_CASES = 20  # failing inputs listed per finding

ICON = {Status.PASSED: "✅ passed", Status.FAILED: "❌ failed", Status.CRASHED: "💥 crashed", Status.TIMEOUT: "⏱️ timeout",
        Status.BAD_INPUT: "⚠️ bad-input", Status.NO_IMPLEMENTATION: "🚧 no-implementation",
        Status.NOT_TESTED: "⚠️ not-tested"}

Link = Callable[[str, int], str]  # (file, line) -> URL of that line in the commit tested


def cell(text: str) -> str:
    """Table-safe markdown: Dafny's `|s|` must not split a cell, newlines must not end a row."""
    return " ".join(str(text).split()).replace("|", "\\|")


def code(text: str) -> str:
    text = cell(text)
    return f"``{text}``" if "`" in text else f"`{text}`"


def inline(text: str) -> str:
    """Inline code outside a table, where `|` needs no escape (and a backslash would show)."""
    text = " ".join(str(text).split())
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def blob_link(server: str, repository: str, sha: str) -> Link | None:
    """Links to lines of `sha` on GitHub, or None when one of the three is unknown."""
    if not (server and repository and sha):
        return None
    return lambda file, line: f"{server.rstrip('/')}/{repository}/blob/{sha}/{file}#L{line}"


def where(file: str, line: int, link: Link | None) -> str:
    text = f"{file}:{line}"
    return f"[{text}]({link(file, line)})" if link else f"`{text}`"


def cases_table(f: Finding, limit: int = MAX_CASES) -> list[str]:
    """The inputs that broke a finding's clause, one row each: expected next to actual where known."""
    if f.whole_member:
        return []
    expected = any(expected_of(v) for v in f.verdicts)
    actual = any(v.actual for v in f.verdicts)
    message = any(v.message for v in f.verdicts) and not f.clause
    head = ["Inputs"] + ["Expected"] * expected + ["Actual"] * actual + ["What happened"] * message + ["Scenario"]
    rows = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for v in f.verdicts[:limit]:
        cells = [code(inputs_text(v)) if v.inputs else "(none)"]
        wanted = expected_of(v)
        cells += [code(wanted) if wanted else "—"] * expected
        cells += [code(v.actual) if v.actual else "—"] * actual
        cells += [cell(v.message)] * message
        cells.append(cell(scenario_of(v)) + ("" if v.status is f.status else f" ({v.status.value})"))
        rows.append("| " + " | ".join(cells) + " |")
    if len(f.verdicts) > limit:
        rows.append(f"\n{len(f.verdicts) - limit} more failing inputs are in the JUnit and JSON reports.")
    return rows


def finding_section(f: Finding, link: Link | None = None) -> list[str]:
    """One finding: its status and member with a link to the line, what broke, the inputs that broke it."""
    lines = [f"#### {ICON[f.status]}: {code(f.method)} at {where(f.path, f.line, link)}", ""]
    n = len(f.verdicts)
    on = f"on {n} of {f.tests} tests" if f.tests > n else f"on {n} test{'s' * (n != 1)}"
    if f.whole_member:
        lines.append(f"No test: {f.first.message}" if f.first.message else "No test.")
    elif f.clause:
        lines.append(f"{inline(f.clause)} broken {on}.")
    else:
        one = len({v.message for v in f.verdicts}) == 1 and f.first.message
        lines.append(f"{f.status.value.capitalize()} {on}" + (f": {inline(f.first.message)}" if one else "."))
    lines.append("")
    assumes = dict(facts(f)).get("assumes")
    if assumes:
        lines += [f"Note: `assume` at {assumes}.", ""]
    table = cases_table(f)
    return lines + (table + [""] if table else [])


def render(
    verdicts: Sequence[Verdict],
    title: str = "dspec2test",
    diagnostics: Iterable[Diagnostic] = (),
    notes: Iterable[str] = (),
    members: Iterable[tuple[str, str, str]] = (),
    footer: Iterable[str] = (),
    link: Link | None = None,
) -> str:
    """members: (file, name, reason) of the affected members, listed when nothing could be tested;
    footer: closing lines (which toolchain ran); link: URLs of lines, for the failures' headings."""
    totals = Totals.of(verdicts)
    lines = [f"## {title}", "", totals_line(totals), ""]
    quoted = [f"> {cell(n)}" for n in notes]
    lines += quoted + [""] * bool(quoted)  # a blank line ends the quote: else the table is swallowed by it
    findings, _ = group(verdicts)
    if findings:
        lines += [f"### Not passing: {len(findings)} finding{'s' * (len(findings) != 1)}", ""]
        for f in findings[:MAX_FINDINGS]:
            lines += finding_section(f, link)
        if len(findings) > MAX_FINDINGS:
            lines += [f"{len(findings) - MAX_FINDINGS} more findings are in the JUnit, SARIF and JSON reports.", ""]
    if totals.tests:
        lines += ["### Every partition", ""] if findings else []
        lines += [
            "| File | Method | Partition | Status | Tests | Details |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        rows: dict[tuple[str, str, int], list[Verdict]] = {}
        for v in verdicts:
            rows.setdefault((v.file, v.method, v.partition), []).append(v)
        # failing partitions first, then the passing ones; each in file, member and partition order
        ordered = sorted(rows.items(), key=lambda item: (all(v.status is Status.PASSED for v in item[1]), item[0]))
        for (file, method, partition), vs in ordered[:MAX_ROWS]:
            worst = min(vs, key=lambda v: (v.status.rank, v.scenario))
            passed = sum(v.status is Status.PASSED for v in vs)
            label = vs[0].label or ""
            member = (f"[{cell(file)}:{vs[0].member_line}]({link(file, vs[0].member_line)})" if link and vs[0].member_line
                      else cell(f"{file}:{vs[0].member_line}" if vs[0].member_line else file))
            part = "—" if partition == MEMBER else f"{partition}{': ' + code(label) if label else ''}"
            tests = "—" if partition == MEMBER else f"{passed}/{len(vs)}"
            lines.append(f"| {member} | {code(method)} | {part} | {ICON[worst.status]} | {tests} | "
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


def totals_line(totals: Totals) -> str:
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
    wanted = expected_of(worst)
    if wanted:
        parts.append("expected " + code(wanted))
    if worst.actual:
        parts.append("actual " + code(worst.actual))
    if worst.clause_line:
        parts.append(f"clause line {worst.clause_file + ':' if worst.clause_file else ''}{worst.clause_line}")
    if not parts and worst.message:
        parts.append(cell(worst.message))
    if len(scenarios) > 1:
        parts.append(", ".join(f"s{v.scenario} {v.status.value}" for v in sorted(scenarios, key=lambda v: v.scenario)))
    return "; ".join(parts)

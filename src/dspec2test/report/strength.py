"""Contract strength in every report: terminal lines, the JSON document, a job summary section, SARIF
results under their own rule, and the text of a review comment. Findings are warnings: a contract that
accepts a change is not a failing test."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, fields

from dspec2test.report.annotations import Annotation
from dspec2test.strength.records import Measured, MemberStrength, WeakFinding

RULE_ID = "dspec2test/weak-contract"
RULE_NAME = "WeakContract"
MARKER = "<!-- dspec2test:weak"  # hidden marker of a review comment about one mutant


def counts(results: Sequence[MemberStrength]) -> dict[str, int]:
    """Counts over members: measured, weak (with a finding), and mutants by verdict."""
    measured = [r for r in results if r.status is Measured.MEASURED]
    return {"members": len(results), "measured": len(measured), "weak": sum(1 for r in measured if r.weak),
            "mutants": sum(r.chosen for r in measured), "incompetent": sum(r.incompetent for r in measured),
            "killed": sum(r.killed for r in measured), "survived": sum(r.survived for r in measured),
            "equivalent": sum(r.equivalent for r in measured), "findings": sum(len(r.findings) for r in measured)}


def document(results: Sequence[MemberStrength]) -> dict:
    """The JSON of `strength --json` (and the `strength` key of the action's results file)."""
    members = []
    for r in results:
        d = asdict(r)
        d["name"] = d.pop("member")
        d["status"] = r.status.value
        d["findings"] = [_finding_dict(f) for f in r.findings]
        members.append(d)
    return {"members": members, "totals": counts(results)}


def _finding_dict(f: WeakFinding) -> dict:
    d = asdict(f)
    d.pop("member")
    d.pop("file")
    d.pop("member_line")
    return d


def values(d: dict[str, str]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in d.items()) or "(no inputs)"


def _outputs(d: dict[str, str]) -> str:
    if "(end)" in d:
        return d["(end)"]
    return values(d) if d else "(no outputs)"


def verdict_line(r: MemberStrength) -> str:
    """One line saying what was found of a member."""
    if r.status is Measured.SKIPPED:
        return f"not measured: {r.reason}"
    if r.status is Measured.ERROR:
        return f"not measured: {r.reason}"
    tally = (f"{r.killed} killed by verification, {r.incompetent} incompetent"
             + (f", {r.equivalent} equivalent" if r.equivalent else "")
             + (f", {r.unrun} not run" if r.unrun else ""))
    if r.weak:
        head = (f"weak contract: {len(r.findings)} of {r.chosen} mutants verify and compute something else "
                f"({tally})")
    elif r.chosen == 0:
        head = "nothing to mutate"
    else:
        head = (f"no weakness found: {r.survived} of {r.chosen} mutants verify, none was seen to compute anything "
                f"else ({tally})")
    if r.reason:
        head += f"; {r.reason}"
    return head


def finding_lines(f: WeakFinding) -> list[str]:
    short = f.member.rsplit(".", 1)[-1]
    lines = [f"line {f.line}: `{f.before}` -> `{f.after}` ({f.operator})",
             f"on {values(f.inputs)}: {short} gives {_outputs(f.original)}, the mutant {_outputs(f.mutated)}"]
    if f.clause:
        lines.append(f.clause)
    return lines


def terminal(results: Sequence[MemberStrength]) -> str:
    out = []
    for r in results:
        seconds = r.seconds.get("total")
        out.append(f"{r.file}:{r.line}: {r.member}: {verdict_line(r)}" + (f" [{seconds:.1f} s]" if seconds else ""))
        for f in r.findings:
            out += ["  " + line for line in finding_lines(f)]
    c = counts(results)
    out.append(f"dspec2test strength: {c['members']} members ({c['measured']} measured), {c['weak']} with a weak "
               f"contract, {c['findings']} findings; {c['mutants']} mutants: {c['killed']} killed by verification, "
               f"{c['incompetent']} incompetent, {c['survived']} verified ({c['equivalent']} equivalent)")
    return "\n".join(out) + "\n"


def summary_section(results: Sequence[MemberStrength]) -> str:
    """The job summary's contract strength section (markdown)."""
    if not results:
        return ""
    c = counts(results)
    lines = ["### Contract strength", "",
             f"{c['weak']} of {c['measured']} members measured have a contract that accepts a changed "
             f"implementation ({c['findings']} findings; {c['mutants']} mutants: {c['killed']} killed by "
             f"verification, {c['incompetent']} incompetent, {c['equivalent']} equivalent).", "",
             "| Member | Mutants | Killed | Verified | Equivalent | Findings | Note |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        note = r.reason if r.status is not Measured.MEASURED or r.reason else ""
        lines.append(f"| `{r.member}` ({r.file}:{r.line}) | {r.chosen} | {r.killed} | {r.survived} | {r.equivalent} "
                     f"| {len(r.findings)} | {_cell(note)} |")
    for r in results:
        for f in r.findings:
            lines += ["", f"**{r.member}**, line {f.line} ({f.operator}):", "",
                      *[f"- {_cell(line)}" for line in finding_lines(f)]]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def comment_body(f: WeakFinding) -> str:
    """A review comment about one finding: a warning, never a failure."""
    short = f.member.rsplit(".", 1)[-1]
    lines = [f"{MARKER} {f.member} {f.mutant} -->",
             f"**Warning: the contract of `{short}` accepts a changed implementation** (dspec2test contract strength)",
             "",
             f"Dafny still verifies `{short}` with line {f.line} changed to `{f.after}` (was `{f.before}`), "
             f"and the change computes something else:",
             "",
             f"- input: {values(f.inputs)}",
             f"- `{short}` as written: {_outputs(f.original)}",
             f"- with the change: {_outputs(f.mutated)}"]
    if f.clause:
        lines += ["", f"What the contract could say: {f.clause}."]
    lines += ["", "A stronger `ensures` would rule the change out; this does not fail the check "
                  "unless `fail_on: weak` is set."]
    return "\n".join(lines)


def sarif_rule() -> dict:
    return {"id": RULE_ID, "name": RULE_NAME,
            "shortDescription": {"text": "The contract accepts a changed implementation"},
            "fullDescription": {"text": "A mutant of the member that Dafny still verifies computes different "
                                        "outputs on some input: the contract does not say enough."},
            "defaultConfiguration": {"level": "warning"},
            "properties": {"tags": ["dafny", "specification", "contract-strength"]}}


def sarif_results(results: Sequence[MemberStrength]) -> list[dict]:
    out = []
    for r in results:
        for f in r.findings:
            short = f.member.rsplit(".", 1)[-1]
            text = (f"The contract of {short} accepts `{f.after}` at line {f.line} (was `{f.before}`): on "
                    f"{values(f.inputs)} it gives {_outputs(f.mutated)} instead of {_outputs(f.original)}"
                    + (f". {f.clause}" if f.clause else ""))
            out.append({"ruleId": RULE_ID, "level": "warning", "message": {"text": text},
                        "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.file},
                                                            "region": {"startLine": f.line}}}],
                        "partialFingerprints": {"weakContract": f"{f.member}:{f.after}"}})
    return out


def sarif_with_strength(text: str, results: Sequence[MemberStrength]) -> str:
    """A SARIF log (sarif.dumps) with the weak-contract rule and its results added to its run."""
    if not results:
        return text
    doc = json.loads(text)
    run = doc["runs"][0]
    run["tool"]["driver"]["rules"].append(sarif_rule())
    run["results"] += sarif_results(results)
    return json.dumps(doc, indent=2) + "\n"


def weak_annotations(results: Sequence[MemberStrength]) -> list[Annotation]:
    """Warnings on the mutated lines (for `reporter: annotations` and check runs)."""
    return [Annotation("warning", f.file, f.line, f"dspec2test: the contract of {f.member} accepts a change",
                       "\n".join(finding_lines(f)), 1)
            for r in results for f in r.findings]


def strength_from(doc: dict) -> list[MemberStrength]:
    """The records of a `document` (the results file read back for publishing)."""
    out = []
    names = {f.name for f in fields(WeakFinding)}
    for m in doc.get("members", []):
        findings = tuple(WeakFinding(member=m["name"], file=m["file"], member_line=m["line"],
                                     **{k: v for k, v in f.items() if k in names})
                         for f in m.get("findings", []))
        kept = {f.name for f in fields(MemberStrength)} - {"member", "status", "findings"}
        out.append(MemberStrength(member=m["name"], status=Measured(m["status"]), findings=findings,
                                  **{k: v for k, v in m.items() if k in kept}))
    return out

"""Clause coverage: for each tested member, each requires/ensures clause and each partition, how many tests
exercised it, which combinations of clause branches were unsatisfiable or undecided, and which clauses no
test can check at run time and why. Read from the generation manifest (clauses, branches, partitions,
scenarios) and the run's verdicts (which tests ran).

A test exercises a clause in the branch its partition took; an ensures branch that constrains no output
while another does (the `!A` of `A ==> B`) is exercised only vacuously.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dspec2test.records import Status, Verdict
from dspec2test.run.verdicts import ran_unchecked

# statuses of a test that ran the member on its input (a bad input, an untested or unimplemented member did not)
_RAN = frozenset({Status.PASSED, Status.FAILED, Status.CRASHED, Status.TIMEOUT})


def member_coverage(entry: dict, verdicts: Iterable[Verdict] | None = None) -> dict:
    """The `coverage` of one manifest entry. `verdicts`: the run's (None: every generated test counts)."""
    verdicts = None if verdicts is None else list(verdicts)
    ran = None if verdicts is None else {v.test for v in verdicts if v.method == entry["name"] and (
        v.status in _RAN or ran_unchecked(v.status, v.message))}
    partitions = []
    tests_of: dict[int, set[str]] = {}
    for p in entry.get("partitions", []):
        names = {s["test"] for s in p.get("scenarios", []) if s.get("test") and (ran is None or s["test"] in ran)}
        tests_of[p["id"]] = names
        if names:
            status = "tested"
        elif p.get("status") == "unknown":
            status = "undecided"
        else:
            statuses = {s.get("status") for s in p.get("scenarios", [])}
            status = "undecided" if "unknown" in statuses else "no-test"
        partitions.append({"id": p["id"], "label": p["label"], "tests": len(names), "status": status})
    unchecked = {(u["line"], u["text"]): u["reason"] for u in entry.get("unchecked", [])}
    unchecked_lines = {u["line"]: u["reason"] for u in entry.get("unchecked", [])}
    capped = bool(entry.get("capped"))
    clauses = []
    for i, cl in enumerate(entry.get("clauses", [])):
        branches = []
        exercised: set[str] = set()
        vacuously: set[str] = set()
        for k, br in enumerate(cl["branches"]):
            names = set().union(*[tests_of.get(p["id"], set()) for p in entry.get("partitions", [])
                                  if len(p.get("branches", [])) > i and p["branches"][i] == k])
            taken = any(len(p.get("branches", [])) > i and p["branches"][i] == k for p in entry.get("partitions", []))
            (vacuously if br["vacuous"] else exercised).update(names)
            status = "tested" if names else "untested" if taken or capped else "unsatisfiable"
            branches.append({"label": br["label"], "tests": len(names), "status": status,
                             **({"vacuous": True} if br["vacuous"] else {})})
        reason = unchecked.get((cl["line"], cl["text"])) or unchecked_lines.get(cl["line"])
        if reason:
            status = "unchecked"
        elif exercised:
            status = "exercised"
        elif vacuously:
            status = "vacuous"
        else:
            status = "not-exercised"
        clauses.append({"kind": cl["kind"], "line": cl["line"], "text": cl["text"], "tests": len(exercised),
                        "vacuous_tests": len(vacuously - exercised), "status": status,
                        **({"reason": reason} if reason else {}), "branches": branches})
    covered = {(c["line"], c["text"]) for c in clauses}
    for u in entry.get("unchecked", []):  # unchecked clauses the solver could not partition on either
        if (u["line"], u["text"]) not in covered and u.get("kind") in ("requires", "ensures"):
            clauses.append({"kind": u["kind"], "line": u["line"], "text": u["text"], "tests": 0, "vacuous_tests": 0,
                            "status": "unchecked", "reason": u["reason"], "branches": []})
    for u in entry.get("unsupported", []):
        if not any(c["line"] == u["line"] for c in clauses):
            clauses.append({"kind": "clause", "line": u["line"], "text": u.get("construct", ""), "tests": 0,
                            "vacuous_tests": 0, "status": "unsupported", "reason": u["message"], "branches": []})
    clauses.sort(key=lambda c: c["line"])
    # its tests ran it and could check none of its ensures (run/verdicts.py): which clause, and why
    blind = next((v.message.removeprefix("ran; ") for v in verdicts or () if v.method == entry["name"]
                  and ran_unchecked(v.status, v.message)), "")
    return {"name": entry["name"], "file": entry.get("file", ""), "line": entry.get("line", 0), "clauses": clauses,
            **({"nothing_checked": blind} if blind else {}),
            "partitions": partitions, "unsatisfiable": [u["label"] for u in entry.get("unsatisfiable", [])],
            "unsatisfiable_more": int(entry.get("unsatisfiable_more", 0)), "capped": capped}


def coverage_document(entries: Sequence[dict], verdicts: Iterable[Verdict] | None = None) -> dict:
    """`coverage` in the JSON reports: every member, and totals."""
    verdicts = None if verdicts is None else list(verdicts)
    members = [member_coverage(e, verdicts) for e in entries]
    return {"members": members, "totals": totals(members)}


def coverage_of_members(members: Sequence[dict]) -> dict:
    """The document of member coverages already made (the action's, gathered over programs)."""
    return {"members": list(members), "totals": totals(members)}


def totals(members: Sequence[dict]) -> dict[str, int]:
    clauses = [c for m in members for c in m["clauses"]]
    parts = [p for m in members for p in m["partitions"]]
    out = {"members": len(members), "clauses": len(clauses)}
    for status in ("exercised", "vacuous", "not-exercised", "unchecked", "unsupported"):
        out[status] = sum(1 for c in clauses if c["status"] == status)
    out["partitions"] = len(parts)
    for status in ("tested", "undecided", "no-test"):
        out[f"partitions {status}"] = sum(1 for p in parts if p["status"] == status)
    out["unsatisfiable"] = sum(len(m["unsatisfiable"]) + m["unsatisfiable_more"] for m in members)
    return out


def _clause_note(c: dict) -> str:
    if c["status"] == "unchecked":
        return f"not checked at run time: {c['reason']}" + (f" ({c['tests']} tests in its branches)" if c["tests"] else "")
    if c["status"] == "unsupported":
        return f"not partitioned: {c['reason']}"
    note = f"{c['tests']} test{'s' * (c['tests'] != 1)}"
    if c["vacuous_tests"]:
        note += f" (+{c['vacuous_tests']} where it holds vacuously)"
    missing = [b["label"] for b in c["branches"] if b["status"] == "untested"]
    if missing:
        note += f"; no test where {' or '.join(missing)}"
    return note if c["status"] != "not-exercised" else "not exercised: " + note


def member_lines(m: dict) -> list[str]:
    """The terminal's lines about one member."""
    parts = m["partitions"]
    tested = sum(1 for p in parts if p["status"] == "tested")
    unsat = len(m["unsatisfiable"]) + m["unsatisfiable_more"]
    out = [f"  {m['name']} (line {m['line']}): {tested} of {len(parts)} partitions tested"
           + (f", {unsat} unsatisfiable combination{'s' * (unsat != 1)}" if unsat else "")
           + (" (partition cap reached)" if m["capped"] else "")]
    for c in m["clauses"]:
        out.append(f"    {c['kind']} {c['text']} (line {c['line']}): {_clause_note(c)}")
    for p in parts:
        if p["status"] != "tested":
            out.append(f"    partition {p['id']} {p['status']}: {p['label']}")
    for label in m["unsatisfiable"]:
        out.append(f"    unsatisfiable: {label}")
    if m["unsatisfiable_more"]:
        out.append(f"    unsatisfiable: {m['unsatisfiable_more']} more")
    unchecked = [c for c in m["clauses"] if c["status"] in ("unchecked", "unsupported")]
    if not unchecked:
        out.append("    unchecked clauses: none")
    if m.get("nothing_checked"):
        out.append(f"    its tests are not-tested: {m['nothing_checked']}")
    return out


def terminal(doc: dict) -> str:
    if not doc["members"]:
        return ""
    out = ["clause coverage:"]
    for file, members in _by_file(doc["members"]):
        out.append(f"{file}:")
        for m in members:
            out += member_lines(m)
    t = doc["totals"]
    out.append(f"clauses: {t['clauses']} ({t['exercised']} exercised, {t['vacuous']} only vacuously, "
               f"{t['not-exercised']} not exercised, {t['unchecked']} unchecked, {t['unsupported']} unsupported); "
               f"partitions: {t['partitions']} ({t['partitions tested']} tested, {t['partitions undecided']} "
               f"undecided, {t['partitions no-test']} without a test); {t['unsatisfiable']} unsatisfiable combinations")
    return "\n".join(out) + "\n"


def summary_section(doc: dict) -> str:
    """The job summary's clause coverage section (markdown): a table per file, then the totals."""
    if not doc["members"]:
        return ""
    lines = ["### Clause coverage", ""]
    for file, members in _by_file(doc["members"]):
        lines += [f"**{file}**", "", "| Member | Clause | Line | Tests | Status |", "| --- | --- | --- | --- | --- |"]
        for m in members:
            for c in m["clauses"]:
                lines.append(f"| `{m['name']}` | `{_cell(c['kind'] + ' ' + c['text'])}` | {c['line']} | {c['tests']} | "
                             f"{_cell(_status_text(c))} |")
        lines.append("")
        for m in members:
            extra = [f"partition {p['id']} {p['status']}: `{_cell(p['label'])}`" for p in m["partitions"]
                     if p["status"] != "tested"]
            extra += [f"unsatisfiable: `{_cell(label)}`" for label in m["unsatisfiable"]]
            if m["unsatisfiable_more"]:
                extra.append(f"unsatisfiable: {m['unsatisfiable_more']} more")
            if m.get("nothing_checked"):
                extra.append(f"its tests are not-tested: {_cell(m['nothing_checked'])}")
            if extra:
                lines += [f"`{m['name']}`:", "", *[f"- {e}" for e in extra], ""]
    t = doc["totals"]
    lines.append(f"Total: {t['clauses']} clauses ({t['exercised']} exercised, {t['vacuous']} only vacuously, "
                 f"{t['not-exercised']} not exercised, {t['unchecked']} not checkable at run time, "
                 f"{t['unsupported']} unsupported); {t['partitions']} partitions ({t['partitions tested']} tested, "
                 f"{t['partitions undecided']} undecided); {t['unsatisfiable']} unsatisfiable combinations.")
    return "\n".join(lines) + "\n"


def _status_text(c: dict) -> str:
    if c["status"] in ("unchecked", "unsupported"):
        return f"{c['status']}: {c['reason']}"
    return c["status"] + (f" (+{c['vacuous_tests']} vacuous)" if c["vacuous_tests"] else "")


def _by_file(members: Sequence[dict]) -> list[tuple[str, list[dict]]]:
    files: dict[str, list[dict]] = {}
    for m in members:
        files.setdefault(m["file"], []).append(m)
    return list(files.items())


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())

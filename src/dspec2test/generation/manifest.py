"""The `generate --json` manifest (DESIGN.md section 5): the one place generation's typed results become
JSON (`manifest_of`) and JSON becomes them again (`members_of`).

Keys come in a fixed order, optional ones only when set, so that a manifest reads the same from run to run.
"""

from __future__ import annotations

from typing import Any

from dspec2test.records import (ClauseBranches, Limitation, MemberResult, PartitionResult, ScenarioKind,
                                ScenarioResult, ScenarioStatus, UncheckedClause, Unsatisfiable)

Json = dict[str, Any]


def manifest_of(members: tuple[MemberResult, ...] | list[MemberResult]) -> Json:
    return {"methods": [member_json(m) for m in members]}


def member_json(m: MemberResult) -> Json:
    out: Json = {"name": m.name, "file": m.file, "line": m.line, "kind": m.kind, "body": m.body,
                 "partitions": [_partition_json(p) for p in m.partitions],
                 "unsupported": [{"construct": u.construct, "line": u.line, "message": u.message,
                                  **({"file": u.file} if u.file else {})} for u in m.unsupported],
                 "unchecked": [{"line": u.line, "kind": u.kind, "text": u.text, "reason": u.reason}
                               for u in m.unchecked],
                 "capped": m.capped}
    if m.instantiation is not None:
        out["instantiation"] = dict(m.instantiation)
    if m.blocked is not None:
        out["blocked"] = m.blocked
    if m.stopped is not None:
        out["stopped"] = m.stopped
    if m.opaque_recursion:
        out["opaque_recursion"] = True
    if m.clauses is not None:  # clause coverage (report/coverage.py)
        out["clauses"] = [{"kind": cl.kind, "line": cl.line, "text": cl.text,
                           "branches": [{"label": label, "vacuous": vacuous}
                                        for label, vacuous in zip(cl.labels, cl.vacuous)]} for cl in m.clauses]
        out["unsatisfiable"] = [{"label": u.label, "clauses": list(u.clauses)} for u in m.unsatisfiable]
    if m.unsatisfiable_more:
        out["unsatisfiable_more"] = m.unsatisfiable_more
    return out


def _partition_json(p: PartitionResult) -> Json:
    return {"id": p.id, "label": p.label, "constraint": p.constraint, "clauses": list(p.clauses),
            "status": p.status, "branches": list(p.branches), "scenarios": [_scenario_json(s) for s in p.scenarios]}


def _scenario_json(s: ScenarioResult) -> Json:
    out: Json = {"id": s.id, "kind": s.kind.value, "pin": s.pin, "test": s.test, "inputs": dict(s.inputs),
                 "outputs": dict(s.outputs), "unique": s.unique, "status": s.status.value}
    if s.same_as is not None:
        out["same_as"] = s.same_as
    if s.message is not None:
        out["message"] = s.message
    if s.bounded is not None:
        out["bounded"] = s.bounded
    return out


def members_of(manifest: Json) -> tuple[MemberResult, ...]:
    """A manifest read back (its tests and diagnostics are not in it: those come out empty)."""
    return tuple(member_of(m) for m in manifest.get("methods", []))


def member_of(m: Json) -> MemberResult:
    """One member's entry read back."""
    return MemberResult(
        name=m["name"], file=m["file"], line=int(m["line"]), kind=m["kind"], body=bool(m["body"]),
        partitions=tuple(_partition(p) for p in m.get("partitions", [])),
        unsupported=tuple(Limitation(u["construct"], int(u["line"]), u["message"]) for u in m.get("unsupported", [])),
        unchecked=tuple(UncheckedClause(int(u["line"]), u["kind"], u["text"], u["reason"])
                        for u in m.get("unchecked", [])),
        capped=bool(m.get("capped", False)), instantiation=m.get("instantiation"), blocked=m.get("blocked"),
        stopped=m.get("stopped"), opaque_recursion=bool(m.get("opaque_recursion", False)),
        clauses=None if "clauses" not in m else tuple(
            ClauseBranches(cl["kind"], int(cl["line"]), cl["text"], tuple(b["label"] for b in cl["branches"]),
                           tuple(bool(b["vacuous"]) for b in cl["branches"])) for cl in m["clauses"]),
        unsatisfiable=tuple(Unsatisfiable(u["label"], tuple(u["clauses"])) for u in m.get("unsatisfiable", [])),
        unsatisfiable_more=int(m.get("unsatisfiable_more", 0)))


def _partition(p: Json) -> PartitionResult:
    return PartitionResult(int(p["id"]), p["label"], p["constraint"], tuple(p["clauses"]), p["status"],
                           tuple(_scenario(s) for s in p.get("scenarios", [])), tuple(p.get("branches", [])))


def _scenario(s: Json) -> ScenarioResult:
    return ScenarioResult(int(s["id"]), ScenarioKind(s["kind"]), s["pin"], ScenarioStatus(s["status"]), s["test"],
                          dict(s["inputs"]), dict(s["outputs"]), bool(s["unique"]), s.get("same_as"),
                          s.get("message"), s.get("bounded"))

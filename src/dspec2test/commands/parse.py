"""`dspec2test parse FILE... [--json]`: declarations and contracts with lines, or a located error per file."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import iter_members, iter_unreadable, parse_file
from dspec2test.errors import Diagnostic


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="Dafny source files")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _clauses(clauses: tuple[A.Clause, ...]) -> list[dict[str, Any]]:
    return [{"line": c.span.line, "text": c.text} for c in clauses]


def _member(name: str, member: A.Method | A.Function) -> dict[str, Any]:
    return {
        "name": name,
        "kind": member.kind,
        "line": member.span.line,
        "end_line": member.span.end_line,
        "attributes": [a.name for a in member.attributes],
        "requires": _clauses(member.spec.requires),
        "ensures": _clauses(member.spec.ensures),
    }


def _unreadable(name: str, decl: A.Unreadable) -> dict[str, Any]:
    return {"name": name, "kind": decl.kind, "line": decl.span.line, "end_line": decl.span.end_line,
            "error": {"line": decl.error_line, "col": decl.error_col, "message": decl.message}}


def file_report(path: str) -> tuple[dict[str, Any], list[Diagnostic]]:
    """One file's entry of the `parse --json` report, and its diagnostics: the file's, when it did not parse
    at all, else one per declaration the parser skipped. A file with a skipped declaration is not `ok`; its
    `error` is the first one's, its `methods` those read, and `unreadable` lists the skipped ones."""
    result = parse_file(path)
    if isinstance(result, Diagnostic):
        error = {"line": result.line, "col": result.col, "message": result.message}
        return {"path": path, "ok": False, "error": error, "methods": [], "unreadable": []}, [result]
    methods = [_member(name, m) for name, m in iter_members(result)]
    skipped = list(iter_unreadable(result))
    unreadable = [_unreadable(name, d) for name, d in skipped]
    diagnostics = [Diagnostic(path, d.error_line, d.error_col,
                              f"{d.message} (skipped: {d.described}, lines {d.span.line}-{d.span.end_line})")
                   for _, d in skipped]
    error = unreadable[0]["error"] if unreadable else None
    return {"path": path, "ok": not unreadable, "error": error, "methods": methods, "unreadable": unreadable}, \
        diagnostics


def _write_text(entry: dict[str, Any], out: TextIO) -> None:
    if not entry["ok"] and not entry["methods"] and not entry["unreadable"]:
        return
    out.write(f"{entry['path']}: {len(entry['methods'])} members\n")
    for m in entry["methods"]:
        attrs = "".join(f" {{:{a}}}" for a in m["attributes"])
        out.write(f"  {m['kind']} {m['name']}{attrs}  (lines {m['line']}-{m['end_line']})\n")
        for kind in ("requires", "ensures"):
            for c in m[kind]:
                out.write(f"    {kind:<8} line {c['line']}: {c['text']}\n")
    for u in entry["unreadable"]:
        what = " ".join(p for p in (u["kind"], u["name"]) if p) or "declaration"
        out.write(f"  not read: {what}  (lines {u['line']}-{u['end_line']}): {u['error']['message']}\n")


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    entries = []
    bad = False
    for path in args.files:
        entry, diags = file_report(path)
        entries.append(entry)
        for diag in diags:
            bad = True
            err.write(diag.render() + "\n")
        if not args.json:
            _write_text(entry, out)
    if args.json:
        json.dump({"files": entries}, out, indent=2)
        out.write("\n")
    return 2 if bad else 0

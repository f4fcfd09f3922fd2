"""The real pipeline: `dspec2test run FILE --method M ... --json OUT` for each target file.

Driven through the documented CLI contract (DESIGN.md section 5, the `run --json` record with its
per-test fields) rather than internal APIs: one subprocess per program keeps a crash in one program
from taking the others down, and stays correct while generate and run evolve.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from dspec2test.action.pipeline import PipelineOptions, PipelineResult, Target, generation_flags
from dspec2test.errors import Diagnostic, Severity
from dspec2test.records import Status, Verdict
from dspec2test.toolchain import untrusted_env

LOCATED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?:(?P<severity>error|warning|unsupported): )?"
                     r"(?P<msg>.*)$")
CLAUSE_LINE = re.compile(r"line (\d+)\)")  # our own oracle messages: "(ensures, line L)", "ensures (line L)"


def real_pipeline(targets: Sequence[Target], options: PipelineOptions) -> PipelineResult:
    verdicts: list[Verdict] = []
    diagnostics: list[Diagnostic] = []
    reports: list[str] = []
    with tempfile.TemporaryDirectory(prefix="dspec2test-") as tmp:
        for index, target in enumerate(targets):
            v, d, report = run_one(target, options, Path(tmp) / f"run{index}.json")
            verdicts += v
            diagnostics += d
            reports.append(report)
    return PipelineResult(tuple(verdicts), tuple(diagnostics), "".join(reports))


def run_command(target: Target, options: PipelineOptions, json_out: Path) -> list[str]:
    methods = [arg for m in target.methods for arg in ("--method", m)]
    flags = [f for f in generation_flags(options) if f not in ("--target", options.target)]
    return [sys.executable, "-m", "dspec2test", "run", target.file, *methods, *flags,
            "--max-partitions", str(options.generate.max_partitions),
            "--timeout", f"{options.timeout:g}", "--target", options.target, "--json", str(json_out)]


def run_one(target: Target, options: PipelineOptions, json_out: Path) -> tuple[list[Verdict], list[Diagnostic], str]:
    limit = max(300.0, options.timeout * 6)  # generation plus a resumed run or two
    try:
        proc = subprocess.run(run_command(target, options, json_out), cwd=options.root, capture_output=True,
                              text=True, timeout=limit, check=False, env=untrusted_env(os.environ))
    except subprocess.TimeoutExpired:
        return [], [Diagnostic(target.file, 0, 0, f"generating and running tests took longer than {limit:g} s")], ""
    diagnostics = [Diagnostic(m["file"], int(m["line"]), int(m["col"]), m["msg"], Severity(m["severity"] or "error"))
                   for line in proc.stderr.splitlines() if (m := LOCATED.match(line.strip()))]
    if not json_out.exists():
        if proc.returncode == 0:  # nothing to test in this file (no contract among the members asked for)
            return [], diagnostics, proc.stdout
        last = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return [], diagnostics or [Diagnostic(target.file, 0, 0, f"dspec2test run failed: {last}")], proc.stdout
    try:
        record = json.loads(json_out.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return [], diagnostics + [Diagnostic(target.file, 0, 0, f"unreadable run record: {exc}")], proc.stdout
    diagnostics += [Diagnostic(e.get("file") or target.file, int(e.get("line") or 0), int(e.get("col") or 0),
                               e.get("message", "build error")) for e in record.get("build_errors", [])]
    return [verdict_of(t, target.file) for t in record.get("tests", [])], diagnostics, proc.stdout


def verdict_of(t: dict, file: str) -> Verdict:
    """A `run --json` test entry as a Verdict ("line" there is the member's line)."""
    message = t.get("message") or ""
    clause_line = t.get("clause_line")
    if clause_line is None and (match := CLAUSE_LINE.search(message)):
        clause_line = int(match.group(1))
    return Verdict(
        test=t.get("name", ""),
        method=t.get("method", ""),
        partition=int(t.get("partition") or 0),
        scenario=int(t.get("scenario") or 0),
        status=Status(t.get("status", "not-tested")),
        message=message,
        line=t.get("test_line"),
        clause_line=clause_line,
        clause=t.get("clause"),
        expected=t.get("expected"),
        actual=t.get("actual"),
        inputs=dict(t.get("inputs") or {}),
        file=t.get("file") or file,
        member_line=int(t.get("line") or 0),
        label=t.get("label") or "",
        pin=t.get("pin"),
        assumes=tuple(int(n) for n in t.get("assumes") or ()),
    )

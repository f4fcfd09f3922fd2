"""The real pipeline: `dspec2test generate` then `dspec2test run` on each target file, as subprocesses.

Driven through the documented CLI contract (DESIGN.md section 5: the generate manifest and the
run --json record) rather than internal APIs, so that this stays correct while generate and run evolve;
the manifest fills in what a run record may lack (inputs, partition label, clause lines).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from dspec2test.action.pipeline import PipelineOptions, PipelineResult, Target, generation_flags
from dspec2test.errors import Diagnostic
from dspec2test.records import Status, Verdict

LOCATED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$")
CLAUSE_LINE = re.compile(r"\((?:ensures|requires)?,? ?line (\d+)\)")
VIOLATED = re.compile(r"violated: (.*)$")
EXPECTED = re.compile(r"dspec2test: expected (.*) \((?:ensures, )?line \d+\)")


def real_pipeline(targets: Sequence[Target], options: PipelineOptions) -> PipelineResult:
    verdicts: list[Verdict] = []
    diagnostics: list[Diagnostic] = []
    with tempfile.TemporaryDirectory(prefix="dspec2test-") as tmp:
        for index, target in enumerate(targets):
            work = Path(tmp) / str(index)
            work.mkdir()
            v, d = _one(target, options, work)
            verdicts += v
            diagnostics += d
    return PipelineResult(tuple(verdicts), tuple(diagnostics))


def _cli(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dspec2test", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, check=False)


def _one(target: Target, options: PipelineOptions, work: Path) -> tuple[list[Verdict], list[Diagnostic]]:
    tests, manifest_path, run_path = work / "tests.dfy", work / "manifest.json", work / "run.json"
    methods = [arg for m in target.methods for arg in ("--method", m)]
    flags = [f for f in generation_flags(options) if f not in ("--target", options.target)]
    limit = max(120.0, options.timeout * 4)
    try:
        gen = _cli(["generate", target.file, *methods, *flags, "-o", str(tests), "--json", str(manifest_path)],
                   options.root, limit)
        diags = _diagnostics(gen.stderr, target.file)
        if gen.returncode not in (0, 1) or not tests.exists():
            return [], diags or [Diagnostic(target.file, 0, 0, f"generate failed (exit {gen.returncode})")]
        run = _cli(["run", target.file, "--tests", str(tests), "--timeout", f"{options.timeout:g}",
                    "--target", options.target, "--json", str(run_path)], options.root, limit)
    except subprocess.TimeoutExpired:
        return [], [Diagnostic(target.file, 0, 0, f"generate/run took longer than {limit:g} s")]
    diags += _diagnostics(run.stderr, target.file)
    if not run_path.exists():
        return [], diags or [Diagnostic(target.file, 0, 0, f"run failed (exit {run.returncode})")]
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    record = json.loads(run_path.read_text(encoding="utf-8"))
    return [_verdict(t, target.file, manifest) for t in record.get("tests", [])], diags


def _diagnostics(stderr: str, file: str) -> list[Diagnostic]:
    out = []
    for line in stderr.splitlines():
        match = LOCATED.match(line.strip())
        if match:
            out.append(Diagnostic(match["file"], int(match["line"]), int(match["col"]), match["msg"]))
    return out


def _scenarios(manifest: dict) -> dict[str, tuple[dict, dict, dict]]:
    """test name -> (method entry, partition entry, scenario entry)."""
    found = {}
    for m in manifest.get("methods", []):
        for p in m.get("partitions", []):
            for s in p.get("scenarios", []):
                if s.get("test"):
                    found[s["test"]] = (m, p, s)
    return found


def _verdict(t: dict, file: str, manifest: dict) -> Verdict:
    method, partition, scenario = _scenarios(manifest).get(t.get("name", ""), ({}, {}, {}))
    message = t.get("message") or ""
    clause_line = t.get("clause_line")
    if clause_line is None and (match := CLAUSE_LINE.search(message)):
        clause_line = int(match.group(1))
    clause = t.get("clause")
    if clause is None and (match := VIOLATED.search(message)):
        clause = match.group(1)
    expected = t.get("expected")
    if expected is None and (match := EXPECTED.search(message)):
        expected = match.group(1)
    return Verdict(
        test=t.get("name", ""),
        method=t.get("method") or method.get("name", ""),
        partition=int(t.get("partition") or partition.get("id") or 0),
        scenario=int(t.get("scenario") or scenario.get("id") or 0),
        status=Status(t.get("status", "error")),
        message=message,
        line=t.get("line"),
        clause_line=clause_line,
        clause=clause,
        expected=expected,
        actual=t.get("actual"),
        inputs=dict(t.get("inputs") or scenario.get("inputs") or {}),
        file=t.get("file") or method.get("file") or file,
        member_line=int(t.get("member_line") or method.get("line") or 0),
        label=t.get("label") or partition.get("label", ""),
    )

"""`dspec2test action` with `strength: true` and the REAL pipeline on a one-member change: warning
comments on the mutated lines, a job summary section for strength and for clause coverage, the SARIF
rule, the JSON keys; the gate stays green (findings are warnings)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.action.conftest import REPO, ROOT, TOKEN, PullRequestWorld
from tests.action.github_standin import GitHubStandIn, diff_lines

pytestmark = pytest.mark.dafny

BASE = """// Weak: nothing says r is one of a and b.
method Max(a: int, b: int) returns (r: int)
  ensures r >= a && r >= b
{
  if a > b {
    r := a;
  } else {
    r := b;
  }
}

method Twice(x: int) returns (r: int)
  ensures r == 2 * x
{
  r := x + x;
}
"""
HEAD = BASE.replace("  if a > b {", "  if b < a {")  # one member's body changes


def test_strength_in_a_pull_request(tmp_path):
    world = PullRequestWorld(tmp_path, {"max.dfy": BASE}, {"max.dfy": HEAD})
    script = [sys.executable, "-m", "dspec2test", "action"]
    env = {"PYTHONPATH": str(ROOT / "src")}
    with GitHubStandIn(REPO, TOKEN, world.pull()) as server:
        start = time.monotonic()
        run = world.run(server.url, script=script, strength="true", extra_env=env)
        seconds = time.monotonic() - start
        assert run.code == 0, run.out + run.err  # every test passes; a weak contract is a warning
        assert seconds < 300, seconds  # the bound is 2 minutes on a runner; this machine is shared
        assert "Max: weak contract" in run.out and "Twice" not in run.out.split("dspec2test strength:")[0]
        right, _ = diff_lines(server.pull.files[0]["patch"])
        weak = [c for c in server.comments.values() if "accepts a changed implementation" in c["body"]]
        assert weak and all(c["line"] in right for c in weak if c["subject_type"] == "line")
        assert any("r := a + 1;" in c["body"] or "r := b + 1;" in c["body"] for c in weak)
    assert "### Contract strength" in run.summary and "### Clause coverage" in run.summary
    assert "| `Max` | `ensures r >= a && r >= b` | 3 |" in run.summary
    results = json.loads((world.repo / "dspec2test-results.json").read_text())
    (member,) = results["strength"]["members"]
    assert member["name"] == "Max" and member["findings"] and member["findings"][0]["inputs"]
    assert [m["name"] for m in results["coverage"]["members"]] == ["Max"]
    sarif = json.loads((world.repo / "dspec2test.sarif").read_text())["runs"][0]
    assert {r["ruleId"] for r in sarif["results"]} == {"dspec2test/weak-contract"}
    assert all(r["level"] == "warning" for r in sarif["results"])
    print(f"strength PR check: {seconds:.1f} s")  # measured for the figure


def test_check_with_strength_shows_it_and_fail_on_weak_trips(tmp_path):
    world = PullRequestWorld(tmp_path, {"max.dfy": BASE}, {"max.dfy": HEAD})
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-m", "dspec2test", "check", "--base", "main", "--strength",
                           "--fail-on", "weak", "--json", str(tmp_path / "r.json")], cwd=world.repo, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # every test passed: only the weak contract trips it
    assert "fail_on: weak" in proc.stderr
    assert "Max: weak contract" in proc.stdout and "clause coverage:" in proc.stdout
    results = json.loads((tmp_path / "r.json").read_text())
    assert results["strength"]["totals"]["weak"] == 1 and results["coverage"]["members"][0]["name"] == "Max"

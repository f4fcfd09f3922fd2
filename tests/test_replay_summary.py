"""scripts/replay_summary.py: the figures of a replay measurement, read from what `replay --json` writes."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from dspec2test.report.replay import CommitOutcome, MemberOutcome, dumps

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "replay_summary.py"


def load_script():
    spec = importlib.util.spec_from_file_location("replay_summary", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def member(name, statuses, ghost=False, reasons=(), kind="method"):
    return MemberOutcome(name, "a.dfy", 3, kind, ghost, True, "changed line 3", statuses, tuple(reasons))


OUTCOMES = [
    CommitOutcome("a" * 40, "first", seconds=4.0, members=(
        member("Ok", {"passed": 3}),
        member("Alarm", {"passed": 1, "crashed": 2}),
        member("Lost", {"not-tested": 1}, reasons=["unsupported: unknown type BoundedInts.uint8 (line 12): unknown "
                                                    "type BoundedInts.uint8 is not supported"]),
        member("Lost2", {"not-tested": 1}, reasons=["unsupported: unknown type K (line 40): unknown type K is not "
                                                     "supported"]),
        member("L", {"not-tested": 1}, ghost=True, kind="lemma", reasons=["no test was generated for it"]),
    ), statuses={"passed": 4, "crashed": 2, "not-tested": 3}),
    CommitOutcome("b" * 40, "second", seconds=10.0, members=(
        member("Gone", {"not-tested": 1}, reasons=["src/x.dfy:0:0: internal error: KeyError: 'T'",
                                                    "module Helper does not exist"]),
    ), statuses={"not-tested": 1}),
    CommitOutcome("c" * 40, "third", seconds=1.0),
    CommitOutcome("d" * 40, "fourth", error="the parent is not in this shallow clone"),
]


def test_figures_of_a_replay():
    f = load_script().figures(json.loads(dumps(OUTCOMES, {"bva": None})))
    assert (f["commits"], f["checked"], f["affected"], f["ghost"]) == (4, 3, 6, 1)
    assert (f["non_ghost_with_contract"], f["non_ghost_ran"]) == (5, 2)
    assert f["failing_verdicts"] == 2 and [m[2] for m in f["failing_members"]] == ["Alarm"]
    assert f["not_found"] == {"unknown type": 2, "unknown name": 0, "unknown function": 0, "does not exist": 1}
    assert f["internal"] == 1 and f["median_seconds"] == 4.0
    # one kind for both unknown types, whatever the name and line
    assert f["reasons"]["unsupported: unknown type X (line N): unknown type X is not supported"] == 2
    assert f["reasons"]["module X does not exist"] == 1
    assert f["statuses"] == {"passed": 4, "crashed": 2, "not-tested": 4}


def test_the_script_prints_the_figures(tmp_path):
    (tmp_path / "r.json").write_text(dumps(OUTCOMES, {"bva": 100, "target": "py", "last": 4}))
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "r.json"), "--examples"],
                          capture_output=True, text=True, check=True)
    assert "affected non-ghost members with a contract: 5; with tests that ran: 2 (40%)" in proc.stdout
    assert "failing verdicts (on merged code: false alarms): 2 in 1 members" in proc.stdout
    assert "median check per commit: 4.0 s" in proc.stdout
    assert "e.g. a.dfy:3 Lost" in proc.stdout or "e.g. a.dfy:3 Lost2" in proc.stdout
    bad = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "missing.json")], capture_output=True, text=True)
    assert bad.returncode == 2 and "missing.json" in bad.stderr

"""The real pipeline's half that needs no Dafny: the run command it builds and the record it reads."""

from __future__ import annotations

from pathlib import Path

from dspec2test.action.pipeline import PipelineOptions, Target, reproduce_command
from dspec2test.action.real import LOCATED, run_command, verdict_of
from dspec2test.errors import Severity
from dspec2test.generate import GenerateOptions
from dspec2test.records import Status


def test_run_command_carries_methods_flags_timeout_and_target(tmp_path):
    options = PipelineOptions(tmp_path, GenerateOptions(bva=7, fdnf=True, simplify=True), timeout=30, target="py")
    cmd = run_command(Target("src/a.dfy", ("M.Find", "Sum")), options, Path("/tmp/out.json"))
    assert cmd[1:4] == ["-m", "dspec2test", "run"]
    tail = cmd[4:]
    assert tail[:5] == ["src/a.dfy", "--method", "M.Find", "--method", "Sum"]
    for flags in (["--bva", "7"], ["--fdnf"], ["--simplify"], ["--timeout", "30"], ["--target", "py"],
                  ["--json", "/tmp/out.json"]):
        i = tail.index(flags[0])
        assert tail[i:i + len(flags)] == flags
    assert reproduce_command("src/a.dfy", "M.Find", options) == \
        "dspec2test run src/a.dfy --method M.Find --bva 7 --fdnf --simplify --target py"


def test_run_json_entry_becomes_a_verdict():
    entry = {"name": "Test_Last_p2_s3", "method": "Last", "partition": 2, "scenario": 3, "status": "failed",
             "message": "dspec2test: ensures (line 5) violated: r == s[|s| - 1]", "file": "a.dfy", "line": 3,
             "label": "|s| > 0", "pin": "|s| > 1", "inputs": {"s": "[1, 2, 3]"}, "clause_line": None,
             "clause": None, "expected": None, "actual": "r = 2", "test_line": 41}
    v = verdict_of(entry, "fallback.dfy")
    assert (v.test, v.method, v.partition, v.scenario, v.status) == ("Test_Last_p2_s3", "Last", 2, 3, Status.FAILED)
    assert v.member_line == 3 and v.line == 41 and v.clause_line == 5  # read from our own oracle message
    assert v.inputs == {"s": "[1, 2, 3]"} and v.actual == "r = 2" and v.label == "|s| > 0" and v.file == "a.dfy"
    assert verdict_of({"name": "T", "status": "not-tested"}, "b.dfy").file == "b.dfy"


def test_run_diagnostics_keep_their_severity():
    m = LOCATED.match("a.dfy:12:5: unsupported: multiset display: not supported")
    assert (m["severity"], m["msg"]) == ("unsupported", "multiset display: not supported")
    assert Severity(LOCATED.match("a.dfy:1:1: lost")["severity"] or "error") is Severity.ERROR

"""`dspec2test action` end to end with the REAL pipeline (parse, generate, dafny test --target py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from dspec2test import generate as generation
from dspec2test.toolchain import find_toolchain
from tests.action import fixtures
from tests.action.conftest import REPO, ROOT, TOKEN, PullRequestWorld
from tests.action.github_standin import GitHubStandIn, PullState, diff_lines
from tests.action.helpers import pr_files

pytestmark = [
    pytest.mark.dafny,
    pytest.mark.skipif(getattr(generation, "generate", None) is None, reason="needs test generation in this build"),
]

# Abs and Twice of the fixture pull request; the head breaks both bodies.
BASE = fixtures.ABS + "\n" + fixtures.NEW
HEAD = BASE.replace("    r := -x;\n", "    r := x;\n").replace("  r := x + x;\n", "  r := 2 * x;\n")


# the job's and the runner's secrets, as GitHub sets them for a docker action
SECRETS = {"GITHUB_TOKEN": TOKEN, "ACTIONS_RUNTIME_TOKEN": "eyJ0eXAiOiJKV1QiLCJydW50aW1l",
           "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJhbGciOiJSUzI1Ni1vaWRj",
           "ACTIONS_ID_TOKEN_REQUEST_URL": "https://pipelines.example.invalid/idtoken?x=1",
           "INPUT_DEPLOY_KEY": "deploy-key-from-secrets-0123"}
WRAPPED = ("git", "dafny", "python", "python3", "z3")


def wrappers(tmp_path):
    """A folder of wrappers that log the environment of every git, dafny and python process they start
    (the action's children, dafny's test programs) to env.log, then run the real tool."""
    folder = tmp_path / "wrap"
    folder.mkdir()
    tools = find_toolchain()
    real = {"git": shutil.which("git"), "dafny": tools.dafny, "python": sys.executable, "python3": sys.executable,
            "z3": tools.z3}
    for name in WRAPPED:
        script = folder / name
        # exec -a keeps the wrapper's path as argv[0]: Python's sys.executable, so its children come back here
        script.write_text(f'#!/bin/bash\n{{ echo "=== {name} $*"; env; }} >> "$ENV_LOG"\n'
                          f'exec -a "$0" "{real[name]}" "$@"\n')
        script.chmod(0o755)
    return folder


def test_real_pipeline_review_junit_gate_rerun_and_fork(tmp_path):
    world = PullRequestWorld(tmp_path, {"abs.dfy": BASE}, {"abs.dfy": HEAD})
    real = [sys.executable, "-m", "dspec2test", "action"]
    wrap = wrappers(tmp_path)
    log = tmp_path / "env.log"
    # the wrapped python finds the dafny wrapper beside it; the z3 wrapper puts its folder first on dafny's
    # PATH, so that the python3 of the compiled tests is the wrapper too
    env = {**SECRETS, "PATH": f"{wrap}{os.pathsep}{os.environ['PATH']}", "ENV_LOG": str(log),
           "PYTHONPATH": str(ROOT / "src"), "DSPEC2TEST_Z3": str(wrap / "z3")}
    pull = PullState(7, world.head, world.base, REPO, REPO, pr_files(world.repo, world.base, world.head))
    with GitHubStandIn(REPO, TOKEN, pull) as server:
        run = world.run(server.url, script=[str(wrap / "python"), "-m", "dspec2test", "action"], bva="true",
                        extra_env=env)
        assert run.code == 1, run.out + run.err
        assert TOKEN not in run.out + run.err
        # every child process (git, dafny, the compiled tests) ran without a secret; the action tests in process
        started = log.read_text().split("=== ")[1:]
        children = [entry for entry in started if not entry.startswith("python -m dspec2test action")]
        kinds = {entry.split(" ", 1)[0] for entry in children}
        assert {"git", "dafny", "python3"} <= kinds, kinds
        assert not any(e.startswith("python -m dspec2test run") for e in children)
        assert any(e.startswith("python3 ") and "driver.py" in e.split("\n", 1)[0] for e in children)  # the tests
        for entry in children:
            assert not [n for n in (*SECRETS, "INPUT_GITHUB_TOKEN") if f"\n{n}=" in entry], entry[:200]
            assert not [v for v in SECRETS.values() if v in entry], entry[:200]
        assert int(run.outputs["failed"]) >= 1 and int(run.outputs["tests"]) > int(run.outputs["failed"])
        assert run.outputs["methods"] == "2"
        right, _ = diff_lines(server.pull.files[0]["patch"])
        comments = list(server.comments.values())
        assert comments and all("Abs" in c["body"] for c in comments)
        assert all(c["subject_type"] == "file" or c["line"] in right for c in comments)
        assert any("dspec2test run abs.dfy --method Abs" in c["body"] for c in comments)
        cases = list(ET.parse(world.repo / "dspec2test-junit.xml").getroot().iter("testcase"))
        assert len(cases) == int(run.outputs["tests"]) and all(c.get("file") for c in cases)
        results = json.loads((world.repo / "dspec2test-results.json").read_text())
        assert {t["method"] for t in results["tests"]} == {"Abs", "Twice"}
        assert "❌ failed" in run.summary

        writes = len(server.writes())
        again = world.run(server.url, script=real, bva="true")
        assert again.code == 1 and len(server.writes()) == writes  # nothing duplicated

    with GitHubStandIn(REPO, TOKEN, world.pull(head_repo="someone/fork")) as server:
        fork = world.run(server.url, script=real, head_repo="someone/fork", bva="true")
        assert fork.code == 1 and server.writes() == []
        assert "::error file=abs.dfy" in fork.out


def test_check_runs_the_real_pipeline_for_the_affected_members_only(tmp_path):
    world = PullRequestWorld(tmp_path, {"abs.dfy": BASE}, {"abs.dfy": HEAD.replace("  r := 2 * x;\n", "  r := x + x;\n")})
    env = {**os.environ, "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "dspec2test", "check", "--base", "main", "--target", "py",
                           "--junit", str(tmp_path / "j.xml")], cwd=world.repo, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "abs.dfy:1: Abs (changed line 6)" in proc.stdout
    assert "Twice" not in proc.stdout  # untouched: not tested
    assert "failed on " in proc.stdout and "broke " in proc.stdout  # run's own terminal report
    # the recap: one broken clause, on the failing test generated and the one its input shrank to (a test of
    # its own that ran and failed), whose input it shows first
    assert "Not passing: 1 finding, 2 tests\n  abs.dfy:2: Abs: failed: r >= 0 (line 2)" in proc.stdout
    assert "; first on x = -1: actual r = -1\n" in proc.stdout
    cases = list(ET.parse(tmp_path / "j.xml").getroot().iter("testcase"))
    assert cases and {c.get("classname") for c in cases} == {"abs.dfy.Abs"}

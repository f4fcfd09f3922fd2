"""Fixtures for the action tests: the fixture pull request in a real git repository, a GitHub
stand-in serving it, and a runner for `dspec2test action` as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.action import fixtures
from tests.action.github_standin import GitHubStandIn, PullState
from tests.action.helpers import commit, make_repo, pr_files

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghs_standintoken1234567890"
REPO = "octo/widgets"


@dataclass
class ActionRun:
    code: int
    out: str
    err: str
    outputs: dict
    summary: str
    targets: list


class PullRequestWorld:
    def __init__(self, tmp: Path, base_files: dict | None = None, head_files: dict | None = None):
        self.tmp = tmp
        self.repo, self.base, self.head = make_repo(
            tmp, base_files or {"prog.dfy": fixtures.BASE_PROG, "other.dfy": fixtures.OTHER},
            head_files or {"prog.dfy": fixtures.HEAD_PROG, "new.dfy": fixtures.NEW},
        )
        self.verdicts = fixtures.verdicts()
        self.runs = 0
        self.event_base: str | None = None  # a base sha for the event other than the real one

    def pull(self, head_repo: str = REPO) -> PullState:
        return PullState(7, self.head, self.base, head_repo, REPO, pr_files(self.repo, self.base, self.head))

    def push(self, files: dict[str, str | None], standin: GitHubStandIn | None = None) -> None:
        self.head = commit(self.repo, files, "push")
        if standin:
            standin.set_head(self.head, pr_files(self.repo, self.base, self.head))

    def event(self, head_repo: str = REPO) -> Path:
        path = self.tmp / "event.json"
        path.write_text(json.dumps({"action": "synchronize", "number": 7, "pull_request": {
            "number": 7, "head": {"sha": self.head, "repo": {"full_name": head_repo}},
            "base": {"sha": self.event_base or self.base, "repo": {"full_name": REPO}}}}))
        return path

    def run(self, api_url: str, head_repo: str = REPO, script: list[str] | None = None, event: dict | None = None,
            event_name: str = "pull_request", extra_env: dict | None = None, **inputs: str) -> ActionRun:
        """One run of the action; `event` replaces the pull request event (written as GitHub writes it)."""
        self.runs += 1
        n = self.runs
        if event is None:
            event_path = self.event(head_repo)
        else:
            event_path = self.tmp / f"event{n}.json"
            event_path.write_text(json.dumps(event))
        verdict_file = self.tmp / f"verdicts{n}.json"
        verdict_file.write_text(json.dumps(self.verdicts))
        out_file, summary_file, targets_file = (self.tmp / f"{k}{n}" for k in ("output", "summary", "targets"))
        env = {
            "PATH": os.environ["PATH"], "HOME": str(self.tmp), "GIT_CONFIG_NOSYSTEM": "1",
            "GITHUB_ACTIONS": "true", "GITHUB_API_URL": api_url, "GITHUB_REPOSITORY": REPO,
            "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_WORKSPACE": str(self.repo), "GITHUB_OUTPUT": str(out_file),
            "GITHUB_STEP_SUMMARY": str(summary_file), "GITHUB_SHA": "f" * 40,
            "INPUT_GITHUB_TOKEN": TOKEN, "INPUT_WRITE_DELAY": "0.01", "INPUT_TARGET": "py",
            "FAKE_VERDICTS": str(verdict_file), "FAKE_TARGETS_OUT": str(targets_file),
        }
        if os.environ.get("PYTHONPATH"):  # the sources under test, where they are not the installed ones
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
        env.update(extra_env or {})
        cmd = [sys.executable, str(ROOT / "tests/action/fake_action.py")] if script is None else script
        proc = subprocess.run(cmd, cwd=self.repo, env=env, capture_output=True, text=True, timeout=600)
        outputs = {}
        if out_file.exists():
            for line in out_file.read_text().splitlines():
                key, _, value = line.partition("=")
                outputs[key] = value
        targets = [json.loads(x) for x in targets_file.read_text().splitlines()] if targets_file.exists() else []
        return ActionRun(proc.returncode, proc.stdout, proc.stderr, outputs,
                         summary_file.read_text() if summary_file.exists() else "", targets)


@pytest.fixture
def world(tmp_path):
    return PullRequestWorld(tmp_path)


@pytest.fixture
def standin(world):
    with GitHubStandIn(REPO, TOKEN, world.pull()) as server:
        yield server

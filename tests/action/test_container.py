"""The container and workflow files (Docker cannot run here: these check what they say)."""

from __future__ import annotations

import os
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_dockerfile_uses_debian12_dotnet_and_the_ci_setup_script():
    text = (ROOT / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert lines[0].startswith("FROM mcr.microsoft.com/dotnet/sdk:8.0-bookworm")
    assert "bash /app/scripts/setup.sh" in text
    assert 'ENTRYPOINT ["/app/entrypoint/entrypoint.sh"]' in text
    assert not [line for line in lines if line.startswith(("USER", "WORKDIR"))]
    setup = (ROOT / "scripts/setup.sh").read_text()
    assert 'DAFNY_VERSION="4.11.0"' in setup and " z3 " in setup
    assert "bash scripts/setup.sh" in (ROOT / ".ci/run").read_text()  # the same script as CI


def test_entrypoint_trusts_workspace_then_execs_the_action():
    path = ROOT / "entrypoint/entrypoint.sh"
    text = path.read_text()
    assert os.access(path, os.X_OK)
    assert text.index('safe.directory "$GITHUB_WORKSPACE"') < text.index("exec /app/.venv/bin/dspec2test action")


def test_workflows():
    ci = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    assert any(step.get("run") == "bash .ci/run" for step in ci["jobs"]["test"]["steps"])
    example = yaml.safe_load((ROOT / ".github/workflows/dspec2test.yml").read_text())
    assert example["permissions"] == {"contents": "read", "pull-requests": "write", "checks": "write"}
    checkout = example["jobs"]["contracts"]["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["fetch-depth"] == 0 and "head.sha" in checkout["with"]["ref"]
    publish = yaml.safe_load((ROOT / "docs/workflows/dspec2test-publish.yml").read_text())
    assert "workflow_run" in publish[True]  # yaml reads the key `on` as True
    step = publish["jobs"]["publish"]["steps"][-1]
    assert step["with"]["results"] and step["with"]["event_path"] == "event.json"

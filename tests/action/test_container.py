"""The container and workflow files say what they should (building the image is tests/action/test_image.py,
which runs only against an image already built)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DIGEST = re.compile(r"^FROM mcr\.microsoft\.com/dotnet/sdk:8\.0-bookworm-slim@sha256:[0-9a-f]{64}$")


def test_dockerfile_pins_its_base_and_runs_the_ci_setup_script_for_the_product_only():
    text = (ROOT / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert DIGEST.match(lines[0]), lines[0]
    assert "bash /app/scripts/setup.sh --product" in text
    assert 'ENTRYPOINT ["/app/entrypoint/entrypoint.sh"]' in text
    assert not [line for line in lines if line.startswith(("USER", "WORKDIR"))]
    # GitHub sets HOME=/github/home: the C# packages must live where NuGet finds them whatever HOME is
    assert "NUGET_PACKAGES=/app/.nuget/packages" in text and "ENV RestoreSources=/app/.nuget/packages" in text
    setup = (ROOT / "scripts/setup.sh").read_text()
    assert 'DAFNY_VERSION="4.11.0"' in setup and " z3 " in setup
    product = re.search(r"PRODUCT_PACKAGES=\(([^)]*)\)", setup).group(1).split()
    dev = re.search(r"DEV_PACKAGES=\(([^)]*)\)", setup).group(1).split()
    assert not {"python3-pytest", "python3-hypothesis", "python3-matplotlib"} & set(product)
    assert {"python3-pytest", "python3-hypothesis", "python3-matplotlib", "shellcheck"} <= set(dev)
    assert "bash scripts/setup.sh" in (ROOT / ".ci/run").read_text()  # the same script as CI
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", ".tools", ".lint", "tests"} <= set(ignored) and "vendor" not in ignored


def test_entrypoint_trusts_workspace_then_execs_the_action():
    path = ROOT / "entrypoint/entrypoint.sh"
    text = path.read_text()
    assert os.access(path, os.X_OK)
    assert text.index('safe.directory "$GITHUB_WORKSPACE"') < text.index("exec /app/.venv/bin/dspec2test action")


def workflow(path: str) -> dict:
    doc = yaml.safe_load((ROOT / path).read_text())
    doc["on"] = doc.pop(True)  # yaml reads the key `on` as True
    return doc


def test_ci_and_the_users_example():
    ci = workflow(".github/workflows/ci.yml")
    assert any(step.get("run") == "bash .ci/run" for step in ci["jobs"]["test"]["steps"])
    assert "@sha256:" in ci["jobs"]["test"]["container"]
    example = workflow("docs/workflows/dspec2test.yml")
    assert set(example["on"]) == {"pull_request", "merge_group"}  # no paths filter
    # no `checks: write`: the default reporter posts a review; SARIF goes to code scanning
    assert example["permissions"] == {"contents": "read", "pull-requests": "write", "security-events": "write"}
    checkout, action, upload = example["jobs"]["contracts"]["steps"][:3]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "dspec2test.sarif" and "always()" in upload["if"]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["fetch-depth"] == 0 and "head.sha" in checkout["with"]["ref"]
    assert action["uses"] == "OWNER/dspec2test-action@v1"
    publish = workflow("docs/workflows/dspec2test-publish.yml")
    assert "workflow_run" in publish["on"]
    step = publish["jobs"]["publish"]["steps"][-1]
    assert step["with"]["results"] and step["with"]["event_path"] == "event.json"


def test_every_change_runs_the_action_built_from_source_on_the_examples():
    doc = workflow(".github/workflows/dspec2test.yml")
    assert {"pull_request", "merge_group"} <= set(doc["on"])
    steps = doc["jobs"]["examples"]["steps"]
    runs = [s.get("run", "") for s in steps]
    swap = next(i for i, r in enumerate(runs) if "image: Dockerfile" in r)
    fetch = next(i for i, r in enumerate(runs) if "scripts/fetch-z3.sh" in r)
    local = [i for i, s in enumerate(steps) if s.get("uses") == "./"]
    assert local and fetch < swap < local[0]
    assert all(steps[i]["with"]["paths"] == "examples/**/*.dfy" for i in local)


def test_the_release_workflow_publishes_the_three_tags_of_the_owners_image():
    doc = workflow(".github/workflows/release.yml")
    assert doc["on"]["push"]["tags"] == ["v*.*.*"] and "version" in doc["on"]["workflow_dispatch"]["inputs"]
    jobs = doc["jobs"]
    assert jobs["release"]["permissions"]["packages"] == "write"
    text = (ROOT / ".github/workflows/release.yml").read_text()
    assert "GITHUB_REPOSITORY_OWNER,," in text and "bash scripts/fetch-z3.sh" in text
    assert "scripts/publish-release.sh \"$VERSION\" \"$OWNER\" --push" in text
    assert jobs["verify"]["needs"] == "release" and jobs["publish"]["needs"] == ["release", "verify"]
    assert jobs["publish"]["permissions"]["contents"] == "write"
    publish = (ROOT / "scripts/publish-release.sh").read_text()
    assert 'image="ghcr.io/$owner/dspec2test-action"' in publish
    assert 'tags+=("v${version%.*}" "v${version%%.*}")' in publish


def test_everything_users_read_names_the_action_dspec2test_action():
    texts = {p: (ROOT / p).read_text() for p in ("README.md", "CHANGELOG.md", "docs/workflows/dspec2test.yml",
                                                 "docs/workflows/dspec2test-untrusted.yml",
                                                 "docs/workflows/dspec2test-publish.yml")}
    for path, text in texts.items():
        assert not re.search(r"OWNER/dspec2test(?!-action)\b", text), path
    assert "uses: OWNER/dspec2test-action@v1" in texts["README.md"]

"""The container and workflow files say what they should (building the image is tests/action/test_image.py,
which runs only against an image already built)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DIGEST = re.compile(r"^FROM mcr\.microsoft\.com/dotnet/(sdk|runtime):8\.0-bookworm-slim@sha256:[0-9a-f]{64} AS \1$")


def stages(text: str) -> dict[str, list[str]]:
    """The Dockerfile's instructions by stage name (continuation lines joined)."""
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.replace("\\\n", " ").splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("FROM "):
            current = out.setdefault(line.split()[-1], [])
        current.append(line)
    return out


def test_dockerfile_pins_its_bases_and_runs_the_ci_setup_script_for_the_product_only():
    text = (ROOT / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert DIGEST.match(lines[0]) and DIGEST.match(lines[1]), lines[:2]  # literal: Dependabot updates them
    assert "bash /app/scripts/setup.sh --product" in text
    assert not [line for line in lines if line.startswith(("USER", "WORKDIR"))]
    by_stage = stages(text)
    assert list(by_stage)[-1] == "py" and by_stage["py"] == ["FROM app AS py"]  # the default build
    assert by_stage["app"][0] == "FROM runtime AS app" and by_stage["cs"][0] == "FROM sdk AS cs"
    for name in ("app", "cs"):
        steps = by_stage[name]
        assert 'ENTRYPOINT ["/app/entrypoint/entrypoint.sh"]' in steps, name
        # the toolchain layers first, the sources after them: an edit of the sources rebuilds little
        packages = next(i for i, s in enumerate(steps) if "--only=packages" in s)
        dafny = next(i for i, s in enumerate(steps) if s.startswith("COPY --from=dafny"))
        sources = next(i for i, s in enumerate(steps) if s == "COPY . /app")
        assert packages < dafny < sources, name
    assert any("--only=dafny" in s for s in by_stage["dafny"]) and by_stage["dafny"][0] == "FROM sdk AS dafny"
    # GitHub sets HOME=/github/home: the C# packages must live where NuGet finds them whatever HOME is
    cs = "\n".join(by_stage["cs"])
    assert "NUGET_PACKAGES=/app/.nuget/packages" in cs and "ENV RestoreSources=/app/.nuget/packages" in cs
    assert cs.index("dafny test --no-verify --target cs") < cs.index("COPY . /app")
    assert "DSPEC2TEST_IMAGE_VARIANT=py" in "\n".join(by_stage["app"]) and "DSPEC2TEST_IMAGE_VARIANT=cs" in cs
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


def test_the_release_workflow_publishes_the_owners_image_once_with_its_sbom_and_provenance():
    doc = workflow(".github/workflows/release.yml")
    assert doc["on"]["push"]["tags"] == ["v*.*.*"] and "version" in doc["on"]["workflow_dispatch"]["inputs"]
    jobs = doc["jobs"]
    assert jobs["release"]["permissions"]["packages"] == "write"
    text = (ROOT / ".github/workflows/release.yml").read_text()
    assert "GITHUB_REPOSITORY_OWNER,," in text and "bash scripts/fetch-z3.sh" in text
    steps = jobs["release"]["steps"]
    runs = [s.get("run", "") for s in steps]
    preflight = next(i for i, r in enumerate(runs) if "--preflight" in r)
    built = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("docker/build-push-action@")
                 and s["with"].get("load"))
    checked = next(i for i, r in enumerate(runs) if "--prebuilt" in r)
    pushed = [i for i, s in enumerate(steps) if s.get("with", {}).get("push")]
    assert preflight < built < checked < pushed[0] and len(pushed) == 1
    push = steps[pushed[0]]
    assert push["if"] == "github.event_name == 'push'" and push["with"]["sbom"] is True
    assert str(push["with"]["provenance"]).startswith("mode=max")
    assert push["with"]["tags"] == "${{ steps.preflight.outputs.tags }}"  # vX.Y, vX only where newest
    assert "--release" in runs[preflight] and "--release" in runs[checked]
    assert jobs["verify"]["needs"] == "release" and jobs["publish"]["needs"] == ["release", "verify"]
    assert jobs["publish"]["permissions"]["contents"] == "write"
    assert "scripts/release.py moving" in "".join(s.get("run", "") for s in jobs["publish"]["steps"])
    publish = (ROOT / "scripts/publish-release.sh").read_text()
    assert 'image="ghcr.io/$owner/dspec2test-action"' in publish
    assert "release.py moving" in publish and "never overwritten" in publish


def test_every_job_has_a_time_limit_and_every_action_is_pinned_by_commit():
    for path in sorted((ROOT / ".github/workflows").glob("*.yml")):
        doc = workflow(f".github/workflows/{path.name}")
        for name, job in doc["jobs"].items():
            assert 0 < job["timeout-minutes"] <= 90, f"{path.name}: {name}"
            for step in job["steps"]:
                uses = step.get("uses", "./")
                assert uses.startswith("./") or re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), uses
        text = path.read_text()  # the version beside each pin, for people and for Dependabot
        assert all(re.search(r"  # v\d+\.\d+\.\d+$", line) for line in text.splitlines() if "@" in line
                   and re.search(r"uses: [\w.-]+/", line)), path.name
    dependabot = yaml.safe_load((ROOT / ".github/dependabot.yml").read_text())
    assert {u["package-ecosystem"] for u in dependabot["updates"]} == {"github-actions", "docker"}


def test_everything_users_read_names_the_action_dspec2test_action():
    texts = {p: (ROOT / p).read_text() for p in ("README.md", "CHANGELOG.md", "docs/workflows/dspec2test.yml",
                                                 "docs/workflows/dspec2test-untrusted.yml",
                                                 "docs/workflows/dspec2test-publish.yml")}
    for path, text in texts.items():
        assert not re.search(r"OWNER/dspec2test(?!-action)\b", text), path
    assert "uses: OWNER/dspec2test-action@v1" in texts["README.md"]

"""The built image, run as GitHub runs a Docker action, against the GitHub stand-in over real HTTP.

Building the image takes minutes, so the normal suite does not: these tests run only when
DSPEC2TEST_IMAGE names an image already built (DSPEC2TEST_ENGINE: `podman` (default) or `docker`).
Where no registry is reachable, build a copy of the Dockerfile whose two first FROM lines name local
stand-ins of the .NET SDK and runtime images (the SDK one with its sdk/, packs/ and templates/ removed
makes the runtime one):

    sed -e 's|^FROM mcr.microsoft.com/dotnet/sdk:[^ ]* AS sdk$|FROM localhost/dotnet-sdk-local:bookworm AS sdk|' \
        -e 's|^FROM mcr.microsoft.com/dotnet/runtime:[^ ]* AS runtime$|FROM localhost/dotnet-runtime-local:bookworm AS runtime|' \
        Dockerfile > /tmp/Dockerfile.local
    podman build --network host -f /tmp/Dockerfile.local -t localhost/dspec2test-action:dev .    # py, the default
    podman build --network host -f /tmp/Dockerfile.local --target cs -t localhost/dspec2test-action:cs .
    DSPEC2TEST_IMAGE=localhost/dspec2test-action:dev .venv/bin/python -m pytest -s tests/action/test_image.py

The container reaches the stand-in on 127.0.0.1 through `--network host`. Mounts, environment and
working directory are the ones GitHub's runner gives a Docker action; the checkout belongs to another
user than the container's root (uid 1001, as on GitHub's runners), so git's safe.directory matters.
`-s` shows the cold-start times (container start to first output, and to the end of the run);
DSPEC2TEST_IMAGE_TARGET sets the action's `target` input for that run (`cs` needs the cs image).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.action import fixtures
from tests.action.conftest import REPO, TOKEN
from tests.action.github_standin import GitHubStandIn, PullState, diff_lines
from tests.action.helpers import make_repo, pr_files

IMAGE = os.environ.get("DSPEC2TEST_IMAGE", "")
ENGINE = os.environ.get("DSPEC2TEST_ENGINE", "podman")
TARGET = os.environ.get("DSPEC2TEST_IMAGE_TARGET", "")  # the action's `target` input; empty: its default

pytestmark = pytest.mark.skipif(not IMAGE, reason="set DSPEC2TEST_IMAGE to a built image of the action")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conditional_get.dfy"
# One member, Abs; the pull request breaks its body.
HEAD = fixtures.ABS.replace("    r := -x;\n", "    r := x;\n")


def engine(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([ENGINE, *args], capture_output=True, text=True, timeout=600, **kw)


def test_test_only_packages_are_not_in_the_image_and_doctor_names_its_z3():
    for module in ("pytest", "hypothesis", "matplotlib"):
        probe = engine("run", "--rm", "--entrypoint", "/app/.venv/bin/python", IMAGE, "-c", f"import {module}")
        assert probe.returncode != 0 and "ModuleNotFoundError" in probe.stderr, module
    doctor = engine("run", "--rm", "--entrypoint", "/app/.venv/bin/dspec2test", IMAGE, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    z3 = next(line for line in doctor.stdout.splitlines() if line.startswith("z3 (dafny verifies)"))
    assert "(/" in z3  # its version and path
    print(f"\nimage {IMAGE}: {z3.split(None, 3)[-1]}")


def test_a_one_member_pull_request_in_the_container(tmp_path):
    repo, base, head = make_repo(tmp_path, {"abs.dfy": fixtures.ABS}, {"abs.dfy": HEAD})
    github = {name: tmp_path / name for name in ("home", "workflow", "file_commands")}
    for folder in github.values():
        folder.mkdir()
    (github["workflow"] / "event.json").write_text(json.dumps({"action": "synchronize", "number": 7, "pull_request": {
        "number": 7, "head": {"sha": head, "repo": {"full_name": REPO}}, "base": {"sha": base, "repo": {"full_name": REPO}}}}))
    pull = PullState(7, head, base, REPO, REPO, pr_files(repo, base, head))
    if os.geteuid() == 0:  # the runner's user owns the checkout, not the container's root
        for path in [repo, *repo.rglob("*")]:
            os.lchown(path, 1001, 1001)
    with GitHubStandIn(REPO, TOKEN, pull) as server:
        env = {"HOME": "/github/home", "GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_API_URL": server.url,
               "GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_NAME": "pull_request", "GITHUB_SHA": "f" * 40,
               "GITHUB_WORKSPACE": "/github/workspace", "GITHUB_EVENT_PATH": "/github/workflow/event.json",
               "GITHUB_OUTPUT": "/github/file_commands/output", "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
               "GITHUB_TOKEN": TOKEN, "INPUT_GITHUB_TOKEN": TOKEN, "INPUT_WRITE_DELAY": "0",
               **({"INPUT_TARGET": TARGET} if TARGET else {})}
        argv = [ENGINE, "run", "--rm", "--network", "host", "--workdir", "/github/workspace",
                "-v", f"{repo}:/github/workspace", *[f"-v{github[n]}:/github/{n}" for n in github],
                *[x for k, v in env.items() for x in ("-e", f"{k}={v}")], IMAGE]
        started = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = proc.stdout.readline()
        first_at = time.monotonic() - started
        rest, err = proc.communicate(timeout=600)
        ended_at = time.monotonic() - started
    out = first + rest
    print(f"\ncold start in {ENGINE} (target {TARGET or 'default'}): first output after {first_at:.1f} s, "
          f"run over after {ended_at:.1f} s")
    assert proc.returncode == 1, out + err  # the gate: Abs's partition x < 0 fails
    assert first.startswith("dspec2test: abs.dfy: Abs (changed line"), first
    assert TOKEN not in out + err
    outputs = dict(line.split("=", 1) for line in (github["file_commands"] / "output").read_text().splitlines())
    assert outputs["conclusion"] == "failure" and outputs["affected"] == "1" and int(outputs["failed"]) >= 1
    assert outputs["review_url"] == server.reviews[0]["html_url"]
    right, _ = diff_lines(pull.files[0]["patch"])
    comments = list(server.comments.values())
    assert comments and all(c["path"] == "abs.dfy" and c["line"] in right for c in comments)
    assert all(c["user"]["login"] == "github-actions[bot]" for c in comments)
    summary = (github["file_commands"] / "summary").read_text()
    assert "❌ failed" in summary and "Dafny verifies with Z3 " in summary
    for name in ("dspec2test-junit.xml", "dspec2test.sarif", "dspec2test-results.json", "dspec2test-summary.md"):
        assert (repo / name).is_file(), name


def test_every_member_of_the_example_offline_with_the_default_target(tmp_path):
    """No network at all (on the cs image, Dafny's C# builds restore from the packages it carries)."""
    repo, _, _ = make_repo(tmp_path, {"conditional_get.dfy": EXAMPLE.read_text()}, {})
    for name in ("workflow", "file_commands", "home"):
        (tmp_path / name).mkdir()
    (tmp_path / "workflow" / "event.json").write_text(json.dumps({"inputs": {}, "ref": "refs/heads/main"}))
    env = {"HOME": "/github/home", "GITHUB_WORKSPACE": "/github/workspace", "GITHUB_EVENT_NAME": "workflow_dispatch",
           "GITHUB_EVENT_PATH": "/github/workflow/event.json", "GITHUB_OUTPUT": "/github/file_commands/output",
           "GITHUB_STEP_SUMMARY": "/github/file_commands/summary", "INPUT_REPORTER": "summary"}
    run = engine("run", "--rm", "--network", "none", "-v", f"{repo}:/github/workspace",
                 *[f"-v{tmp_path / n}:/github/{n}" for n in ("workflow", "file_commands", "home")],
                 *[x for k, v in env.items() for x in ("-e", f"{k}={v}")], IMAGE)
    assert run.returncode == 1, run.stdout + run.stderr  # the example's planted bug
    outputs = dict(line.split("=", 1) for line in (tmp_path / "file_commands" / "output").read_text().splitlines())
    assert outputs["failed"] == "1" and int(outputs["passed"]) >= 3, run.stdout
    assert int(outputs["passed"]) + 1 == int(outputs["tests"])  # nothing else: no not-tested build failure


def test_the_engine_is_there():
    assert shutil.which(ENGINE), f"{ENGINE} is not on PATH"

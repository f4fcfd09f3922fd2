"""What a new user reads first: the README leads with what it does, pictures and the workflow to copy;
nothing in the repository points outside it; the licence is there."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FIRST_SCREEN = 45  # lines of README.md a browser shows before scrolling, pictures being one line each


def test_the_first_screen_shows_what_it_does_the_pictures_and_the_workflow_to_copy():
    head = README.splitlines()[:FIRST_SCREEN]
    text = "\n".join(head)
    assert head[0] == "# dspec2test" and "requires" in text and "ensures" in text
    for picture in re.findall(r'src="(docs/images/[^"]+\.png)"', text):
        assert (ROOT / picture).is_file(), picture
    assert len(re.findall(r'src="docs/images/', text)) == 2
    fence = text.index("```yaml")
    workflow = yaml.safe_load(text[fence + len("```yaml"):text.index("```", fence + 7)])
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write", "security-events": "write"}
    steps = workflow["jobs"]["contracts"]["steps"]
    assert [s["uses"].split("@")[0] for s in steps] == ["actions/checkout", "OWNER/dspec2test-action",
                                                         "github/codeql-action/upload-sarif"]
    assert steps[2]["with"]["sarif_file"] == "dspec2test.sarif"
    # the example workflow in docs/ is the same job, with its reports kept as an artifact
    example = yaml.safe_load((ROOT / "docs/workflows/dspec2test.yml").read_text(encoding="utf-8"))
    assert example["permissions"] == workflow["permissions"]
    assert [s.get("uses", "").split("@")[0] for s in example["jobs"]["contracts"]["steps"][:3]] == \
        [s["uses"].split("@")[0] for s in steps]


def test_the_developer_commands_ci_runs_are_in_the_readme():
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8")
    for command in ("bash scripts/setup.sh", "bash scripts/test.sh"):
        assert command in ci and command in README


def test_nothing_in_the_repository_points_outside_it():
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    offenders = []
    for name in listed.decode().split("\0"):
        path = ROOT / name
        if not name or not path.is_file() or path.suffix in (".png", ".dfy", ".out", ".err"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if "../shared" in text or "/work/" in text:
            offenders.append(name)
    assert offenders == [] or offenders == ["tests/test_readme.py"], offenders


def test_the_licence_is_the_one_pyproject_names_with_real_authors():
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "dspec2test authors" in licence
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["author"] == "dspec2test authors"

"""Releases: the release commit names its own image, the versions agree, and the checked-in state is
either before the first release (`image: Dockerfile`) or exactly the last release's."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / "scripts" / "release.py"
FILES = ("action.yml", "CHANGELOG.md", "pyproject.toml", "src/dspec2test/__init__.py", "scripts/release.py")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def released_versions(changelog: str) -> list[str]:
    return re.findall(r"^## v(\S+)", changelog, re.MULTILINE)


def test_the_checked_in_action_names_the_last_release_or_builds_from_source():
    image = yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["image"]
    versions = released_versions((ROOT / "CHANGELOG.md").read_text())
    version = re.search(r'^version = "(.*)"$', (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1)
    assert f'__version__ = "{version}"' in (ROOT / "src/dspec2test/__init__.py").read_text()
    if not versions:  # nothing published yet: there is no image to name
        assert image == "Dockerfile"
    else:
        assert re.fullmatch(rf"docker://ghcr\.io/[a-z0-9-]+/dspec2test-action:v{re.escape(versions[0])}", image)
        assert version == versions[0]
    assert yaml.safe_load((ROOT / "action.yml").read_text())["name"] == "dspec2test-action"


def repo_copy(tmp_path: Path, remote: str = "git@github.com:Octo-Org/dspec2test-action.git") -> Path:
    repo = tmp_path / "repo"
    for name in FILES:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, repo / name)
    action = repo / "action.yml"  # as after some earlier release, to see the line replaced
    action.write_text(re.sub(r"^  image: .*$", "  image: docker://ghcr.io/octo-org/dspec2test-action:v0.9.0",
                             action.read_text(), flags=re.MULTILINE))
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", remote], ["add", "-A"],
                 ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True)
    return repo


def release(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(repo / "scripts/release.py"), *args], cwd=repo, capture_output=True,
                          text=True, env={**GIT_ENV, "PATH": "/usr/bin:/bin"})


def test_prepare_writes_the_release_commit_and_tags_it(tmp_path):
    repo = repo_copy(tmp_path)
    before = {name: (repo / name).read_text() for name in FILES}
    dry = release(repo, "prepare", "1.2.0", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "+  image: docker://ghcr.io/octo-org/dspec2test-action:v1.2.0" in dry.stdout
    assert {name: (repo / name).read_text() for name in FILES} == before  # a dry run changes nothing

    assert release(repo, "check", "1.2.0", "--owner", "Octo-Org").returncode == 1
    done = release(repo, "prepare", "1.2.0")
    assert done.returncode == 0, done.stderr

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, capture_output=True, text=True).stdout

    assert git("rev-parse", "v1.2.0^{commit}") == git("rev-parse", "HEAD")
    assert git("log", "-1", "--format=%s") == "Release v1.2.0\n"
    # the tagged commit's action.yml names its own image (owner lowercased for the registry)
    assert "  image: docker://ghcr.io/octo-org/dspec2test-action:v1.2.0\n" in git("show", "v1.2.0:action.yml")
    changelog = (repo / "CHANGELOG.md").read_text()
    assert changelog.index("## Unreleased") < changelog.index("## v1.2.0 - ") < changelog.index("The first release.")
    assert 'version = "1.2.0"' in (repo / "pyproject.toml").read_text()
    assert '__version__ = "1.2.0"' in (repo / "src/dspec2test/__init__.py").read_text()
    assert release(repo, "check", "1.2.0", "--owner", "Octo-Org").returncode == 0
    wrong = release(repo, "check", "1.2.0", "--owner", "mallory")
    assert wrong.returncode == 1 and "ghcr.io/mallory/dspec2test-action:v1.2.0" in wrong.stderr
    notes = release(repo, "notes", "1.2.0")
    assert notes.returncode == 0 and notes.stdout.startswith("The first release.")
    assert "The first release." in git("tag", "-l", "--format=%(contents)", "v1.2.0")

    again = release(repo, "prepare", "1.3.0")  # nothing new under Unreleased
    assert again.returncode == 2 and "Unreleased" in again.stderr
    assert release(repo, "prepare", "1.2", "--dry-run").returncode == 2


def test_prepare_needs_an_owner_and_a_clean_tree(tmp_path):
    repo = repo_copy(tmp_path, remote="https://example.invalid/elsewhere.git")
    no_owner = release(repo, "prepare", "1.0.0")
    assert no_owner.returncode == 2 and "--owner" in no_owner.stderr
    (repo / "action.yml").write_text((repo / "action.yml").read_text() + "# local edit\n")
    dirty = release(repo, "prepare", "1.0.0", "--owner", "octo")
    assert dirty.returncode == 2 and "uncommitted" in dirty.stderr


@pytest.mark.parametrize("version, tags, moving", [
    ("1.2.0", "v1.0.0,v1.1.4", "v1.2 v1"),
    ("1.1.5", "v1.0.0,v1.2.0,v1.1.4", "v1.1"),  # after 1.2.0: v1 stays on 1.2.0
    ("1.0.1", "v1.2.0,v1.1.0", "v1.0"),
    ("1.1.3", "v1.1.4", ""),  # an older patch: neither moves backwards
    ("2.0.0-rc.1", "v1.2.0", ""),  # a pre-release moves nothing
    ("1.3.0", "v1.3.0-rc.1,v1.2.0", "v1.3 v1"),  # pre-releases do not count as newer
    ("1.0.0", "", "v1.0 v1"),
])
def test_moving_tags_go_only_to_the_newest_release_of_their_line(tmp_path, version, tags, moving):
    repo = repo_copy(tmp_path)
    done = release(repo, "moving", version, "--tags", tags)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == moving.split()


def test_moving_tags_read_the_checkouts_release_tags(tmp_path):
    repo = repo_copy(tmp_path)
    for tag in ("v1.0.0", "v1.2.0", "v1.2"):  # vX.Y itself is not a release
        subprocess.run(["git", "tag", tag], cwd=repo, env=GIT_ENV, check=True)
    assert release(repo, "moving", "1.1.5").stdout.split() == ["v1.1"]
    assert release(repo, "moving", "1.2.1").stdout.split() == ["v1.2", "v1"]
    assert release(repo, "moving", "1.2").returncode == 2


def fake_engine(tmp_path: Path, manifest: str, code: int) -> Path:
    """An engine whose `manifest inspect` answers `manifest` with exit `code`; every call is logged."""
    engine = tmp_path / "engine"
    engine.write_text(f'#!/bin/sh\necho "$*" >> {tmp_path}/calls\n'
                      f'if [ "$1" = manifest ]; then echo "{manifest}" >&2; exit {code}; fi\nexit 0\n')
    engine.chmod(0o755)
    return engine


def publish(repo: Path, engine: Path, *args: str) -> subprocess.CompletedProcess:
    shutil.copy(ROOT / "scripts/publish-release.sh", repo / "scripts/publish-release.sh")
    return subprocess.run(["bash", str(repo / "scripts/publish-release.sh"), *args], cwd=repo, capture_output=True,
                          text=True, env={**GIT_ENV, "PATH": "/usr/bin:/bin", "ENGINE": str(engine)}, timeout=60)


def test_an_existing_release_image_is_never_overwritten_not_even_in_a_dry_run(tmp_path):
    repo = repo_copy(tmp_path)
    engine = fake_engine(tmp_path, "{}", 0)
    for flags in ((), ("--release",)):
        done = publish(repo, engine, "0.9.0", "octo-org", *flags)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "exists already: a release is never overwritten" in done.stderr
    assert not [c for c in (tmp_path / "calls").read_text().splitlines() if c.startswith("build")]


def test_the_preflight_names_the_tags_to_push(tmp_path):
    repo = repo_copy(tmp_path)
    subprocess.run(["git", "tag", "v1.2.0"], cwd=repo, env=GIT_ENV, check=True)
    engine = fake_engine(tmp_path, "manifest unknown", 1)
    output = tmp_path / "github_output"
    shutil.copy(ROOT / "scripts/publish-release.sh", repo / "scripts/publish-release.sh")
    done = subprocess.run(["bash", "scripts/publish-release.sh", "1.1.5", "Octo-Org", "--preflight"], cwd=repo,
                          capture_output=True, text=True, timeout=60,
                          env={**GIT_ENV, "PATH": "/usr/bin:/bin", "ENGINE": str(engine), "GITHUB_OUTPUT": str(output)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert output.read_text() == ("tags=ghcr.io/octo-org/dspec2test-action:v1.1.5,"
                                  "ghcr.io/octo-org/dspec2test-action:v1.1\n")
    assert "dry run: the release commit" in done.stdout  # not a release commit: a dry run says what would change
    real = publish(repo, engine, "1.1.5", "octo-org", "--preflight", "--release")
    assert real.returncode == 1 and "not a release commit" in real.stderr
    assert release(repo, "prepare", "1.1.5", "--owner", "octo-org").returncode == 0  # now it is one
    assert publish(repo, engine, "1.1.5", "octo-org", "--preflight", "--release").returncode == 0
    unreachable = fake_engine(tmp_path, "dial tcp: lookup ghcr.io: no such host", 1)
    blind = publish(repo, unreachable, "1.1.5", "octo-org", "--preflight", "--release")
    assert blind.returncode == 1 and "cannot tell whether" in blind.stderr  # so nothing is pushed
    assert publish(repo, unreachable, "1.1.5", "octo-org", "--preflight").returncode == 0  # a dry run goes on

#!/usr/bin/env python3
"""Releases of the action: the commit whose action.yml names its own image, and the checks on it.

    python3 scripts/release.py prepare X.Y.Z [--owner OWNER] [--dry-run]
    python3 scripts/release.py check X.Y.Z --owner OWNER
    python3 scripts/release.py notes X.Y.Z
    python3 scripts/release.py moving X.Y.Z [--tags vA.B.C,...]

`prepare` (a maintainer, on an up-to-date main with a clean tree) writes the release commit and its
tag: action.yml's `image:` becomes `docker://ghcr.io/OWNER/dspec2test-action:vX.Y.Z`, CHANGELOG.md's
`## Unreleased` section becomes `## vX.Y.Z - DATE` under a new empty one, pyproject.toml and
`dspec2test.__version__` become X.Y.Z; then it commits "Release vX.Y.Z" and tags that commit vX.Y.Z
(annotated, with the section as message). Pushing the tag (`git push origin main vX.Y.Z`) starts
.github/workflows/release.yml, which builds and pushes that image: so the tagged commit's action.yml
names its own image, and a workflow never has to move a tag a person pushed. OWNER defaults to the
owner in the `origin` remote's URL; it is lowercased (container registries want lowercase names).
`--dry-run` prints the diff and changes nothing.

`check` (the release workflow, before it builds) fails unless the checkout's action.yml names exactly
that version's image under that owner, the versions agree, and CHANGELOG.md has the section.
`notes` prints the section (the GitHub release's text).
`moving` prints the moving tags (`vX.Y`, `vX`) that release X.Y.Z may take: each only when X.Y.Z is the
newest stable release of its line, so a 1.1.5 released after 1.2.0 moves v1.1 but leaves v1 on 1.2.0,
and a pre-release moves none. The releases are the checkout's `vX.Y.Z` git tags (or `--tags`).
"""

from __future__ import annotations

import argparse
import datetime
import difflib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "dspec2test-action"
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$")
IMAGE_LINE = re.compile(r"^(  image: ).*$", re.MULTILINE)
SECTION = re.compile(r"^## (\S+)[^\n]*\n(.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)


class ReleaseError(Exception):
    pass


def image(owner: str, version: str) -> str:
    return f"docker://ghcr.io/{owner.lower()}/{NAME}:v{version}"


def owner_from_remote(root: Path) -> str:
    url = subprocess.run(["git", "remote", "get-url", "origin"], cwd=root, capture_output=True, text=True).stdout
    match = re.search(r"github\.com[:/]([^/]+)/", url)
    if not match:
        raise ReleaseError("no GitHub `origin` remote to take the owner from: pass --owner")
    return match.group(1)


def sections(changelog: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip() for m in SECTION.finditer(changelog)}


def released(changelog: str) -> list[str]:
    """Versions with a section, newest first (the order of the file)."""
    return [name[1:] for name in sections(changelog) if name.startswith("v")]


def version_key(version: str) -> tuple[int, int, int] | None:
    """(X, Y, Z) of a stable version X.Y.Z; None for a pre-release or anything else."""
    match = SEMVER.match(version)
    if not match or match.group(4):
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def moving_tags(version: str, releases: list[str]) -> list[str]:
    """The moving tags release `version` takes, given the other releases (versions, `v` or not)."""
    key = version_key(version)
    if key is None:
        if not SEMVER.match(version):
            raise ReleaseError(f"{version}: not a version X.Y.Z")
        return []
    others = [k for k in (version_key(r.removeprefix("v")) for r in releases) if k is not None]
    tags = []
    if all(k <= key for k in others if k[:2] == key[:2]):
        tags.append(f"v{key[0]}.{key[1]}")
    if all(k <= key for k in others if k[0] == key[0]):
        tags.append(f"v{key[0]}")
    return tags


def git_releases(root: Path) -> list[str]:
    return git(root, "tag", "--list", "v*.*.*").split()


def edits(root: Path, version: str, owner: str, today: datetime.date) -> dict[Path, str]:
    """The new text of each file the release commit changes."""
    if not SEMVER.match(version):
        raise ReleaseError(f"{version}: not a version X.Y.Z")
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    if version in released(changelog):
        raise ReleaseError(f"CHANGELOG.md already has v{version}")
    if not sections(changelog).get("Unreleased"):
        raise ReleaseError("CHANGELOG.md: the `## Unreleased` section is missing or empty: say what this release changes")
    action = (root / "action.yml").read_text(encoding="utf-8")
    if not IMAGE_LINE.search(action):
        raise ReleaseError("action.yml has no `  image:` line under `runs:`")
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    init = (root / "src/dspec2test/__init__.py").read_text(encoding="utf-8")
    return {
        root / "action.yml": IMAGE_LINE.sub(lambda m: m.group(1) + image(owner, version), action, count=1),
        root / "CHANGELOG.md": changelog.replace("## Unreleased\n", f"## Unreleased\n\n## v{version} - {today.isoformat()}\n", 1),
        root / "pyproject.toml": re.sub(r'^version = ".*"$', f'version = "{version}"', pyproject, count=1, flags=re.MULTILINE),
        root / "src/dspec2test/__init__.py": re.sub(r'^__version__ = ".*"$', f'__version__ = "{version}"', init,
                                                    count=1, flags=re.MULTILINE),
    }


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def prepare(root: Path, version: str, owner: str, dry_run: bool, out) -> None:
    new = edits(root, version, owner, datetime.date.today())
    for path, text in new.items():
        old = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(root))
        out.write("".join(difflib.unified_diff(old.splitlines(True), text.splitlines(True), f"a/{rel}", f"b/{rel}")))
    if dry_run:
        out.write(f"dry run: would commit \"Release v{version}\" and tag it v{version}\n")
        return
    if git(root, "status", "--porcelain", "--untracked-files=no").strip():
        raise ReleaseError("the work tree has uncommitted changes")
    if git(root, "tag", "--list", f"v{version}").strip():
        raise ReleaseError(f"the tag v{version} exists already")
    for path, text in new.items():
        path.write_text(text, encoding="utf-8")
    git(root, "commit", "-q", "-m", f"Release v{version}", "--", *(str(p.relative_to(root)) for p in new))
    notes_text = sections(new[root / "CHANGELOG.md"])[f"v{version}"]
    git(root, "tag", "-a", f"v{version}", "-m", f"v{version}\n\n{notes_text}")
    out.write(f"committed and tagged v{version}; publish it with: git push origin HEAD v{version}\n")


def check(root: Path, version: str, owner: str) -> list[str]:
    """What keeps this checkout from being release vX.Y.Z (empty: nothing)."""
    problems = []
    action = (root / "action.yml").read_text(encoding="utf-8")
    found = IMAGE_LINE.search(action)
    want = image(owner, version)
    if not found or found.group(0).strip() != f"image: {want}":
        problems.append(f"action.yml names `{found.group(0).strip() if found else 'no image'}`, not `image: {want}` "
                        f"(scripts/release.py prepare {version} writes it)")
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    if f'\nversion = "{version}"\n' not in pyproject:
        problems.append(f"pyproject.toml's version is not {version}")
    init = (root / "src/dspec2test/__init__.py").read_text(encoding="utf-8")
    if f'__version__ = "{version}"' not in init:
        problems.append(f"dspec2test.__version__ is not {version}")
    if version not in released((root / "CHANGELOG.md").read_text(encoding="utf-8")):
        problems.append(f"CHANGELOG.md has no `## v{version}` section")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="release.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="write the release commit and tag")
    p.add_argument("version")
    p.add_argument("--owner")
    p.add_argument("--dry-run", action="store_true")
    c = sub.add_parser("check", help="is this checkout release vX.Y.Z of OWNER's image?")
    c.add_argument("version")
    c.add_argument("--owner", required=True)
    n = sub.add_parser("notes", help="the CHANGELOG section of a version")
    n.add_argument("version")
    m = sub.add_parser("moving", help="the moving tags (vX.Y, vX) that release X.Y.Z takes")
    m.add_argument("version")
    m.add_argument("--tags", help="the releases, comma-separated (default: the checkout's vX.Y.Z git tags)")
    args = parser.parse_args(argv)
    try:
        if args.command == "prepare":
            prepare(ROOT, args.version, args.owner or owner_from_remote(ROOT), args.dry_run, sys.stdout)
        elif args.command == "check":
            problems = check(ROOT, args.version, args.owner)
            for problem in problems:
                sys.stderr.write(f"release.py: {problem}\n")
            return 1 if problems else 0
        elif args.command == "moving":
            releases = args.tags.split(",") if args.tags is not None else git_releases(ROOT)
            sys.stdout.write(" ".join(moving_tags(args.version, releases)) + "\n")
        else:
            text = sections((ROOT / "CHANGELOG.md").read_text(encoding="utf-8")).get(f"v{args.version}")
            if text is None:
                raise ReleaseError(f"CHANGELOG.md has no `## v{args.version}` section")
            sys.stdout.write(text + "\n")
    except ReleaseError as exc:
        sys.stderr.write(f"release.py: {exc}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

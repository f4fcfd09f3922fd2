"""scripts/fetch-z3.sh takes Z3 4.12.1 out of Z3's release zip (here a zip built like one: the real
download needs GitHub) into vendor/z3/, checks the zip against its pinned SHA-256 and the binary's
version before anything lands there, and is idempotent."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEM = "z3-4.12.1-x64-glibc-2.35"


def z3_zip(path: Path, version: str = "4.12.1", member: str = f"{STEM}/bin/z3") -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(member, f"#!/bin/sh\necho 'Z3 version {version} - 64 bit'\n")
        z.writestr(f"{STEM}/bin/libz3.so", "")
        z.writestr(f"{STEM}/LICENSE.txt", "Z3's licence\n")
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(tmp_path: Path, *args: str, pin: str | None = None, pinned: str | None = None) -> subprocess.CompletedProcess:
    """The script run from a copy of the project; `pin`: the explicit Z3_ZIP_SHA256, `pinned`: the
    checksum written in the script instead of the real one."""
    script = tmp_path / "project" / "scripts" / "fetch-z3.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "scripts" / "fetch-z3.sh").read_text()
    if pinned is not None:
        text = re.sub(r'^PINNED_SHA256=".*"$', f'PINNED_SHA256="{pinned}"', text, flags=re.MULTILINE)
    script.write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "Z3_ZIP_SHA256"}
    if pin is not None:
        env["Z3_ZIP_SHA256"] = pin
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, timeout=60, env=env)


def vendored(tmp_path: Path) -> Path:
    return tmp_path / "project" / "vendor" / "z3" / "z3-4.12.1"


def test_the_official_zips_checksum_is_pinned():
    text = (ROOT / "scripts" / "fetch-z3.sh").read_text()
    assert re.search(r'^PINNED_SHA256="[0-9a-f]{64}"$', text, re.MULTILINE)
    assert f'ZIP_STEM="z3-$Z3_VERSION-x64-glibc-2.35"' in text


def test_takes_z3_and_its_licence_from_the_zip_once(tmp_path):
    archive = z3_zip(tmp_path / f"{STEM}.zip")
    done = fetch(tmp_path, str(archive), pin=sha256(archive))
    assert done.returncode == 0, done.stderr
    z3 = vendored(tmp_path)
    assert subprocess.run([str(z3), "--version"], capture_output=True, text=True).stdout.startswith("Z3 version 4.12.1")
    assert (z3.parent / "LICENSE.txt").read_text() == "Z3's licence\n"
    assert f"sha256 {sha256(archive)}" in done.stdout
    again = fetch(tmp_path)  # no zip, no download: it is there
    assert again.returncode == 0 and "is there" in again.stdout


def test_a_zip_that_is_not_the_pinned_one_is_refused_before_anything_is_taken(tmp_path):
    archive = z3_zip(tmp_path / f"{STEM}.zip")  # a real-looking zip, but not Z3's bytes
    done = fetch(tmp_path, str(archive))
    assert done.returncode == 1 and "checksum mismatch" in done.stderr
    assert not vendored(tmp_path).exists()
    refused = fetch(tmp_path, str(archive), pin="not-a-sha")
    assert refused.returncode == 1 and "refusing an unchecked Z3" in refused.stderr
    unpinned = fetch(tmp_path, str(archive), pinned="")  # a pin emptied by mistake: refused, not skipped
    assert unpinned.returncode == 1 and "refusing an unchecked Z3" in unpinned.stderr
    assert not vendored(tmp_path).exists()


def test_refuses_a_zip_without_it_or_with_another_version(tmp_path):
    old = z3_zip(tmp_path / "old.zip", version="4.8.5")
    other = fetch(tmp_path, str(old), pin=sha256(old))
    assert other.returncode == 1 and "does not report Z3 4.12.1" in other.stderr
    assert not vendored(tmp_path).exists()  # nothing wrong left behind
    none = z3_zip(tmp_path / "none.zip", member="z3-4.8.5-x64-glibc-2.31/bin/z3")
    missing = fetch(tmp_path, str(none), pin=sha256(none))
    assert missing.returncode != 0 and f"{STEM}/bin/z3 is not in" in missing.stderr

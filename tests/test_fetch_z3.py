"""scripts/fetch-z3.sh takes Z3 4.12.1 out of a Dafny release zip (here a zip built like one: the real
download needs GitHub) into vendor/z3/, checks what it took, and is idempotent."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def dafny_zip(path: Path, version: str = "4.12.1", member: str = "dafny/z3/bin/z3-4.12.1") -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("dafny/dafny", "#!/bin/sh\n")
        z.writestr(member, f"#!/bin/sh\necho 'Z3 version {version} - 64 bit'\n")
        z.writestr("dafny/z3/LICENSE.txt", "Z3's licence\n")
    return path


def fetch(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    script = tmp_path / "project" / "scripts" / "fetch-z3.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "scripts" / "fetch-z3.sh", script)
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, timeout=60)


def test_takes_z3_and_its_licence_from_the_zip_once(tmp_path):
    done = fetch(tmp_path, str(dafny_zip(tmp_path / "dafny.zip")))
    assert done.returncode == 0, done.stderr
    z3 = tmp_path / "project" / "vendor" / "z3" / "z3-4.12.1"
    assert subprocess.run([str(z3), "--version"], capture_output=True, text=True).stdout.startswith("Z3 version 4.12.1")
    assert (z3.parent / "LICENSE.txt").read_text() == "Z3's licence\n"
    assert "sha256 " in done.stdout
    again = fetch(tmp_path)  # no zip, no download: it is there
    assert again.returncode == 0 and "is there" in again.stdout


def test_refuses_a_zip_without_it_or_with_another_version(tmp_path):
    other = fetch(tmp_path, str(dafny_zip(tmp_path / "old.zip", version="4.8.5")))
    assert other.returncode == 1 and "does not report Z3 4.12.1" in other.stderr
    assert not (tmp_path / "project" / "vendor" / "z3" / "z3-4.12.1").exists()  # nothing wrong left behind
    missing = fetch(tmp_path, str(dafny_zip(tmp_path / "none.zip", member="dafny/z3/bin/z3-4.8.5")))
    assert missing.returncode != 0 and "dafny/z3/bin/z3-4.8.5" in missing.stderr

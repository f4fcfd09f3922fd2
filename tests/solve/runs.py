"""Running a fixture end to end with the real dafny, as a user would (`dspec2test run --json`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run_tests(fixture: Path, tmp_path: Path, *flags: str) -> list[dict]:
    """The tests of `dspec2test run` on the fixture, as its JSON report lists them."""
    report = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "dspec2test", "run", str(fixture), *flags, "--json", str(report)],
                   capture_output=True, text=True, timeout=600)
    return json.loads(report.read_text())["tests"]

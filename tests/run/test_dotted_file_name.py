"""A program file with a dot in its name (`Views.Writers.dfy`, as dafny-lang/libraries has many): Dafny
reads the dot of `translate -o build/Views.Writers` as an extension and writes `build/Views-py/`, so the
py runner looked for the translated program in the wrong folder and every test was not-tested ("build
failed: Dafny program verifier did not attempt verification")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.dafny

PROGRAM = """\
method Twice(x: int) returns (r: int)
  ensures r == 2 * x
{
  r := x + x;
}
"""


def test_a_program_whose_file_name_has_a_dot_runs(tmp_path):
    program = tmp_path / "Views.Writers.dfy"
    program.write_text(PROGRAM)
    report = tmp_path / "run.json"
    proc = subprocess.run([sys.executable, "-m", "dspec2test", "run", str(program), "--json", str(report)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {t["status"] for t in json.loads(report.read_text())["tests"]} == {"passed"}

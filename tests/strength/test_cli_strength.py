"""`dspec2test strength` as a command: usage errors, bad files, JSON and the exit code of --fail-on weak."""

import io
import json
from pathlib import Path

import pytest

from dspec2test.cli import main

FIXTURES = Path(__file__).parent / "fixtures"


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(["strength", *argv], out, err), out.getvalue(), err.getvalue()


def test_bad_usage_and_bad_files(tmp_path: Path) -> None:
    assert run([str(FIXTURES / "weak.dfy"), "--budget", "0"])[0] == 2
    assert run([str(tmp_path / "missing.dfy")])[0] == 2
    broken = tmp_path / "broken.dfy"
    broken.write_text("method M( {")
    code, _, err = run([str(broken)])
    assert code == 2 and "broken.dfy:1:11: unsupported: unreadable declaration: dspec2test cannot read method M" in err
    code, _, err = run([str(FIXTURES / "weak.dfy"), "--members", "Nope"])
    assert code == 2 and "no member named Nope" in err  # a name that matches nothing is bad input


@pytest.mark.dafny
def test_json_and_fail_on_weak(tmp_path: Path) -> None:
    code, out, _ = run([str(FIXTURES / "weak.dfy"), "--members", "Max", "--fail-on", "weak",
                        "--json", str(tmp_path / "s.json")])
    assert code == 1 and "Max: weak contract" in out
    doc = json.loads((tmp_path / "s.json").read_text())
    (member,) = doc["members"]
    assert member["name"] == "Max" and member["status"] == "measured" and member["findings"]
    assert doc["totals"]["weak"] == 1 and set(member["seconds"]) >= {"verify", "total"}

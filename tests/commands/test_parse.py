"""`dspec2test parse`: JSON report per DESIGN.md section 5, text listing, exit 2 on bad files."""

from __future__ import annotations

import io
import json
from pathlib import Path

from dspec2test.cli import main

FIXTURES = Path(__file__).parents[1] / "dafny" / "fixtures"
SMALL = str(FIXTURES / "small.dfy")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["parse", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_report_of_a_small_program() -> None:
    code, out, err = run(SMALL, "--json")
    assert code == 0 and err == ""
    (entry,) = json.loads(out)["files"]
    assert entry["path"] == SMALL and entry["ok"] is True and entry["error"] is None
    grow, abs_ = entry["methods"]
    assert grow == {
        "name": "Geo.Box.Grow",
        "kind": "method",
        "line": 5,
        "end_line": 10,
        "attributes": ["testEntry"],
        "requires": [{"line": 6, "text": "d < 10"}],
        "ensures": [{"line": 7, "text": "r == w + d"}],
    }
    assert abs_["name"] == "Abs" and abs_["kind"] == "function"
    assert (abs_["line"], abs_["end_line"]) == (14, 18)
    assert abs_["ensures"] == [{"line": 15, "text": "Abs(x) >= 0"}]


def test_bad_files_exit_2_and_the_others_are_still_reported(tmp_path: Path) -> None:
    binary = tmp_path / "bin.dfy"
    binary.write_bytes(b"\x00\xff\xfe\x00")
    truncated = str(FIXTURES / "truncated.dfy")
    unknown = str(FIXTURES / "unknown.dfy")
    missing = str(tmp_path / "missing.dfy")
    code, out, err = run(truncated, SMALL, str(binary), unknown, missing, "--json")
    assert code == 2
    files = json.loads(out)["files"]
    assert [f["ok"] for f in files] == [False, True, False, False, False]
    assert files[1]["methods"]  # the good file is parsed in spite of its neighbours
    assert files[0]["error"] == {"line": 2, "col": 15, "message": "unexpected end of file"}
    # the truncated file's one declaration is skipped, and named
    assert files[0]["unreadable"] == [{"name": "M", "kind": "method", "line": 1, "end_line": 2,
                                       "error": {"line": 2, "col": 15, "message": "unexpected end of file"}}]
    assert files[2]["unreadable"] == [] and files[2]["error"]["line"] == 1  # binary: no declaration to skip
    assert [u["name"] for u in files[3]["unreadable"]] == ["M"] and files[3]["error"]["line"] == 3
    lines = err.splitlines()
    assert len(lines) == 4
    assert lines[0] == f"{truncated}:2:15: error: unexpected end of file (skipped: method M, lines 1-2)"
    assert lines[1].startswith(f"{binary}:1:")
    assert lines[2].startswith(f"{unknown}:3:14: error: unexpected 'x'")
    assert lines[3] == f"{missing}:1:1: error: no such file"
    assert "Traceback" not in err


def test_text_listing() -> None:
    code, out, _ = run(SMALL)
    assert code == 0
    assert "method Geo.Box.Grow {:testEntry}  (lines 5-10)" in out
    assert "requires line 6: d < 10" in out

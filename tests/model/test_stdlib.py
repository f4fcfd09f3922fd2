"""Dafny's standard library for projects built with `standard-libraries = true` (model/stdlib.py): the
library's text is split into its top-level modules (dafny/parser.py), and only the modules a program
imports, with those they import, are parsed, each alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dspec2test.dafny.parser import module_chunks
from dspec2test.model.stdlib import StandardLibrary

LIBRARY = """// the_program
module {:options "-functionSyntax:4"} Std.A {
  const Brace := "}{"  // a brace in a string, and one here: }
  /* and in a comment: { */
  function F(x': int): int { x' }
}

abstract module Std.B { import Std.A  type T }
module Std.C.D { import opened Std.A  method M() { hide *; } }
module Std.Broken { function ( }
"""


def test_a_library_is_split_into_its_top_level_modules_whatever_its_strings_and_comments_hold():
    chunks = module_chunks(LIBRARY)
    assert [(name, line) for name, line, _ in chunks] == [("Std.A", 1), ("Std.B", 6), ("Std.C.D", 8),
                                                           ("Std.Broken", 9)]
    assert "".join(text for _, _, text in chunks) == LIBRARY.rstrip("\n")


def test_only_the_imported_modules_and_what_they_import_are_read_and_a_broken_one_is_a_warning():
    library = StandardLibrary({name: (line, text) for name, line, text in module_chunks(LIBRARY)})
    decls, notes = library.modules({"Std.C.D"})
    assert sorted(d.name for d in decls) == ["Std.A", "Std.C.D"]
    assert notes == ()
    decls, notes = library.modules({"Std.Broken", "Other.Module"})
    assert decls == () and len(notes) == 1 and "Std.Broken is not read" in notes[0].message


@pytest.mark.dafny
def test_a_project_built_with_the_standard_library_is_tested_through_its_names(tmp_path):
    project = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "stdlib"
    report = tmp_path / "run.json"
    proc = subprocess.run([sys.executable, "-m", "dspec2test", "run", "src/wrapped.dfy", "--json", str(report)],
                          cwd=project, capture_output=True, text=True, timeout=900)
    assert "unknown type" not in proc.stdout + proc.stderr, proc.stdout
    tests = json.loads(report.read_text())["tests"]
    assert tests and {t["status"] for t in tests} == {"passed"}
    assert {t["method"] for t in tests} == {"A.Half", "A.Safe"}

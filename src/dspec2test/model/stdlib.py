"""Dafny's standard library (`standard-libraries = true`): the `Std.*` modules a program imports, read
from the library Dafny itself ships (`DafnyStandardLibraries.doo`, a zip holding the library's text), so
that names such as `Std.Wrappers.Option` resolve for generation as they do for Dafny.

Only the modules the program imports are parsed, with the modules they import in turn, each on its own: a
module in syntax we do not read is left out with a warning, and the others still resolve. The library's
declarations are never members under test (they are in no file of the repository).
"""

from __future__ import annotations

import functools
import zipfile
from dataclasses import dataclass
from pathlib import Path

from dspec2test.dafny import ast
from dspec2test.dafny.parser import ParseError, module_chunks, parse_program
from dspec2test.errors import Diagnostic, Severity

LIBRARY = "DafnyStandardLibraries.doo"
SHOWN = "(Dafny standard library)"  # how its declarations name their file


@dataclass(frozen=True, eq=False)  # one per Dafny installation, cached by identity
class StandardLibrary:
    chunks: dict[str, tuple[int, str]]  # top-level module name -> (first line, text)

    def modules(self, wanted: set[str]) -> tuple[tuple[ast.Decl, ...], tuple[Diagnostic, ...]]:
        """The declarations of the modules named in `wanted` (or holding a named one), and of every library
        module those import, each parsed alone; a warning per module that does not parse."""
        decls: list[ast.Decl] = []
        notes: list[Diagnostic] = []
        todo = sorted(self._holding(wanted))
        done: set[str] = set()
        while todo:
            name = todo.pop(0)
            if name in done:
                continue
            done.add(name)
            got = _parsed(self, name)
            if isinstance(got, Diagnostic):
                notes.append(got)
                continue
            decls += got
            todo += sorted(self._holding({imp.target for imp in _imports(got)}) - done)
        return tuple(decls), tuple(notes)

    def _holding(self, names: set[str]) -> set[str]:
        """Library modules a name denotes: the module itself, the modules inside it, or the one holding it."""
        out: set[str] = set()
        for name in names:
            if name != "Std" and not name.startswith("Std."):
                continue
            out |= {m for m in self.chunks if m == name or m.startswith(name + ".") or name.startswith(m + ".")}
        return out


@functools.lru_cache(maxsize=64)  # one parse of a library module per process
def _parsed(library: StandardLibrary, name: str) -> tuple[ast.Decl, ...] | Diagnostic:
    line, text = library.chunks[name]
    try:
        program = parse_program("\n" * (line - 1) + text, SHOWN)
    except ParseError as err:
        return Diagnostic(SHOWN, err.line, err.col, f"standard library module {name} is not read ({err.message}): "
                          f"names declared in it are unknown to the tests' generation", Severity.WARNING)
    return program.decls


def _imports(decls: tuple[ast.Decl, ...]) -> list[ast.Import]:
    out: list[ast.Import] = []
    for d in decls:
        if isinstance(d, ast.Import):
            out.append(d)
        elif isinstance(d, ast.Module):
            out += _imports(d.decls)
    return out


@functools.lru_cache(maxsize=4)
def standard_library(dafny: str | None) -> StandardLibrary | None:
    """The standard library shipped with the `dafny` at that path (None: not found or not readable)."""
    if dafny is None:
        return None
    found = next(Path(dafny).resolve().parent.rglob(LIBRARY), None)
    if found is None:
        return None
    try:
        with zipfile.ZipFile(found) as archive:
            text = archive.read("program").decode("utf-8")
    except (OSError, KeyError, zipfile.BadZipFile, UnicodeDecodeError):
        return None
    return StandardLibrary({name: (line, chunk) for name, line, chunk in module_chunks(text)})

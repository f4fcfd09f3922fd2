"""A program as Dafny sees it: a file and the transitive closure of its `include`s, or the files of the
project (`dfyconfig.toml`) that holds it, each parsed once and read as one set of declarations.

`load_program` gives the merged `ast.Program` (its `files` are the parsed files, the named one first)
and what a `dafny` call must be handed to build the same program beside a tests file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from dspec2test.dafny import ast
from dspec2test.dafny.parser import parse_file
from dspec2test.errors import Diagnostic, Severity
from dspec2test.model.project import Project, find_project, read_project
from dspec2test.model.refine import Copies, flatten, stamped
from dspec2test.model.stdlib import SHOWN, standard_library
from dspec2test.toolchain import find_toolchain


@dataclass(frozen=True)
class LoadedProgram:
    """One program: the merged AST, how to build it, and what reading it had to say."""

    root: str  # the file as the user named it
    program: ast.Program  # every file's declarations; `program.files` holds the files one by one
    inputs: tuple[str, ...]  # absolute paths `dafny` gets besides the tests: the root file or the project file
    project: Project | None = None
    diagnostics: tuple[Diagnostic, ...] = ()  # missing includes (errors), unreadable files, project warnings
    locations: tuple[str, ...] = ()  # the absolute path of each of `program.sources`, in their order

    @property
    def paths(self) -> tuple[str, ...]:
        """Every file of the program, as reported (the root first)."""
        return tuple(f.path for f in self.program.sources)


@dataclass
class Sources:
    """Parsed files of one run, by absolute path: a file shared by several programs is parsed once."""

    parsed: dict[tuple[Path, int], ast.Program | Diagnostic] = field(default_factory=dict)
    base: Path | None = None  # relative paths are read from here and files are named relative to it
    copies: Copies = field(default_factory=dict)  # inherited declarations as copied into refining modules

    def absolute(self, path: str | Path) -> Path:
        p = Path(path)
        return (p if p.is_absolute() or self.base is None else self.base / p).resolve()

    def shown(self, path: Path, like: str) -> str:
        """How to name a file in reports: relative to the base (or the current folder) when the program's
        root file was named that way."""
        if os.path.isabs(like):
            return str(path)
        try:
            return os.path.relpath(path, self.base or Path.cwd())
        except ValueError:
            return str(path)

    def parse(self, path: Path, shown: str, function_syntax: int = 4) -> ast.Program | Diagnostic:
        key = (self.absolute(path), function_syntax)
        if key not in self.parsed:
            got = parse_file(str(key[0]))
            # reported under the name the user knows the file by; each declaration knows its file
            self.parsed[key] = (Diagnostic(shown, got.line, got.col, got.message, got.severity, got.construct)
                                if isinstance(got, Diagnostic) else
                                ast.Program(shown, got.includes, stamped(got.decls, shown, function_syntax), text=got.text,
                                            span=got.span))
        return self.parsed[key]


def load_program(path: str, sources: Sources | None = None, top: Path | None = None,
                 use_project: bool = True) -> LoadedProgram | Diagnostic:
    """The program `path` belongs to. A located Diagnostic when the file itself cannot be read or parsed;
    problems in other files of the program are diagnostics of the result, and the rest is still read.

    `top` bounds the search for a project file (the repository root); `use_project` False reads only
    the include closure.
    """
    sources = sources or Sources()
    root = sources.absolute(path)
    diagnostics: list[Diagnostic] = []
    found = _read_project(root, top, diagnostics) if use_project else None
    # a file the project leaves out is a program of its own (with its includes), as Dafny reads it alone
    project = found if found is not None and found.holds(root) else None
    syntax = project.function_syntax if project is not None else 4
    first = sources.parse(root, path, syntax)
    if isinstance(first, Diagnostic):
        return first
    start = [root]
    if project is not None:
        start += [p for p in project.files() if p != root]
        diagnostics += project.warnings()
    own: list[Diagnostic] = []
    files = _closure(start, path, sources, own, syntax)
    beside = found if found is not None and project is None and _imports_outside(files) else None
    if beside is not None:  # the file imports the project's modules: Dafny gets both, as `file dfyconfig.toml`
        project = beside
        files = _closure(start + [p for p in beside.files() if p != root], path, sources, diagnostics,
                         beside.function_syntax)
    else:
        diagnostics += own
    library = _standard_library(files, project, diagnostics)
    decls = flatten(tuple(d for f in files for d in f.decls) + library, sources.copies)
    program = ast.Program(first.path, first.includes, decls, text=first.text, span=first.span,
                          files=tuple(files) if len(files) > 1 else ())
    if project is not None and beside is None:
        inputs: tuple[str, ...] = (str(project.path),)
    elif beside is not None:
        inputs = (str(root), str(beside.path))
    else:
        inputs = (str(root),)
    return LoadedProgram(path, program, inputs, project, tuple(diagnostics),
                         tuple(str(sources.absolute(f.path)) for f in files))


def _standard_library(files: list[ast.Program], project: Project | None,
                      diagnostics: list[Diagnostic]) -> tuple[ast.Decl, ...]:
    """The standard library's modules the files import, when the project builds with it."""
    if project is None or project.option("standard-libraries") not in (True, "true"):
        return ()
    library = standard_library(find_toolchain().dafny)
    if library is None:
        diagnostics.append(Diagnostic(str(project.path), 1, 1, "project option standard-libraries: Dafny's "
                                      "standard library was not found beside dafny: names of Std modules are "
                                      "unknown to the tests' generation", Severity.WARNING))
        return ()
    decls, notes = library.modules({imp.target for f in files for imp in _imports(f.decls)})
    diagnostics += notes
    return stamped(decls, SHOWN, 4)


def _imports_outside(files: list[ast.Program]) -> bool:
    """Whether the files import a module they do not declare: a file a project leaves out that does is
    meant to be built with the project (its tests, run as `dafny test tests/T.dfy dfyconfig.toml`)."""
    declared = {d.name.split(".")[0] for f in files for d in f.decls if isinstance(d, ast.Module)}
    return bool({d.target.split(".")[0] for f in files for d in _imports(f.decls)} - declared)


def _imports(decls: tuple[ast.Decl, ...]) -> list[ast.Import]:
    out: list[ast.Import] = []
    for d in decls:
        if isinstance(d, ast.Import):
            out.append(d)
        elif isinstance(d, ast.Module):
            out += _imports(d.decls)
    return out


def _read_project(root: Path, top: Path | None, diagnostics: list[Diagnostic]) -> Project | None:
    """The nearest project file's project, holding the file or not; an unreadable one is a diagnostic."""
    found = find_project(root, top)
    if found is None:
        return None
    project = read_project(found)
    if isinstance(project, Diagnostic):
        diagnostics.append(project)
        return None
    return project


def _closure(start: list[Path], like: str, sources: Sources, diagnostics: list[Diagnostic],
             function_syntax: int = 4) -> list[ast.Program]:
    """The files reachable from `start` by `include`, each once, in the order first reached (depth first,
    so a file comes before the files it includes). Dafny reads a file once however often it is included,
    so an include cycle is only a warning."""
    out: list[ast.Program] = []
    seen: set[Path] = set()
    on_path: list[Path] = []

    def visit(file: Path, shown: str, via: tuple[str, ast.Include] | None, root: bool = False) -> None:
        if file in seen:
            if file in on_path and via is not None:
                cycle = " -> ".join(_short(p) for p in on_path[on_path.index(file):]) + f" -> {_short(file)}"
                diagnostics.append(Diagnostic(via[0], via[1].span.line, via[1].span.col,
                                              f"include cycle {cycle} (Dafny reads each file once)", Severity.WARNING))
            return
        seen.add(file)
        parsed = sources.parse(file, shown, function_syntax)
        if isinstance(parsed, Diagnostic):
            if root:
                diagnostics.append(parsed)
            else:
                diagnostics.append(Diagnostic(parsed.file, parsed.line, parsed.col,
                                              f"{parsed.message} (its declarations are not known to the tests' "
                                              f"generation)", Severity.WARNING))
            return
        out.append(parsed)
        on_path.append(file)
        for inc in parsed.includes:
            target = (file.parent / inc.path).resolve()
            if not target.is_file():
                diagnostics.append(Diagnostic(parsed.path, inc.span.line, inc.span.col,
                                              f"included file {inc.path} not found"))
                continue
            visit(target, sources.shown(target, like), (parsed.path, inc))
        on_path.pop()

    for k, file in enumerate(start):
        visit(file, like if k == 0 else sources.shown(file, like), None, root=k == 0)
    return out


def _short(path: Path) -> str:
    return path.name

"""Dafny project files (`dfyconfig.toml`): which files a project holds and the options it compiles with.

As Dafny reads them: `includes` and `excludes` are globs relative to the file's folder (`**` for any
number of folders; no `includes` means every `.dfy` below it), `base` names project files whose options
and file lists this one extends, and `[options]` holds CLI options without their `--`. The tests are
built by handing `dafny` the project file itself beside the tests file, so Dafny applies the options;
what this module adds is knowing the files (to read their declarations) and which options change how
we must read or write Dafny.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass
from pathlib import Path

from dspec2test.errors import Diagnostic, Severity

PROJECT_FILE = "dfyconfig.toml"

# Options that change what a test may be written in, or how the program reads, and that we follow.
# Anything else is Dafny's business alone: the project file is passed to every `dafny` call as it is.
FOLLOWED = frozenset({"function-syntax", "unicode-char", "quantifier-syntax", "standard-libraries"})
# Options whose effect our reading of the program cannot follow: a located warning, then on.
NOT_FOLLOWED = {
    "library": "library files are read for their declarations only when they are .dfy sources",
    "type-system-refresh": "the refreshed type system's inference is not followed: a test may fail to build",
    "general-newtypes": "newtypes over non-numeric types are not followed: a test may fail to build",
}


@dataclass(frozen=True)
class Project:
    """One dfyconfig.toml, with the files and options of the projects it extends folded in."""

    path: Path  # absolute path of the project file
    includes: tuple[str, ...]  # globs, each relative to the folder of the project file that names it
    excludes: tuple[str, ...]
    options: tuple[tuple[str, object], ...]  # name (no dashes), value; later entries win
    lines: tuple[tuple[str, int], ...] = ()  # option name -> line in its project file (for warnings)

    @property
    def folder(self) -> Path:
        return self.path.parent

    def option(self, name: str, default: object = None) -> object:
        found = default
        for key, value in self.options:
            if key == name:
                found = value
        return found

    @property
    def function_syntax(self) -> int:
        value = str(self.option("function-syntax", "4"))
        return 3 if value.startswith("3") else 4

    def files(self) -> list[Path]:
        """The .dfy files the project holds, sorted, as absolute paths."""
        found: set[Path] = set()
        for pattern in self.includes:
            folder, rest = _anchor(self.folder, pattern)
            # a project may list another target's extern code (`../target/cs/src/Z3Interface.cs`): not Dafny
            found.update(p.resolve() for p in folder.glob(rest) if p.is_file() and p.suffix == ".dfy")
        return sorted(p for p in found if not self.excluded(p))

    def excluded(self, file: Path) -> bool:
        return any(_matches(file, self.folder, pattern) for pattern in self.excludes)

    def holds(self, file: Path) -> bool:
        """Whether `file` is one of the project's files."""
        file = file.resolve()
        return not self.excluded(file) and any(_matches(file, self.folder, p) for p in self.includes)

    def warnings(self) -> list[Diagnostic]:
        """A located warning per option we cannot follow."""
        lines = dict(self.lines)
        out = []
        for name, _ in self.options:
            if name in NOT_FOLLOWED:
                out.append(Diagnostic(str(self.path), lines.get(name, 1), 1,
                                      f"project option {name}: {NOT_FOLLOWED[name]}", Severity.WARNING))
        return out


def find_project(file: Path, top: Path | None = None) -> Path | None:
    """The nearest dfyconfig.toml in the file's folder or above it, not above `top` (the repository)."""
    folder = file.resolve().parent
    stop = top.resolve() if top is not None else None
    while True:
        candidate = folder / PROJECT_FILE
        if candidate.is_file():
            return candidate
        if folder == stop or folder.parent == folder:
            return None
        folder = folder.parent


def read_project(path: Path, seen: frozenset[Path] = frozenset()) -> Project | Diagnostic:
    """The project at `path` with its bases folded in; a located diagnostic when it cannot be read."""
    path = path.resolve()
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        return Diagnostic(str(path), 1, 1, f"cannot read project file: {exc.strerror or exc}")
    except tomllib.TOMLDecodeError as exc:
        line, col = _toml_position(str(exc))
        return Diagnostic(str(path), line, col, f"not a valid project file: {exc}")
    unknown = sorted(set(data) - {"includes", "excludes", "base", "options"})
    if unknown:
        return Diagnostic(str(path), _line_of(text, unknown[0]), 1,
                          f"project file has no property {unknown[0]} (known: includes, excludes, base, options)")
    includes, excludes, options = [], [], []
    for base in _strings(data.get("base", [])):
        base_path = (path.parent / base).resolve()
        if base_path in seen or base_path == path:
            return Diagnostic(str(path), _line_of(text, "base"), 1, f"project base cycle through {base}")
        parent = read_project(base_path, seen | {path})
        if isinstance(parent, Diagnostic):
            return parent
        includes += [str(_rebase(parent.folder, p, path.parent)) for p in parent.includes]
        excludes += [str(_rebase(parent.folder, p, path.parent)) for p in parent.excludes]
        options += list(parent.options)
    own = data.get("includes")
    includes += _strings(own) if own is not None else ([] if includes else ["**/*.dfy"])
    excludes += _strings(data.get("excludes", []))
    table = data.get("options", {})
    if not isinstance(table, dict):
        return Diagnostic(str(path), _line_of(text, "options"), 1, "project file: [options] must be a table")
    options += [(str(k), v) for k, v in table.items()]
    lines = tuple((str(k), _line_of(text, str(k))) for k in table)
    return Project(path, tuple(includes), tuple(excludes), tuple(options), lines)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def _rebase(base_folder: Path, pattern: str, folder: Path) -> str:
    """A base project's glob, relative to the extending project's folder."""
    absolute = (base_folder / pattern).as_posix()
    try:
        return Path(absolute).relative_to(folder).as_posix()
    except ValueError:
        return absolute


def _anchor(folder: Path, pattern: str) -> tuple[Path, str]:
    """The folder a glob starts from and the rest of it: `../lib/*.dfy` starts one folder up; an
    absolute glob starts at the root."""
    if pattern.startswith("/"):
        folder, pattern = Path("/"), pattern.lstrip("/")
    while True:
        if pattern.startswith("./"):
            pattern = pattern[2:]
        elif pattern.startswith("../"):
            folder, pattern = folder.parent, pattern[3:]
        else:
            return folder.resolve(), pattern


def _matches(file: Path, folder: Path, pattern: str) -> bool:
    """Glob match with `**` for any number of folders (zero included), `*` within one name."""
    anchor, rest = _anchor(folder, pattern)
    try:
        rel = file.relative_to(anchor).as_posix()
    except ValueError:
        return False
    return _match_parts(rel.split("/"), rest.split("/"))


def _match_parts(parts: list[str], pats: list[str]) -> bool:
    if not pats:
        return not parts
    if pats[0] == "**":
        return any(_match_parts(parts[i:], pats[1:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pats[0]) and _match_parts(parts[1:], pats[1:])


def _line_of(text: str, key: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip().lstrip("[").strip()
        if stripped.startswith(key) and stripped[len(key):].lstrip()[:1] in ("=", "]", ""):
            return number
    return 1


def _toml_position(message: str) -> tuple[int, int]:
    # tomllib ends its messages with "(at line L, column C)"
    tail = message.rsplit("(at line ", 1)
    if len(tail) == 2:
        try:
            line, col = tail[1].rstrip(")").split(", column ")
            return int(line), int(col)
        except ValueError:
            pass
    return 1, 1

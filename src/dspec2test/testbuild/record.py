"""What the test build is, as the rest of the pipeline reads it: the copied files, what was lifted and
what was kept ghost (with Dafny's reason), and how to lay the copy out in a folder."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from dspec2test.errors import Diagnostic


@dataclass(frozen=True)
class Kept:
    """A ghost declaration the test build leaves ghost, and why (Dafny's own words)."""

    name: str  # qualified
    file: str  # as the program names it
    line: int
    reason: str

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class BuildFile:
    """One file of the copy."""

    path: str  # relative to the copy's folder (the user's layout kept: `include`s and project globs still match)
    text: str
    source: str  # absolute path of the user's file it copies
    shown: str = ""  # the file as reports name it ("" for a project file)


@dataclass(frozen=True)
class PlacedBuild:
    """A test build written out: what dafny is handed, and how its messages name the user's files."""

    inputs: tuple[str, ...]  # absolute paths in the copy: its root file, or its project file
    sources: dict[str, str]  # absolute path of a user's file -> its copy
    names: dict[str, str]  # a copy's path (absolute, and relative to the folder) -> the file as reports name it


@dataclass(frozen=True)
class TestBuild:
    """The program as its tests are compiled against: a copy in which ghost state that Dafny can compile
    is compiled (`lifted`), so the tests can evaluate `Valid()`, `Contents`, `Fib(n)`. With nothing
    lifted (no ghost state, no dafny, or a copy that would not build) it is the program as written:
    `files` is empty and the tests build against the user's own files."""

    __test__ = False  # not a pytest class

    files: tuple[BuildFile, ...] = ()  # every file of the program (its project file too), as the copy has it
    inputs: tuple[str, ...] = ()  # paths among `files` that dafny is handed (the root file or the project file)
    lifted: frozenset[str] = frozenset()  # qualified names compiled in the test build
    kept: tuple[Kept, ...] = ()  # ghost declarations left ghost, with Dafny's reason
    # where each lifted `ghost` is written, (file as the program names it, offset): the same edits can be
    # made in another version of a file (a mutant) and in the AST the generation reads (view.py)
    sites: frozenset[tuple[str, int]] = frozenset()
    warning: Diagnostic | None = None  # why nothing could be lifted, where something could have been

    @property
    def as_written(self) -> bool:
        return not self.files

    @property
    def key(self) -> str:
        """A digest of the copy's files: a folder named by it holds this copy and no other."""
        digest = hashlib.sha256()
        for f in self.files:
            digest.update(f.path.encode() + b"\0" + f.text.encode() + b"\0")
        return digest.hexdigest()[:24]

    def place(self, folder: Path) -> PlacedBuild:
        """Write the copy under `folder` (made if needed)."""
        sources: dict[str, str] = {}
        names: dict[str, str] = {}
        for f in self.files:
            target = folder / f.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f.text, encoding="utf-8")
            sources[f.source] = str(target)
            if f.shown:
                names[str(target)] = names[f.path] = f.shown
        return PlacedBuild(tuple(str(folder / p) for p in self.inputs), sources, names)

    def reason(self, short: str) -> str | None:
        """Dafny's reason for keeping a declaration of this short name ghost (None: none was kept)."""
        return next((k.reason for k in self.kept if k.short == short), None)

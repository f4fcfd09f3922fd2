"""A benchmark corpus on disk: programs, their mutants, and the optional label folders.

    CORPUS/programs/<P>.dfy
    CORPUS/mutants/<P>/<mutant>.dfy          (optional)
    CORPUS/equivalent/**/<mutant>.dfy        (optional labels, matched by file name or by text)
    CORPUS/incompetent/**/<mutant>.dfy

A labelled file that is not among the mutants is added as a mutant of the program whose name prefixes
its file name (the paper's Set A keeps its equivalent and incompetent mutants only there).
"""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass
from enum import Enum
from pathlib import Path


class Label(str, Enum):
    EQUIVALENT = "equivalent"
    INCOMPETENT = "incompetent"


@dataclass(frozen=True)
class CorpusProgram:
    name: str  # file stem
    path: Path
    text: str


@dataclass(frozen=True)
class MutantFile:
    program: str  # name of its program
    name: str  # file stem
    path: Path
    text: str
    label: Label | None = None


@dataclass(frozen=True)
class Corpus:
    root: Path
    programs: tuple[CorpusProgram, ...]
    mutants: tuple[MutantFile, ...]

    def mutants_of(self, program: str) -> tuple[MutantFile, ...]:
        return tuple(m for m in self.mutants if m.program == program)


class CorpusError(Exception):
    pass


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def read_labels(path: Path) -> dict[str, Label]:
    """A labels file: one `<label> <program>/<mutant>` per line (`#` starts a comment, e.g. the reason),
    for labels kept apart from the corpus, such as one's own equivalence analysis."""
    out: dict[str, Label] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CorpusError(f"{path}: cannot read labels: {exc.strerror}") from None
    for n, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2 or words[0] not in {label.value for label in Label} or "/" not in words[1]:
            raise CorpusError(f"{path}:{n}: expected `equivalent|incompetent PROGRAM/MUTANT`, got {line.strip()!r}")
        out[words[1]] = Label(words[0])
    return out


def load_corpus(root: Path, programs_glob: str | None = None, extra_labels: dict[str, Label] | None = None) -> Corpus:
    programs_dir = root / "programs"
    if not programs_dir.is_dir():
        raise CorpusError(f"{root}: no programs/ folder (expected CORPUS/programs/*.dfy)")
    programs = tuple(
        CorpusProgram(p.stem, p, p.read_text(errors="replace"))
        for p in sorted(programs_dir.glob("*.dfy"))
        if programs_glob is None or fnmatch.fnmatch(p.stem, programs_glob) or fnmatch.fnmatch(p.name, programs_glob)
    )
    names = {p.name for p in programs}
    every_name = {p.stem for p in programs_dir.glob("*.dfy")}  # owners are found among all programs
    labels = _labels(root)
    mutants: list[MutantFile] = []
    seen: set[str] = set()
    for program in programs:
        for path in sorted((root / "mutants" / program.name).glob("*.dfy")):
            text = path.read_text(errors="replace")
            label = (labels.get(path.name) or labels.get(text_hash(text))
                     or (extra_labels or {}).get(f"{program.name}/{path.stem}"))
            mutants.append(MutantFile(program.name, path.stem, path, text, label))
            seen.add(path.name)
            seen.add(text_hash(text))
    for label in Label:
        for path in sorted((root / label.value).rglob("*.dfy")) if (root / label.value).is_dir() else ():
            text = path.read_text(errors="replace")
            if path.name in seen or text_hash(text) in seen:
                continue
            owner = _owner(path.stem, every_name)
            if owner in names:
                mutants.append(MutantFile(owner, path.stem, path, text, label))
                seen.add(path.name)
    mutants.sort(key=lambda m: (m.program, m.name))
    return Corpus(root, programs, tuple(mutants))


def _labels(root: Path) -> dict[str, Label]:
    """File name -> label and text hash -> label, for every file under the label folders."""
    found: dict[str, Label] = {}
    for label in Label:
        folder = root / label.value
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.dfy")):
            found[path.name] = label
            found[text_hash(path.read_text(errors="replace"))] = label
    return found


def _owner(stem: str, programs: set[str]) -> str | None:
    """The longest program name that prefixes a mutant's file name (followed by `_`)."""
    matches = [p for p in programs if stem.startswith(p + "_")]
    return max(matches, key=len) if matches else None

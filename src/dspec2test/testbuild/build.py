"""The test build of a program version: found once (Dafny asked, settle.py), then kept by the digest of the
program's text, so another run on the same version pays nothing (a folder of small JSON entries: the
generation cache's when there is one, else one in the temporary directory)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import replace
from pathlib import Path

from dspec2test.errors import Diagnostic, Severity
from dspec2test.model.program import LoadedProgram
from dspec2test.testbuild.ask import ask
from dspec2test.testbuild.edits import edited
from dspec2test.testbuild.record import BuildFile, Kept, TestBuild
from dspec2test.testbuild.settle import Copy, GiveUp, settle
from dspec2test.testbuild.sites import Site, sites_of
from dspec2test.toolchain import DAFNY_VERSION, find_toolchain

FORMAT = 3  # of the cache entries, and of what is lifted: a change makes every entry a miss
CACHE_FOLDER = "testbuild"


def lift(loaded: LoadedProgram, target: str = "py", cache_dir: str | Path | None = None) -> TestBuild:
    """The test build of `loaded` (for tests compiled to `target`). Never raises: where Dafny cannot be
    asked or no lifted copy builds, it is the program as written, with a warning."""
    sites = sites_of(loaded.program, loaded.project.function_syntax if loaded.project is not None else 4)
    if not sites:
        return TestBuild()
    layout = _layout(loaded)
    if layout is None:
        return TestBuild(warning=_warning(loaded, "its files could not be laid out in one folder"))
    files, inputs = layout
    paths = {f.shown: f.path for f in files if f.shown}
    key = _key(files, inputs, target)
    cache = _cache_path(cache_dir, key)
    cached = _load(cache, key)
    if cached is not None:
        lifted_keys, kept_entries, warned = cached
        if warned:
            return TestBuild(warning=_warning(loaded, warned))
        lifted = [s for s in sites if _site_key(s, paths) in lifted_keys]
        shown = {f.path: f.shown for f in files}  # the entry names files by their place in the copy
        return _record(loaded, files, inputs, lifted, [Kept(n, shown.get(f, f), line, why)
                                                       for n, f, line, why in kept_entries])
    texts = {f.shown: f.text for f in files if f.shown}
    parsed = {p.path: p for p in loaded.program.sources}
    others = {f.path: f.text for f in files if not f.shown}  # the project file: never edited
    tools = find_toolchain()
    copy = Copy(texts, paths, parsed, lambda edited_texts: ask(tools, {**others, **edited_texts}, inputs, target))
    try:
        lifted, put_back = settle(copy, sites)
    except GiveUp as why:
        if why.lasting:  # this version's answer: not asked again
            _store(cache, key, [], [], str(why))
        return TestBuild(warning=_warning(loaded, str(why)))
    kept = [Kept(name, s.file, s.line, reason) for s, reason in put_back for name in s.names]
    _store(cache, key, [_site_key(s, paths) for s in lifted], [replace(k, file=paths.get(k.file, k.file)) for k in kept])
    return _record(loaded, files, inputs, lifted, kept)


def _record(loaded: LoadedProgram, files: list[BuildFile], inputs: tuple[str, ...], lifted: list[Site],
            kept: list[Kept]) -> TestBuild:
    if not lifted:
        return TestBuild(kept=tuple(kept))
    by_file: dict[str, list[Site]] = {}
    for s in lifted:
        by_file.setdefault(s.file, []).append(s)
    copied = tuple(BuildFile(f.path, edited(f.text, by_file.get(f.shown, ())) if f.shown else f.text, f.source,
                             f.shown) for f in files)
    return TestBuild(copied, inputs, frozenset(n for s in lifted for n in s.names), tuple(kept),
                     frozenset(s.key for s in lifted))


def _layout(loaded: LoadedProgram) -> tuple[list[BuildFile], tuple[str, ...]] | None:
    """The program's files (and project file) under the folder that holds them all, each at its path
    relative to it, and the inputs dafny gets, by those paths."""
    sources = loaded.program.sources
    if len(loaded.locations) != len(sources):
        return None
    absolute = list(loaded.locations) + [str(Path(p).resolve()) for p in loaded.inputs]
    if loaded.project is not None:
        absolute.append(str(loaded.project.path))
    try:
        root = Path(os.path.commonpath([str(Path(p).parent) for p in absolute]))
    except ValueError:
        return None
    files = [BuildFile(Path(loc).relative_to(root).as_posix(), src.text, loc, src.path)
             for loc, src in zip(loaded.locations, sources)]
    if loaded.project is not None and str(loaded.project.path) not in loaded.locations:
        project = Path(loaded.project.path)
        try:
            text = project.read_text(encoding="utf-8")
        except OSError:
            return None
        files.append(BuildFile(project.relative_to(root).as_posix(), text, str(project)))
    copied = {f.source: f.path for f in files}
    inputs = tuple(copied[str(Path(p).resolve())] for p in loaded.inputs if str(Path(p).resolve()) in copied)
    if len(inputs) != len(loaded.inputs):
        return None
    return files, inputs


def _site_key(s: Site, paths: dict[str, str]) -> list:
    """Where a site is written, by the file's place in the copy: the same however the program was named."""
    return [paths.get(s.key[0], s.key[0]), s.key[1]]


def _key(files: list[BuildFile], inputs: tuple[str, ...], target: str) -> str:
    data = json.dumps({"format": FORMAT, "dafny": DAFNY_VERSION, "target": target, "inputs": list(inputs),
                       "files": [(f.path, f.text) for f in files]}, sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def _cache_path(cache_dir: str | Path | None, key: str) -> Path:
    base = Path(cache_dir) if cache_dir else Path(tempfile.gettempdir()) / "dspec2test"
    return base / CACHE_FOLDER / key[:2] / f"{key}.json"


def _load(path: Path, key: str) -> tuple[list[list], list[list], str] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("key") != key:
            return None
        return [list(k) for k in data["lifted"]], [list(k) for k in data["kept"]], str(data.get("warning", ""))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _store(path: Path, key: str, lifted: list[list], kept: list[Kept], warning: str = "") -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"format": FORMAT, "key": key, "lifted": lifted,
                           "kept": [[k.name, k.file, k.line, k.reason] for k in kept], "warning": warning})
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as out:
            out.write(text)
        os.replace(out.name, path)
    except OSError:
        pass  # a cache that cannot be written leaves the run as it was


def _warning(loaded: LoadedProgram, why: str) -> Diagnostic:
    return Diagnostic(loaded.root, 1, 1, f"test build: ghost state stays ghost in the tests ({why}): the clauses "
                      f"that read it are not checked", Severity.WARNING)

"""The program and its harness (harness.py) translated to Python once per program version, for the workers.

A member whose harness methods do not build (a check Dafny refuses in the harness's scope) is dropped and the
rest translated again; a program that does not build on its own is routed around where its faults lie in
members (run/recover.py, as the test runs do), else leaves the search out (the solver still generates its
tests). Translations are kept by the hash of what went in: a program version pays once.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dspec2test.dafny.parser import parse_file
from dspec2test.errors import Diagnostic
from dspec2test.run.diagnostics import build_errors
from dspec2test.run.executors import place_python_externs
from dspec2test.run.process import run_limited
from dspec2test.run.recover import MAX_REPAIR_ROUNDS, faults_of
from dspec2test.run.stubs import Fault, stubbed
from dspec2test.search.harness import Harness
from dspec2test.search.worker import WORKER
from dspec2test.toolchain import DAFNY_VERSION, find_toolchain

HARNESS_FILE = "dspec2test_search.dfy"
ROUNDS = 3  # translations at most: each drops the members whose methods did not build (and as many more
# as routing around the program's own faults takes: run/recover.py)
BUILD_S = 300.0


@dataclass(frozen=True)
class Compiled:
    pydir: Path  # the translated program (module_.py and the runtime)
    harness: Harness  # what was translated: the members that built
    unicode: bool  # characters are code points (Dafny 4's default, `unicode-char`)


def compile_harness(make: Callable[[frozenset[str]], Harness], inputs: Sequence[str], files: Sequence[str],
                    folder: Path, unicode: bool = True) -> Compiled | str:
    """The harness `make(dropped)` (without the members `dropped`) translated with the program's `inputs`
    into `folder`; or why not. `files`: every file of the program (the cache key reads them)."""
    tools = find_toolchain()
    if tools.dafny is None:
        return "dafny not found"
    stubs = folder / f"stubs.{os.getpid()}"  # copies of the program routing around members at fault
    try:
        return _compiled(make, inputs, files, folder, stubs, unicode, tools.dafny, tools.dafny_env())
    finally:
        shutil.rmtree(stubs, ignore_errors=True)


def _compiled(make: Callable[[frozenset[str]], Harness], inputs: Sequence[str], files: Sequence[str], folder: Path,
              stubs: Path, unicode: bool, dafny: str, env: dict[str, str]) -> Compiled | str:
    dropped: frozenset[str] = frozenset()
    harness = make(dropped)
    sources = tuple(inputs)
    faults: tuple[Fault, ...] = ()
    for _ in range(ROUNDS + MAX_REPAIR_ROUNDS + 1):
        if not harness.entries:
            return "no member's harness builds"
        key = _key(harness.text, inputs, files)
        out = folder / key
        module = out / "search-py" / "module_.py"
        if module.exists():
            return Compiled(module.parent, harness, unicode)
        # built beside its place and moved there whole: another run may read the same version meanwhile
        work = folder / f"{key}.{os.getpid()}.tmp"
        try:
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir(parents=True)
            source = work / HARNESS_FILE
            source.write_text(harness.text)
        except OSError as exc:
            return f"cannot write the search's build ({exc})"
        argv = [dafny, "translate", "py", "--include-runtime", "--no-verify", "--allow-warnings",
                *sources, str(source), "-o", str(work / "search")]
        done = run_limited(argv, work, env, BUILD_S)
        if done.returncode == 0 and (work / "search-py" / "module_.py").exists():
            place_python_externs(inputs, work / "search-py")
            (work / "dspec2test_worker.py").write_text(WORKER)
            try:
                work.rename(out)
            except OSError:  # another run put it there first: the same build
                shutil.rmtree(work, ignore_errors=True)
            if module.exists():
                return Compiled(module.parent, harness, unicode)
            return "cannot write the search's build"
        errors = build_errors(done.stdout + done.stderr)
        shutil.rmtree(work, ignore_errors=True)
        routed = _routed_around(tuple(inputs), errors, stubs, faults)
        if routed is not None:
            sources, faults = routed  # members at fault (no body yet, code that does not build): the others run
            continue
        mine = [e for e in errors if Path(e.file).name == HARNESS_FILE]
        if not mine or len(mine) < len(errors):
            first = next((e for e in errors if Path(e.file).name != HARNESS_FILE), None)
            return f"the program does not build: {first.message}" if first is not None else \
                "the program does not build" if not done.timed_out else "the translation timed out"
        broken = {name for name, (lo, hi) in harness.lines.items() if any(lo <= e.line <= hi for e in mine)}
        if not broken:
            return f"the search harness does not build: {mine[0].message}"
        dropped |= broken
        harness = make(dropped)
    return "the search harness does not build"


def _routed_around(inputs: tuple[str, ...], errors: tuple[Diagnostic, ...], folder: Path,
                   known: tuple[Fault, ...]) -> tuple[tuple[str, ...], tuple[Fault, ...]] | None:
    """A one-file program whose build errors lie in its members, copied with those members routed around
    (they halt when reached, run/recover.py and run/stubs.py, as the test runs do), and the faults so far;
    None where that does not apply or finds nothing new."""
    if len(inputs) != 1 or not inputs[0].endswith(".dfy"):
        return None
    original = Path(inputs[0])
    parsed = parse_file(str(original))
    if isinstance(parsed, Diagnostic) or parsed.includes:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / original.name
    built = copy.read_text() if known and copy.is_file() else original.read_text()
    mine = tuple(replace(e, file=original.name) for e in errors if Path(e.file).name == original.name)
    faults = faults_of(mine, {original.name: built}, known)
    if faults is None:
        return None
    text = stubbed(original.read_text(), original.name, faults, "dspec2test-search")
    if text is None:
        return None
    copy.write_text(text)
    return (str(copy),), faults


def _key(text: str, inputs: Sequence[str], files: Sequence[str]) -> str:
    h = hashlib.sha256(text.encode())
    h.update(f"{DAFNY_VERSION}\0{WORKER}".encode())  # what reads the build, and what made it
    for name in (*inputs, *files):
        path = Path(name)
        h.update(name.encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()[:20]

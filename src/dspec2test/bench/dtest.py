"""The baseline: Dafny's own `dafny generate-tests Block`, run the way the paper ran it.

Dafny 4.11 only generates for members marked `{:testEntry}` and only for programs inside a module, so
the program is wrapped in `module DtestProgram { ... }` and every compiled method except `Main` gets
`{:testEntry}`. When Dafny refuses the whole program (one method it cannot handle, e.g. an `if case`
under --enforce-determinism), each method is tried on its own and the tests of those it accepts are
kept. Its printed test modules (`include "<copy>"` + `module ...UnitTests { import DtestProgram ... }`)
are appended, without the include, to the wrapped original and to each wrapped mutant.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from dspec2test.bench.proc import run
from dspec2test.toolchain import Toolchain

DTEST_MODULE = "DtestProgram"
LENGTH_LIMIT = 50  # the paper's setting


@dataclass(frozen=True)
class BlockTests:
    tests_text: str  # test modules, to append to a wrapped program version
    tests: int
    error: str | None  # why no tests, when none
    seconds: float
    note: str = ""  # e.g. methods Dafny refused


def wrap(text: str) -> str:
    return f"module {DTEST_MODULE} {{\n{text}\n}}\n"


def generate_block(name: str, text: str, workdir: Path, tools: Toolchain, timeout_s: float) -> BlockTests:
    start = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    entries = method_entries(text)
    names = [n for _, n in entries if n != "Main"]
    if not names:
        return BlockTests("", 0, "no compiled method to mark {:testEntry}", time.monotonic() - start)
    tests, error = _generate(name, annotate(text, set(names)), workdir, tools, timeout_s)
    refused: list[str] = []
    if tests is None and len(names) > 1:
        parts: list[str] = []
        for method in names:
            got, why = _generate(f"{name}_{method}", annotate(text, {method}), workdir, tools, timeout_s)
            if got is None:
                refused.append(f"{method}: {why}")
            else:
                parts.append(got)
        tests = "\n".join(parts) if parts else None
        error = "; ".join(refused) if tests is None else None
    count = _count_tests(tests or "")
    if tests is not None and count == 0:
        tests, error = None, "dafny generate-tests produced no tests"
    note = ("refused: " + "; ".join(refused)) if refused and tests is not None else ""
    return BlockTests(tests or "", count, error, time.monotonic() - start, note)


def _generate(stem: str, annotated: str, workdir: Path, tools: Toolchain, timeout_s: float) -> tuple[str | None, str]:
    path = workdir / f"{stem}.dfy"
    path.write_text(wrap(annotated))
    argv = [tools.dafny or "dafny", "generate-tests", "Block", path.name, "--length-limit", str(LENGTH_LIMIT),
            *tools.solver_args()]
    got = run(argv, timeout_s, env=tools.dafny_env(), cwd=str(workdir))
    if got.timed_out:
        return None, f"dafny generate-tests exceeded {timeout_s:g} s"
    lines = got.stdout.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("module ")), None)
    if got.returncode != 0 or first is None:
        errors = [line.strip() for line in (got.stdout + got.stderr).splitlines() if "Error" in line]
        return None, (errors[-1] if errors else f"exit {got.returncode}")
    # Dafny's printed tests include the annotated copy; they are appended to each version instead.
    return "\n".join(line for line in lines[first:] if not line.startswith("include ")) + "\n", ""


def _count_tests(tests_text: str) -> int:
    return sum(1 for line in tests_text.splitlines() if line.startswith("method {:test}"))


# ---- where to put {:testEntry}
# TODO(parser): use the AST's Method spans once dafny/parser.py lands; until then a minimal scan that
# skips comments, strings and chars and looks only for the reserved word `method`.


def method_entries(text: str) -> list[tuple[int, str]]:
    """(offset just past the keyword `method`, method name) of each non-ghost method declaration."""
    words = _words(text)
    found: list[tuple[int, str]] = []
    for i, (start, end, word) in enumerate(words):
        if word != "method":
            continue
        if i > 0 and words[i - 1][2] in ("ghost", "function", "predicate"):
            continue  # ghost methods cannot run; `function method` is Dafny 3 syntax
        name = _name_after(text, end)
        if name:
            found.append((end, name))
    return found


def annotate(text: str, methods: set[str]) -> str:
    out: list[str] = []
    last = 0
    for offset, name in method_entries(text):
        if name in methods and "{:testEntry}" not in text[offset: offset + 40]:
            out.append(text[last:offset])
            out.append(" {:testEntry}")
            last = offset
    out.append(text[last:])
    return "".join(out)


def _name_after(text: str, pos: int) -> str | None:
    """The identifier after `method`, skipping `{: ... }` attributes."""
    i = pos
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif text.startswith("{:", i):
            depth = 0
            while i < len(text):
                depth += text[i] == "{"
                depth -= text[i] == "}"
                i += 1
                if depth == 0:
                    break
        else:
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] in "_'?"):
                j += 1
            return text[i:j] or None
    return None


def _words(text: str) -> list[tuple[int, int, str]]:
    words: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif ch == "'" and i + 2 < n and (text[i + 2] == "'" or text[i + 1] == "\\"):
            close = text.find("'", i + 2)
            i = n if close < 0 else close + 1
        elif ch.isalpha() or ch == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_'?"):
                j += 1
            words.append((i, j, text[i:j]))
            i = j
        else:
            i += 1
    return words

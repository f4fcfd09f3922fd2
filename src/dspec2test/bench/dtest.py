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

from dspec2test.run.diagnostics import error_lines
from dspec2test.run.process import run_limited
from dspec2test.dafny import ast as A
from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.errors import DspecError
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
    try:
        entries = method_entries(text, name + ".dfy")
    except DspecError as exc:
        return BlockTests("", 0, f"cannot place {{:testEntry}}: {exc.line}:{exc.col}: {exc.message}",
                          time.monotonic() - start)
    names = list(dict.fromkeys(n for _, n in entries if n != "Main"))
    if not names:
        return BlockTests("", 0, "no compiled method to mark {:testEntry}", time.monotonic() - start)
    tests, first_error = _generate(name, annotate(text, set(names)), workdir, tools, timeout_s)
    error: str | None = first_error
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
    got = run_limited(argv, workdir, tools.dafny_env(), timeout_s)
    if got.timed_out:
        return None, f"dafny generate-tests exceeded {timeout_s:g} s"
    lines = got.stdout.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("module ")), None)
    if got.returncode != 0 or first is None:
        errors = error_lines(got.stdout + got.stderr, ("Error",))
        return None, (errors[-1] if errors else f"exit {got.returncode}")
    # Dafny's printed tests include the annotated copy; they are appended to each version instead.
    return "\n".join(line for line in lines[first:] if not line.startswith("include ")) + "\n", ""


def _count_tests(tests_text: str) -> int:
    return sum(1 for line in tests_text.splitlines() if line.startswith("method {:test}"))


# ---- where to put {:testEntry}: after the keyword of each compiled method, found through the AST


def method_entries(text: str, path: str = "program.dfy") -> list[tuple[int, str]]:
    """(offset just past the keyword `method`, short name) of each non-ghost method, in text order.
    Raises DspecError when the program does not parse."""
    program = parse_program(text, path)
    found: list[tuple[int, str]] = []
    for _qualified, member in iter_members(program):
        if isinstance(member, A.Method) and member.kind == "method" and not member.ghost:
            keyword = text.find("method", member.span.start, member.span.end)
            if keyword >= 0:
                found.append((keyword + len("method"), member.name))
    return sorted(found)


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

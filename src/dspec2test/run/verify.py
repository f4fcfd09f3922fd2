"""`--unverified`: the members whose verification fails (asked of `dafny verify`), plus `{:testEntry}` ones.

As the paper's tool did: a developer whose proof fails gets concrete failing inputs for exactly those.
Dafny reports a failure at a line inside the member (a return path, an assertion); the enclosing member
is found from the parser's spans.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from dspec2test.dafny import ast
from dspec2test.errors import Diagnostic, DspecError
from dspec2test.model.walk import walk
from dspec2test.run.diagnostics import build_errors, error_lines
from dspec2test.run.process import run_limited
from dspec2test.toolchain import Toolchain, find_toolchain

from dspec2test.dafny.parser import iter_members, parse_file, parse_program


@dataclass(frozen=True)
class MemberSpan:
    name: str  # qualified, as TestCase.method names it: "M.C.Find"
    line: int
    end_line: int
    test_entry: bool


class VerifyError(Exception):
    """dafny verify could not say which members fail (missing tool, resolution error, timeout)."""


def unverified_members(path: str | Path, timeout_s: float = 600.0) -> list[str]:
    """Members of the program at `path` that fail `dafny verify`, then the `{:testEntry}` ones, no repeats."""
    parsed = parse_file(str(path))
    if isinstance(parsed, Diagnostic):
        raise VerifyError(parsed.render())
    members = list(member_spans(parsed))
    failures = verification_failures(path, timeout_s)
    return select_unverified(members, failures, Path(path).name)


def select_unverified(members: list[MemberSpan], failures: list[Diagnostic], file_name: str) -> list[str]:
    chosen = []
    for diag in failures:
        if Path(diag.file).name != file_name:
            continue
        member = enclosing_member(members, diag.line)
        if member:
            chosen.append(member.name)
    chosen += [m.name for m in members if m.test_entry]
    return list(dict.fromkeys(chosen))


def enclosing_member(members: list[MemberSpan], line: int) -> MemberSpan | None:
    """The innermost member whose lines contain `line`."""
    around = [m for m in members if m.line <= line <= m.end_line]
    return min(around, key=lambda m: m.end_line - m.line) if around else None


class Verification(str, Enum):
    VERIFIED = "verified"
    FAILS = "fails"  # verification errors (Dafny's own time-outs included)
    INCOMPETENT = "incompetent"  # does not parse or resolve


@dataclass(frozen=True)
class Verified:
    """What `dafny verify` said of one program."""

    verification: Verification
    errors: tuple[Diagnostic, ...]  # Dafny's located errors
    message: str  # the first lines of its errors (empty when verified), or why it stopped
    timed_out: bool
    wall_s: float


def verify(path: str | Path, timeout_s: float = 600.0, tools: Toolchain | None = None) -> Verified:
    """`dafny verify --allow-warnings` on one program. Exit codes of Dafny 4.11 (measured): 0 verified,
    2 resolution/parse errors, 4 verification errors. Raises VerifyError when dafny is missing."""
    tools = tools or find_toolchain()
    if not tools.dafny:
        raise VerifyError("dafny not found (run scripts/setup.sh or set DSPEC2TEST_DAFNY)")
    path = Path(path).resolve()
    argv = [tools.dafny, *verify_args(tools), path.name]
    done = run_limited(argv, path.parent, tools.dafny_env(), timeout_s)
    output = (done.stdout + done.stderr).strip()
    errors = build_errors(done.stdout) + build_errors(done.stderr)
    message = "\n".join(error_lines(output)[:3])
    if done.timed_out:
        return Verified(Verification.FAILS, errors, f"dafny verify exceeded {timeout_s:g} s", True, done.wall_s)
    if done.returncode == 0:
        return Verified(Verification.VERIFIED, errors, "", False, done.wall_s)
    if done.returncode == 4:
        return Verified(Verification.FAILS, errors, message, False, done.wall_s)
    return Verified(Verification.INCOMPETENT, errors, message or output[-300:], False, done.wall_s)


def verify_args(tools: Toolchain) -> tuple[str, ...]:
    return ("verify", "--allow-warnings", *tools.solver_args())


def verification_failures(path: str | Path, timeout_s: float = 600.0) -> list[Diagnostic]:
    got = verify(path, timeout_s)
    if got.timed_out:
        raise VerifyError(f"dafny verify did not finish within {timeout_s:g} s")
    if got.verification is Verification.INCOMPETENT:
        first = got.errors[0].render() if got.errors else (got.message.splitlines() or ["unknown error"])[-1]
        raise VerifyError(f"dafny verify could not resolve the program: {first}")
    return list(got.errors)


def member_spans(program: ast.Program) -> Iterator[MemberSpan]:
    for name, member in iter_members(program):
        test_entry = any(a.name == "testEntry" for a in member.attributes)
        yield MemberSpan(name, member.span.line, member.span.end_line, test_entry)


def clause_texts(path: str | Path) -> dict[int, str]:
    """Line -> source text of each requires/ensures clause in the program (empty if it does not parse)."""
    return source_facts(path).clauses


@dataclass(frozen=True)
class SourceFacts:
    """What a report takes from the program text."""

    clauses: dict[int, str]  # line -> source text of each requires/ensures clause
    # member -> lines of the `assume` statements in its body: where its proof takes something on trust, a
    # failing test may be that assumption not holding at run time rather than a slip in verified code
    assumes: dict[str, tuple[int, ...]]


def source_facts(path: str | Path) -> SourceFacts:
    """The program's facts (empty if it does not parse)."""
    parsed = parse_file(str(path))
    if isinstance(parsed, Diagnostic):
        return SourceFacts({}, {})
    return _facts(parsed)


def source_facts_of_text(text: str, path: str = "program.dfy") -> SourceFacts:
    try:
        return _facts(parse_program(text, path))
    except DspecError:
        return SourceFacts({}, {})


def _facts(parsed: ast.Program) -> SourceFacts:
    clauses = {clause.span.line: clause.text for _, member in iter_members(parsed)
               for clause in member.spec.requires + member.spec.ensures if clause.text}
    assumes = {}
    for name, member in iter_members(parsed):
        body = getattr(member, "body", None)
        lines = sorted({n.span.line for n in walk(body) if isinstance(n, ast.AssertStmt) and n.kind == "assume"}
                       if body is not None else ())
        if lines:
            assumes[name] = tuple(lines)
    return SourceFacts(clauses, assumes)

"""Generated tests reused between runs: one file per member in a cache folder (`--cache-dir`, the action's
`cache_dir`, which actions/cache can keep between pushes).

A member's tests depend on its contract and where it stands (its clauses and their lines), on the
program its contract can reach (every declaration, with the bodies of compiled methods left out: a
test never looks inside them; and the contracts of methods that are not in a class, which no test of
another member uses), on the generation options, and on the tool (its version and the text of its own
sources, and Z3's version). The key is a digest of these; a push that edits only method bodies, or
one member's contract, keeps the other members' keys, and any other change makes a new one (a miss,
then a fresh entry). An entry is plain JSON, never code: one that cannot be read is a miss, not an error,
and one that cannot be written leaves the run as it was. Results that depend on the moment (a member
stopped by its time limit, a solver crash) are not kept.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dspec2test import __version__
from dspec2test.dafny import ast
from dspec2test.emit.metadata import read_metadata, write_metadata
from dspec2test.errors import Diagnostic, Severity
from dspec2test.generation.manifest import member_json, member_of
from dspec2test.records import MemberResult

FORMAT = 2  # of the entries: a change of their shape makes every old entry a miss
# options that choose members or share out the work, not what a member's tests are
_NOT_IN_KEY = frozenset({"methods", "unverified", "jobs", "isolate", "cache_dir", "trusted_lemmas"})


@dataclass(frozen=True)
class Cache:
    root: Path

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def load(self, key: str) -> MemberResult | None:
        """The entry under `key`; None when there is none or it cannot be read (a miss either way)."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            return _entry(data, key)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    def store(self, key: str, entry: MemberResult) -> bool:
        """Keep a member's result under `key` (written whole or not at all); False when it could not be written."""
        target = self.path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(_data(entry, key), ensure_ascii=True, sort_keys=True)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, delete=False,
                                             suffix=".tmp") as handle:
                handle.write(text)
            os.replace(handle.name, target)
            return True
        except (OSError, TypeError, ValueError):
            return False


def keepable(member: MemberResult) -> bool:
    """Whether a result is what generation gives every time: not one stopped by a time limit or a crash."""
    if member.stopped:
        return False
    return not any(u.construct.startswith(("solver failure", "generation stopped", "internal error")) for u in member.unsupported)


def member_key(contract: Any, program: ast.Program, options: Any) -> str:
    """The digest of everything a member's generated tests depend on (module docstring)."""
    settings = {f.name: getattr(options, f.name) for f in dataclasses.fields(options) if f.name not in _NOT_IN_KEY}
    member = {
        "name": contract.name, "kind": contract.kind, "file": contract.file, "line": contract.line,
        "col": contract.col, "body": not getattr(contract, "body_missing", False),
        "clauses": [(cl.kind, cl.line, cl.text) for cl in contract.clauses],
        "declared": repr(_as_read(contract.member, True)),  # its whole spec (modifies, reads too), no body
    }
    text = json.dumps({"tool": tool_fingerprint(), "options": settings, "member": member,
                       "program": program_fingerprint(program)}, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def program_fingerprint(program: ast.Program) -> str:
    """A digest of the program's declarations as generation reads them (module docstring): the bodies of
    compiled methods left out, and the contracts of compiled methods outside classes too (a test builds
    objects with the methods of their classes, never with those; each member's own contract is in its
    key), and where anything stands (AST nodes leave their spans out of their repr)."""
    return hashlib.sha256(repr(tuple(_as_read(d, False) for d in program.decls)).encode()).hexdigest()


_BODY = ast.Block(())  # stands for a body that is there, whatever it holds


def _as_read(decl: Any, in_type: bool) -> Any:
    if isinstance(decl, ast.Method):
        if decl.kind not in ("method", "constructor") or decl.ghost:
            return decl  # lemmas: their proofs decide which lemmas are taken on trust
        body = _BODY if decl.body is not None else None
        return dataclasses.replace(decl, body=body, **({} if in_type else {"spec": ast.Spec()}))
    inner_type = in_type or isinstance(decl, (ast.ClassDecl, ast.Datatype, ast.Newtype, ast.TypeSynonym))
    for name in ("decls", "members"):
        inner = getattr(decl, name, None)
        if isinstance(inner, tuple) and dataclasses.is_dataclass(decl):
            return dataclasses.replace(decl, **{name: tuple(_as_read(d, inner_type) for d in inner)})
    return decl


@functools.lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """dspec2test's version and the text of its sources (a checkout between releases changes them), and
    the version of the Z3 that solves."""
    digest = hashlib.sha256(f"{FORMAT} {__version__} {_z3_version()}".encode())
    package = Path(__file__).resolve().parent
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".lark") and p.is_file()):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _z3_version() -> str:
    try:
        import z3  # noqa: PLC0415 - only where generation runs, which has it loaded already

        return z3.get_full_version()
    except (ImportError, AttributeError):
        return "none"


def _data(entry: MemberResult, key: str) -> dict:
    return {
        "format": FORMAT, "key": key, "tests": list(entry.tests),
        "cases": [write_metadata(tc) for tc in entry.cases], "entry": member_json(entry),
        "diagnostics": [{"file": d.file, "line": d.line, "col": d.col, "message": d.message,
                         "severity": d.severity.value, "construct": d.construct} for d in entry.diagnostics],
    }


def _entry(data: dict, key: str) -> MemberResult | None:
    if data.get("format") != FORMAT or data.get("key") != key:
        return None
    tests = tuple(data["tests"])
    cases = tuple(tc for line in data["cases"] for tc in read_metadata(line))
    if len(cases) != len(data["cases"]) or len(tests) != len(cases) or not all(isinstance(t, str) for t in tests):
        return None
    if not isinstance(data["entry"], dict):
        return None
    diagnostics = tuple(Diagnostic(str(d["file"]), int(d["line"]), int(d["col"]), str(d["message"]),
                                   Severity(d["severity"]), d.get("construct")) for d in data["diagnostics"])
    return dataclasses.replace(member_of(data["entry"]), tests=tests, cases=cases, diagnostics=diagnostics)


def hits_line(hits: Sequence[str], members: int) -> str:
    """`tests of 2 of 3 members reused from the cache (generation skipped)`; "" without a lookup."""
    if not members:
        return ""
    return f"tests of {len(hits)} of {members} member{'s' * (members != 1)} reused from the cache (generation skipped)"

"""Members implemented outside Dafny (`{:extern}` without a body): where their code is, for a target.

A project gives the code of its externs per target language beside the Dafny file that declares them,
named after that file or after the extern module (`FileIO.dfy` with `FileIO.cs`, `FileIO.java`, ...).
A test that reaches an extern with no code for the target it runs on would crash on verified code, so
such a member is not tested, with the extern named; code that exists is handed to `dafny` with the
program.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dspec2test.dafny import ast
from dspec2test.model.contracts import CTOR_NAME, Contract, iter_members, qualified_name
from dspec2test.model.refine import module_paths
from dspec2test.model.scope import ProgramScope, key_of

EXTENSIONS = {"py": ".py", "cs": ".cs", "java": ".java", "js": ".js", "go": ".go"}


@dataclass(frozen=True)
class Extern:
    key: str
    name: str  # qualified
    origin: str  # the Dafny file declaring it
    module_name: str  # the extern name of its module, if it has one


def _extern_name(attrs: tuple[ast.Attribute, ...]) -> str | None:
    for a in attrs:
        if a.name == "extern":
            first = a.args[0] if a.args else None
            return first.value if isinstance(first, ast.StringLit) else ""
    return None


def externs(program: ast.Program) -> list[Extern]:
    """Every member whose code is outside Dafny: bodiless and `{:extern}`, or bodiless in an extern class."""
    out = []
    module_names = {path: name or path[-1] for path, m in module_paths(program.decls).items()
                    if (name := _extern_name(m.attributes)) is not None}
    for scope, d in iter_members(program.decls):
        if not isinstance(d, (ast.Method, ast.Function)):
            continue
        bodiless = d.body is None and (not isinstance(d, ast.Function) or d.by_method is None)
        own = _extern_name(d.attributes) is not None
        owner = scope.owner if isinstance(scope.owner, ast.ClassDecl) else None
        in_extern_class = owner is not None and _extern_name(owner.attributes) is not None
        # a constructor without parameters needs no code in Python: the class is made by Dafny's own code
        default_ctor = isinstance(d, ast.Method) and d.kind == "constructor" and not d.params
        if bodiless and (own or in_extern_class) and not d.ghost and not default_ctor:
            name = qualified_name(scope, d.name or CTOR_NAME)
            origin = d.origin or program.path
            out.append(Extern(key_of(origin, name), name, origin, module_names.get(scope.module, "")))
    return out


def implementation(extern: Extern, target: str, base: Path | None = None,
                   headed: dict[str, Path] | None = None) -> Path | None:
    """The file holding the extern's code for `target`: beside the Dafny file declaring it, or (Python)
    a file of the repository whose first line names its module (`# Module: X`, as Dafny writes them)."""
    ext = EXTENSIONS.get(target)
    if ext is None:
        return None
    dfy = Path(extern.origin)
    if not dfy.is_absolute() and base is not None:
        dfy = base / dfy
    names = [dfy.stem] + ([extern.module_name.split(".")[-1]] if extern.module_name else [])
    for name in names:
        candidate = dfy.parent / (name + ext)
        if candidate.is_file():
            return candidate.resolve()
    if headed and extern.module_name in headed:
        return headed[extern.module_name]
    return None


MODULE_HEADER = "# Module:"


def python_module(text: str) -> str | None:
    """The module a Python file of extern code says it is on its first line (`# Module: X`), as Dafny's
    own files do; None without that line."""
    first = text.split("\n", 1)[0].strip()
    return first[len(MODULE_HEADER):].strip() if first.startswith(MODULE_HEADER) else None


MAX_SCANNED = 5000  # files looked at for `# Module:` headers: a bound on a large repository's cost
_SKIPPED = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tools"}


def module_headers(folder: Path, target: str) -> dict[str, Path]:
    """Python files under `folder` whose first line is `# Module: NAME`: NAME -> file (the first found,
    in sorted order, so a run is repeatable)."""
    if target != "py" or not folder.is_dir():
        return {}
    found: dict[str, Path] = {}
    scanned = 0
    for path in sorted(folder.rglob("*.py")):
        if any(part in _SKIPPED for part in path.parts):
            continue
        scanned += 1
        if scanned > MAX_SCANNED:
            break
        try:
            with path.open(encoding="utf-8", errors="replace") as f:
                name = python_module(f.readline())
        except OSError:
            continue
        if name is not None:
            found.setdefault(name, path.resolve())
    return found


@dataclass(frozen=True)
class ExternPlan:
    """For one program and target: the code files to build with, and the externs without code."""

    files: tuple[str, ...]  # absolute paths of implementation files
    missing: dict[str, Extern]  # key -> extern with no code for the target

    def reached(self, scope: ProgramScope, start: str) -> Extern | None:
        """An extern without code that the member `start` (a key) reaches through compiled code or its
        contract, if any (the nearest)."""
        if not self.missing:
            return None
        index = scope.index()
        seen = {start}
        frontier = [start]
        while frontier:
            nxt = []
            for key in frontier:
                if key in self.missing:
                    return self.missing[key]
                facts = index.get(key)
                if facts is None:
                    continue
                for ref in sorted(facts.body_refs | facts.contract_refs):
                    if ref not in seen:
                        seen.add(ref)
                        nxt.append(ref)
            frontier = nxt
        return None


def without_code(program: ast.Program, contracts: Sequence[Contract], target: str,
                 base: Path | None = None) -> tuple[list[Contract], tuple[str, ...]]:
    """The contracts, those that reach an extern with no code for `target` blocked with the extern named
    (a test would crash on verified code: not-tested, before anything runs), and the code files of the
    externs that have it, for `dafny` to build with."""
    externs_plan = plan(program, target, base)
    if not externs_plan.missing:
        return list(contracts), externs_plan.files
    scope = ProgramScope(program)
    out = []
    for c in contracts:
        hit = externs_plan.reached(scope, key_of(c.member.origin or program.path, c.name))
        if hit is not None and not c.blocked:
            via = "" if hit.name == c.name else f"reached from {c.name}; "
            c = replace(c, blocked=f"extern {hit.name} has no implementation for target {target} "
                                   f"({via}declared in {hit.origin})")
        out.append(c)
    return out, externs_plan.files


def plan(program: ast.Program, target: str, base: Path | None = None) -> ExternPlan:
    files: list[str] = []
    missing: dict[str, Extern] = {}
    found = externs(program)
    headed = module_headers(base or Path.cwd(), target) if found else {}
    for e in found:
        code = implementation(e, target, base, headed)
        if code is None:
            missing[e.key] = e
        elif str(code) not in files:
            files.append(str(code))
    return ExternPlan(tuple(files), missing)

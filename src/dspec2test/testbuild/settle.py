"""Which sites the test build lifts, decided by real Dafny: start from every site, and put `ghost` back on
those Dafny's errors point to, until the copy builds.

An error is a site's when it lies inside the site's declaration (a lifted function whose body has an
unbounded quantifier or calls a function left ghost), or when the statement or clause it lies in names
the site (a lifted field assigned in a lemma, or from a ghost variable). Errors the program as written
has too are not ours to fix. An error nothing explains is narrowed down by halving the lifted set. The
rounds and Dafny runs are bounded; past the bound nothing is lifted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from dspec2test.dafny import ast
from dspec2test.dafny.parser import offset_of
from dspec2test.errors import Diagnostic
from dspec2test.testbuild.ask import Answer
from dspec2test.testbuild.edits import edited
from dspec2test.testbuild.sites import Site

MAX_ASKS = 16  # Dafny runs per program version, the program as written included


class GiveUp(Exception):
    """Dafny could not be asked (`lasting` False: another run may), or the bound on its runs was reached
    (`lasting`: the same program version gets the same answer)."""

    def __init__(self, why: str, lasting: bool = False):
        super().__init__(why)
        self.lasting = lasting


@dataclass
class Copy:
    """The program's files as the copy has them, and the means to ask Dafny about a lifted set."""

    texts: Mapping[str, str]  # file as the program names it -> its text
    paths: Mapping[str, str]  # file as the program names it -> its path in the copy (as Dafny names it)
    parsed: Mapping[str, ast.Program]  # file as the program names it -> its own parse
    asker: Callable[[dict[str, str]], Answer]  # copy path -> text, to Dafny
    asks: int = 0
    _own: tuple[tuple[str, int, str], ...] | None = field(default=None, repr=False)

    def answer(self, lifted: Sequence[Site]) -> Answer:
        if self.asks >= MAX_ASKS:
            raise GiveUp(f"no build found in {MAX_ASKS} runs of dafny", lasting=True)
        self.asks += 1
        by_file: dict[str, list[Site]] = {}
        for s in lifted:
            by_file.setdefault(s.file, []).append(s)
        got = self.asker({self.paths[f]: edited(text, by_file.get(f, ())) for f, text in self.texts.items()})
        if got.failure:
            raise GiveUp(got.failure)
        return got

    def own_errors(self) -> tuple[tuple[str, int, str], ...]:
        """The errors of the program as written (asked once, when first needed)."""
        if self._own is None:
            self._own = tuple(_key(e) for e in self.answer(()).errors)
        return self._own

    def shown(self, dafny_file: str) -> str | None:
        """The program's name for a file Dafny named (by its path in the copy)."""
        return next((f for f, p in self.paths.items() if p == dafny_file or dafny_file.endswith("/" + p)), None)


def settle(copy: Copy, sites: Sequence[Site]) -> tuple[list[Site], list[tuple[Site, str]]]:
    """The sites that build together, and those put back with Dafny's reason. Raises GiveUp."""
    lifted = list(sites)
    kept: list[tuple[Site, str]] = []
    while lifted:
        got = copy.answer(lifted)
        if got.built:
            return lifted, kept
        blamed = blame(copy, got.errors, lifted)
        if blamed:
            kept += [(s, blamed[s.key]) for s in lifted if s.key in blamed]
            lifted = [s for s in lifted if s.key not in blamed]
            continue
        if _only_own(copy, got.errors):
            return lifted, kept  # what stops the build is the program's own (a member without a body, say)
        return _halved(copy, lifted, kept, got.errors)
    return [], kept


def _halved(copy: Copy, lifted: list[Site], kept: list[tuple[Site, str]],
            errors: tuple[Diagnostic, ...]) -> tuple[list[Site], list[tuple[Site, str]]]:
    """Errors nothing explains: the largest part of `lifted` found, half by half, to build."""
    reason = errors[0].message if errors else "the copy does not build"

    def largest(part: list[Site], base: list[Site]) -> list[Site]:
        got = copy.answer(base + part)
        if got.built or _only_own(copy, got.errors):
            return part
        if len(part) == 1:
            kept.append((part[0], reason))
            return []
        half = len(part) // 2
        first = largest(part[:half], base)
        return first + largest(part[half:], base + first)

    return largest(lifted, []), kept


def _only_own(copy: Copy, errors: tuple[Diagnostic, ...]) -> bool:
    return bool(errors) and {_key(e) for e in errors} <= set(copy.own_errors())


def _key(e: Diagnostic) -> tuple[str, int, str]:
    return e.file, e.line, e.message


def blame(copy: Copy, errors: Sequence[Diagnostic], lifted: Sequence[Site]) -> dict[tuple[str, int], str]:
    """Site key -> the reason it goes back to ghost, for each error that points to lifted sites."""
    out: dict[tuple[str, int], str] = {}
    for e in errors:
        file = copy.shown(e.file)
        if file is None or file not in copy.parsed:
            continue
        offset = offset_of(copy.texts[file], e.line, e.col)
        inside = [s for s in lifted if s.file == file and s.decl.start <= offset < max(s.decl.end, s.decl.start + 1)]
        if inside:
            site = min(inside, key=lambda s: s.decl.end - s.decl.start)
            out.setdefault(site.key, e.message)
            continue
        for names in _names_around(copy.parsed[file], offset):
            hits = [s for s in lifted if s.short_names & names]
            if hits:
                for s in hits:
                    out.setdefault(s.key, f"{e.message} ({file}:{e.line})")
                break
    return out


def _names_around(program: ast.Program, offset: int) -> list[frozenset[str]]:
    """The names each node around `offset` mentions, the innermost first, up to (not including) the
    member it is in: the statement or clause an error points into says what it is about."""
    chain = [n for n in ast.preorder(program) if n.span.start <= offset < n.span.end and n.span.end > n.span.start]
    chain.sort(key=lambda n: n.span.end - n.span.start)
    out = []
    for n in chain:
        if isinstance(n, (ast.Declared, ast.Program)):
            break
        out.append(frozenset(x.name for x in ast.preorder(n) if isinstance(x, (ast.Name, ast.MemberSelect, ast.PatVar))))
    return out

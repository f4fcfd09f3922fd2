"""Where a declaration begins and ends, without the grammar: what the parser skips when it cannot read one.

A file's outline is its declarations at each level (the file, a module's body, a class's, trait's or
datatype's members) as regions of the text, found from the tokens alone: brace, parenthesis and bracket
depth, declaration keywords and the modifiers and attributes before them. The regions of a level cover
it: a declaration runs to the next one (or to its container's closing brace), and text between a
container's `}` and the next declaration is a region of its own. So whatever the parser stops at lies in
one region, the declaration it belongs to, which can be blanked and the rest read again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# words that begin a declaration (`var` only in a class or trait, and only before `name:`)
_STARTS = frozenset({"module", "import", "export", "class", "trait", "datatype", "codatatype", "type", "newtype",
                     "method", "lemma", "constructor", "function", "predicate", "colemma", "copredicate",
                     "iterator", "const", "var", "include", "twostate", "least", "greatest", "inductive"})
# words that begin a declaration only before one of these (`least` may also be a name)
_PREFIXES = {"twostate": {"lemma", "function", "predicate"}, "least": {"lemma", "predicate"},
             "greatest": {"lemma", "predicate"}, "inductive": {"lemma", "predicate"}}
# a keyword after one of these words continues the declaration (`function method`, `by method`)
_CONTINUES = {"method": {"function", "predicate", "by"}}
_MODIFIERS = frozenset({"ghost", "static", "abstract", "opaque", "replaceable", "protected"})
_CONTAINERS = frozenset({"module", "class", "trait", "datatype", "codatatype", "type", "newtype"})
_CLASSES = frozenset({"class", "trait"})
_TOKEN = re.compile(r"[A-Za-z_'][A-Za-z0-9_'?]*|[0-9][0-9_]*|\{:|:=|:\||::|\S")


@dataclass(frozen=True)
class Region:
    """One declaration of a level (or text between declarations that is none: kind and name empty)."""

    start: int  # offset of its first token
    end: int  # offset just past it: the next region's start, or its container's closing brace
    kind: str = ""  # its keyword(s): "method", "least predicate", "class", ...
    name: str = ""
    body: tuple[int, int] | None = None  # a container's members: offsets of `{` and of its `}`
    children: tuple[Region, ...] = ()
    modifiers: frozenset[str] = frozenset()  # `ghost`, `static`, ... written before its keyword


def outline(code: str) -> tuple[Region, ...]:
    """The top-level regions of `code` (comment-free, literals blanked: parser._literals_blanked)."""
    tokens = [(m.group(0), m.start()) for m in _TOKEN.finditer(code)]
    regions, _ = _level(tokens, 0, len(code), "")
    return regions


@dataclass
class _OpenRegion:
    """The region being read."""

    start: int
    kind: str = ""
    name: str = ""
    modifiers: tuple[str, ...] = ()
    body: tuple[int, int] | None = None
    children: tuple[Region, ...] = ()

    def closed(self, end: int) -> Region:
        return Region(self.start, end, self.kind, self.name, self.body, self.children, frozenset(self.modifiers))


def _level(tokens: list[tuple[str, int]], i: int, end: int, container: str) -> tuple[tuple[Region, ...], int]:
    """The regions from token i to the `}` closing this level (or the end); returns them and the index of
    that `}`."""
    out: list[Region] = []
    cur: _OpenRegion | None = None
    prefix: int | None = None  # where modifiers or attributes before a declaration began
    mods: list[str] = []  # the modifiers since then
    prev = ""
    n = len(tokens)

    def close(at: int) -> None:
        nonlocal cur
        if cur is not None:
            out.append(cur.closed(at))
            cur = None

    while i < n:
        tok, pos = tokens[i]
        if tok == "}":
            break
        if tok in ("(", "[", "{", "{:"):
            if cur is None:  # text that belongs to no declaration: a region of its own
                cur, prefix = _OpenRegion(prefix if prefix is not None else pos), None
            if tok == "{" and cur.kind in _CONTAINERS and cur.body is None:
                children, j = _level(tokens, i + 1, end, cur.kind)
                close_at = tokens[j][1] if j < n else end
                cur.body, cur.children = (pos, close_at), children
                close(close_at + 1 if j < n else end)
                i, prev = j + 1, "}"
                continue
            i = _skip(tokens, i)
            prev = {"(": ")", "[": "]"}.get(tok, "}")
            continue
        if tok in _MODIFIERS or tok == "@" and _boundary(prev):
            if prefix is None:
                prefix, mods = pos, []
            mods.append(tok)
            if tok == "@":  # `@Name` or `@Name(args)`
                i += 2
                if i < n and tokens[i][0] == "(":
                    i = _skip(tokens, i)
                prev = "@"
                continue
            i, prev = i + 1, tok
            continue
        kind = _keyword(tokens, i, prev, container)
        if kind:
            close(prefix if prefix is not None else pos)
            words = kind.count(" ") + 1
            cur = _OpenRegion(prefix if prefix is not None else pos, kind, _name(tokens, i + words),
                        tuple(mods) if prefix is not None else ())
            prefix = None
            i, prev = i + words, tokens[i + words - 1][0]
            continue
        if cur is None:
            cur = _OpenRegion(prefix if prefix is not None else pos)
        prefix = None
        i, prev = i + 1, tok
    close(tokens[i][1] if i < n else end)
    return tuple(out), i


def _boundary(prev: str) -> bool:
    """Whether a declaration may start after this token (at its level): the start, the end of another
    declaration (`;`, `}`), or modifiers and attributes of its own."""
    return prev in ("", ";", "}", "{", "@", ")") or prev in _MODIFIERS


def _keyword(tokens: list[tuple[str, int]], i: int, prev: str, container: str) -> str:
    """The declaration keyword(s) at token i ("" where none begins)."""
    tok = tokens[i][0]
    if tok not in _STARTS or prev in _CONTINUES.get(tok, ()):
        return ""
    after = tokens[i + 1][0] if i + 1 < len(tokens) else ""
    head = tok
    if tok in _PREFIXES:
        if after not in _PREFIXES[tok]:
            return ""
        head = f"{tok} {after}"
    if head.endswith(("function", "predicate")):  # `function method`, `twostate function method`
        words = head.count(" ") + 1
        return f"{head} method" if i + words < len(tokens) and tokens[i + words][0] == "method" else head
    if tok == "var":  # a field: in a class or trait, after another declaration, before `name:`
        if container not in _CLASSES or not (_boundary(prev) or prev in _MODIFIERS):
            return ""
        j = i + 1
        while j < len(tokens) and tokens[j][0] == "{:":
            j = _skip(tokens, j)
        return "var" if j + 1 < len(tokens) and tokens[j + 1][0] == ":" else ""
    return head


def _name(tokens: list[tuple[str, int]], i: int) -> str:
    """The name after a declaration's keyword(s), past its attributes (`method {:axiom} M`)."""
    while i < len(tokens) and tokens[i][0] == "{:":
        i = _skip(tokens, i)
    if i < len(tokens) and (tokens[i][0][0].isalnum() or tokens[i][0][0] in "_'"):
        name = tokens[i][0]
        while i + 2 < len(tokens) and tokens[i + 1][0] == "." and tokens[i + 2][0][0].isalpha():
            name, i = f"{name}.{tokens[i + 2][0]}", i + 2
        if name == "opened":  # `import opened M`
            return _name(tokens, i + 1)
        return "" if name in ("provides", "reveals", "extends") else name  # `export provides f`
    return ""


def _skip(tokens: list[tuple[str, int]], i: int) -> int:
    """The index past the group that opens at token i (balanced brackets of any kind)."""
    depth = 0
    while i < len(tokens):
        tok = tokens[i][0]
        if tok in ("(", "[", "{", "{:"):
            depth += 1
        elif tok in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def culprit(regions: tuple[Region, ...], pos: int, skipped: frozenset[int]) -> Region | None:
    """The region the parser's error at offset `pos` belongs to, innermost first. An error at the first
    token of a declaration is the previous one's (it did not end); a region skipped already is not chosen
    again, and an error in (or after) one skipped is the last one before it's (that one did not end: the
    parser read the skipped one's first words as its own)."""
    live = [r for r in regions if r.start not in skipped]
    found = next((r for r in live if r.start < pos <= r.end), None) \
        or next((r for r in live if r.start <= pos < r.end), None) \
        or next((r for r in reversed(live) if r.start < pos), None)
    if found is None:
        return None
    if found.body is not None and found.body[0] < pos <= found.body[1]:
        inner = culprit(found.children, pos, skipped)
        if inner is not None:
            return inner
    return found

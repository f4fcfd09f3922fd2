"""Dafny source text to `ast.Program`: lark LALR over dafny.lark, then the `transform.ToAst` Transformer.

Two small steps make Dafny fit LALR(1):
- comments (nested `/* */` too) are blanked to spaces first, so offsets, lines and columns stay exact;
- a few tokens map to several terminals (`|`, `<`, `;`, `{`, `,`, `@`, `=>`, `reads`, `requires`); the
  lexer asks the automaton which of them it can take next (a stack-only trial run) and, where several
  fit, prefers one by a fixed order or a short look at the text: for `<` after a name, the way Dafny's
  own parser does (a type list, then `>`, then a token that may follow an instantiation).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.lexer import ContextualLexer
from lark.parsers.lalr_analysis import Shift

from dspec2test.dafny import ast as A
from dspec2test.dafny.recover import Region, culprit, outline
from dspec2test.dafny.transform import ToAst
from dspec2test.errors import Diagnostic, DspecError

GRAMMAR = Path(__file__).with_name("dafny.lark")


class ParseError(DspecError):
    """A located, one-line reason why a Dafny file does not parse."""


# ---------------------------------------------------------------- comments

_INTERESTING = re.compile(r"//|/\*|@\"|\"|'")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_VERBATIM = re.compile(r'@"(?:[^"]|"")*"')
_CHAR = re.compile(r"'(?:[^'\\\n]|\\(?:['\"\\0nrt]|u[0-9A-Fa-f]{4}|U\{[0-9A-Fa-f_]{1,8}\}))'")
_COMMENT_EDGE = re.compile(r"/\*|\*/")
_IDCHAR = re.compile(r"[A-Za-z0-9_'?]")


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def strip_comments(text: str) -> str:
    """The text with every comment replaced by spaces (newlines kept); strings and chars left alone."""
    out: list[str] = []
    pos = 0
    n = len(text)
    while True:
        m = _INTERESTING.search(text, pos)
        if not m:
            out.append(text[pos:])
            return "".join(out)
        start = m.start()
        kind = m.group(0)
        if kind == "//":
            end = text.find("\n", start)
            end = n if end < 0 else end
            out.append(text[pos:start])
            out.append(" " * (end - start))
            pos = end
        elif kind == "/*":
            depth, i = 1, start + 2
            while depth:
                e = _COMMENT_EDGE.search(text, i)
                if not e:
                    line, col = _line_col(text, start)
                    raise ParseError("unterminated comment", line, col)
                depth += 1 if e.group(0) == "/*" else -1
                i = e.end()
            out.append(text[pos:start])
            out.append(_blank(text[start:i]))
            pos = i
        else:
            lit = None
            if kind == "'":
                # A prime inside an identifier (x') is not a character literal.
                if start == 0 or not _IDCHAR.match(text, start - 1):
                    lit = _CHAR.match(text, start)
            else:
                lit = (_VERBATIM if kind == '@"' else _STRING).match(text, start)
            end = lit.end() if lit else start + 1
            out.append(text[pos:end])
            pos = end


# ---------------------------------------------------------------- lexer


# For each source character with several terminals: the candidates in order of preference.
_CHOICES: dict[str, tuple[str, ...]] = {
    "|": ("_BAR", "_CARD_CLOSE", "BITOR", "_CARD_OPEN"),
    "=>": ("_CASE_ARROW", "_SPEC_ARROW", "_LAMBDA_ARROW"),
    "reads": ("READS", "_LAMBDA_READS", "_FIRST_READS"),
    "requires": ("REQUIRES", "_LAMBDA_REQUIRES", "_FIRST_REQUIRES"),
    ";": ("_SEMI", "_CHAIN_SEMI"),
    "{": ("_LBRACE", "_SET_OPEN"),
    "<": ("LESS", "_TYPE_LT"),
    ",": ("_COMMA", "_QCOMMA"),
    "@": ("_AT", "_DECL_AT"),
    "ghost": ("GHOST", "_GHOST_ARG"),
}
_TYPE_TOKEN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_'?]*|-->|->|~>|==|!=|=>|\S)")
# Dafny's list, plus what may follow a type (`x: seq<int> | P`, `:=`, `::`, clause keywords): a comparison
# chain cannot continue with these, so reading them as the end of a type list is safe.
_AFTER_GENERIC = {".", "(", "[", "{", "@", ")", "]", "}", ",", ";", "then", "else", "case", "==", "!=", "as",
                  "is", "=>", "<", ">", "", "|", ":", "-->", "->", "~>", "reads", "requires", "ensures",
                  "decreases", "modifies", "returns", "witness", "invariant", "method", "lemma", "function",
                  "predicate", "ghost", "static", "class", "trait", "datatype", "codatatype", "type", "newtype",
                  "const", "module", "import", "export", "constructor", "twostate", "least", "greatest",
                  "iterator", "include", "opaque", "abstract", "by", "to", "downto"}


# After `set x | P(x),` (or `set i, j, k | ...`) further bound variables look like `y:`, `y <-`, `y |`,
# `y {:` or `y ::`, possibly after more untyped names `y, z, w |`.
_QVAR_AHEAD = re.compile(r"(?:\s*[A-Za-z_][A-Za-z0-9_'?]*\s*,)*\s*[A-Za-z_][A-Za-z0-9_'?]*\s*(:(?![=|])|<-|\||\{:)")


_VAR_AHEAD = re.compile(r"\s*var(?![A-Za-z0-9_'?])")


def _can_shift(states: dict[Any, Any], stack: list[Any], term: str) -> bool:
    """Would the LALR automaton accept `term` next? Replays only the reductions, without copying the stack."""
    depth = len(stack)  # stack[:depth] is what is left of the real stack
    pushed: list[Any] = []  # states the replayed reductions pushed on top of it
    top = stack[-1]
    while True:
        action = states[top].get(term)
        if action is None:
            return False
        kind, rule = action
        if kind is Shift:
            return True
        size = len(rule.expansion)
        if size <= len(pushed):
            del pushed[len(pushed) - size :]
        else:
            depth -= size - len(pushed)
            pushed.clear()
        below = pushed[-1] if pushed else stack[depth - 1]
        top = states[below][rule.origin.name][1]
        pushed.append(top)


def looks_generic(text: str, pos: int) -> bool:
    """Dafny's rule for `name<...`: a type list closed by `>` and followed by a token that fits."""
    tokens: list[str] = []
    i = pos + 1
    while len(tokens) < 80:
        m = _TYPE_TOKEN.match(text, i)
        if not m:
            tokens.append("")
            break
        tokens.append(m.group(1))
        i = m.end()

    def type_at(k: int) -> int:
        tok = tokens[k] if k < len(tokens) else ""
        if tok == "(":
            k += 1
            if tokens[k] != ")":
                k = types_at(k)
                if k < 0 or tokens[k] != ")":
                    return -1
            k += 1
        elif tok[:1].isalpha() or tok[:1] == "_":
            k += 1
            while k + 1 < len(tokens) and tokens[k] == "." and tokens[k + 1][:1].isalpha():
                k += 2
            if k < len(tokens) and tokens[k] == "<":
                k = types_at(k + 1)
                if k < 0 or tokens[k] != ">":
                    return -1
                k += 1
        else:
            return -1
        if k < len(tokens) and tokens[k] in ("->", "-->", "~>"):
            return type_at(k + 1)
        return k

    def types_at(k: int) -> int:
        k = type_at(k)
        while k >= 0 and k < len(tokens) and tokens[k] == ",":
            k = type_at(k + 1)
        return k if k < len(tokens) else -1

    end = types_at(0)
    if end < 0 or tokens[end] != ">":
        return False
    follow = tokens[end + 1] if end + 1 < len(tokens) else ""
    return follow in _AFTER_GENERIC


class _DafnyLexer(ContextualLexer):
    """The contextual lexer, plus a choice among terminals that share a character (see module doc)."""

    def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Token]:
        states = parser_state.parse_conf.states
        for tok in super().lex(lexer_state, parser_state):
            if tok.type == "REAL" and tok.value[0] == "." and _can_shift(states, parser_state.state_stack, "DOT"):
                # `t.0` selects a tuple's component: a real `.0` cannot follow an operand
                yield Token.new_borrow_pos("DOT", ".", tok)
                digits = Token("DIGITS", tok.value[1:], (tok.start_pos or 0) + 1, tok.line, (tok.column or 0) + 1,
                               tok.end_line, tok.end_column, tok.end_pos)
                yield digits
                continue
            choices = _CHOICES.get(tok.value)
            if choices:
                accepted = states[parser_state.position]
                fitting = [c for c in choices if c in accepted]
                if len(fitting) > 1:
                    fitting = [c for c in fitting if _can_shift(states, parser_state.state_stack, c)] or fitting
                if len(fitting) > 1 and tok.value == "<":
                    fitting = ["_TYPE_LT" if looks_generic(lexer_state.text, tok.start_pos or 0) else "LESS"]
                elif len(fitting) > 1 and tok.value == "@":
                    # `f@L(x)` is written tight; an attribute starts its own line or follows a space.
                    at_word_start = not tok.start_pos or lexer_state.text[tok.start_pos - 1].isspace()
                    fitting = ["_DECL_AT" if at_word_start else "_AT"]
                elif len(fitting) > 1 and tok.value == ",":
                    fitting = ["_QCOMMA" if _QVAR_AHEAD.match(lexer_state.text, tok.end_pos or 0) else "_COMMA"]
                elif len(fitting) > 1 and tok.value == "ghost":
                    # `(ghost var x := e; x)` is a ghost let; `(ghost e, ...)` a tuple's ghost item
                    fitting = ["GHOST" if _VAR_AHEAD.match(lexer_state.text, tok.end_pos or 0) else "_GHOST_ARG"]
                if fitting and fitting[0] != tok.type:
                    tok = Token.new_borrow_pos(fitting[0], tok.value, tok)
            yield tok


@functools.lru_cache(maxsize=1)
def dafny_parser() -> Lark:
    """The Lark object, built once per process (the LALR tables are cached on disk by lark)."""
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
        cache=True,
        _plugins={"ContextualLexer": _DafnyLexer},
    )


# ---------------------------------------------------------------- errors

_FRIENDLY = {
    "NAME": "identifier", "DIGITS": "number", "HEX": "number", "REAL": "real number", "CHAR": "character",
    "STRING": "string", "VERBATIM": "string", "$END": "end of file", "_SEMI": "';'", "_CHAIN_SEMI": "';'",
    "_LBRACE": "'{'", "_SET_OPEN": "'{'", "_BAR": "'|'", "BITOR": "'|'", "_CARD_OPEN": "'|'",
    "_CARD_CLOSE": "'|'", "LESS": "'<'", "_TYPE_LT": "'<'",
}
_MAX_EXPECTED = 8


def _describe(term: str) -> str:
    if term in _FRIENDLY:
        return _FRIENDLY[term]
    pattern = dafny_parser().get_terminal(term).pattern
    if pattern.type == "str":
        return f"'{pattern.value}'"
    return term.lower()


def _friendly(err: UnexpectedInput) -> str:
    if isinstance(err, UnexpectedToken):
        if err.token.type == "$END":
            return "unexpected end of file"
        expected = sorted({_describe(t) for t in err.expected})
        shown = ", ".join(expected[:_MAX_EXPECTED]) + (", ..." if len(expected) > _MAX_EXPECTED else "")
        return f"unexpected '{err.token}', expected one of {shown}" if expected else f"unexpected '{err.token}'"
    if isinstance(err, UnexpectedCharacters):
        return f"unexpected character {err.char!r}"
    if isinstance(err, UnexpectedEOF):
        return "unexpected end of file"
    return str(err).splitlines()[0]


# ---------------------------------------------------------------- public API


def parse_program(text: str, path: str, recover: bool = False) -> A.Program:
    """Parse Dafny source; raises ParseError(message, line, col) with a one-line reason.

    With `recover`, a declaration the parser cannot read is skipped instead (to the next declaration of its
    module, class or file: dafny/recover.py) and kept as an `ast.Unreadable` with the error; the error is
    raised only when no declaration can be blamed (an unbalanced brace, say)."""
    nul = text.find("\0")
    if nul >= 0:
        line, col = _line_col(text, nul)
        raise ParseError("binary data (NUL byte): not a Dafny source file", line, col)
    clean = strip_comments(text)
    if not recover:
        return _parse(text, clean, path)
    return _recovering(text, clean, path)


def _recovering(text: str, clean: str, path: str) -> A.Program:
    """The program with each declaration the parser stops at blanked (same offsets, same lines) and read
    again, until the rest reads; the blanked ones come back as `ast.Unreadable` in their places."""
    skipped: list[tuple[Region, ParseError]] = []
    restored: set[int] = set()  # regions skipped, then read again: a neighbour was the one that did not end
    regions: tuple[Region, ...] | None = None
    current = clean
    first: ParseError | None = None
    while True:
        try:
            program = _parse(text, current, path)
            break
        except ParseError as err:
            first = first or err
            if regions is None:
                regions = outline(_literals_blanked(clean))
            blamed = culprit(regions, offset_of(text, err.line, err.col), frozenset(r.start for r, _ in skipped))
            if blamed is None or len(skipped) >= _MAX_SKIPPED:
                raise first from None
            last = skipped[-1][0] if skipped else None
            if last is not None and blamed.end == last.start and last.start not in restored:
                # the one before the last skipped did not end (the parser took the next one's first words for
                # its own and stopped there): that one may read once this one is skipped
                restored.add(last.start)
                err = skipped.pop()[1]  # where the parser first stopped, for this one's message
            skipped.append((blamed, err))
            current = clean
            for region, _ in skipped:
                current = current[:region.start] + _blank(current[region.start:region.end]) + current[region.end:]
    decls = program.decls
    for region, why in skipped:
        decls = _placed(decls, _unreadable(text, region, why))
    return replace(program, decls=decls)


# declarations skipped in one file before it counts as unreadable as a whole (each costs a parse of the file;
# a file with more is in a dialect the grammar does not read at all)
_MAX_SKIPPED = 64


def offset_of(text: str, line: int, col: int) -> int:
    """The character offset of a 1-based line and column (as Dafny's and lark's messages give them)."""
    pos = 0
    for _ in range(line - 1):
        nxt = text.find("\n", pos)
        if nxt < 0:
            return len(text)
        pos = nxt + 1
    return min(pos + max(col - 1, 0), len(text))


def _unreadable(text: str, region: Region, err: ParseError) -> A.Unreadable:
    end = len(text[:region.end].rstrip())
    line, col = _line_col(text, region.start)
    end_line, end_col = _line_col(text, end)
    return A.Unreadable(region.kind, region.name, err.message, err.line, err.col, "ghost" in region.modifiers,
                        span=A.Span(line, col, end_line, end_col, region.start, end))


_MEMBERS = {A.Module: "decls", A.ClassDecl: "members", A.Datatype: "members", A.TypeSynonym: "members",
            A.Newtype: "members"}


def _placed(decls: tuple[A.Decl, ...], item: A.Unreadable) -> tuple[A.Decl, ...]:
    """The declarations with `item` among them in text order, inside the container whose text holds it."""
    at = item.span.start
    for k, d in enumerate(decls):
        inner = _MEMBERS.get(type(d))
        if inner is not None and d.span.start <= at < d.span.end:
            placed = _placed(getattr(d, inner), item)
            return decls[:k] + (replace(d, **{inner: placed}),) + decls[k + 1:]
    k = next((k for k, d in enumerate(decls) if d.span.start > at), len(decls))
    return decls[:k] + (item,) + decls[k:]


def _parse(text: str, clean: str, path: str) -> A.Program:
    try:
        tree = dafny_parser().parse(clean)
    except UnexpectedInput as err:
        line, col = getattr(err, "line", 0), getattr(err, "column", 0)
        if isinstance(err, UnexpectedToken) and err.token.type == "$END":
            line, col = _line_col(text, len(text.rstrip()))
        raise ParseError(_friendly(err), max(line, 1), max(col, 1)) from None
    try:
        return ToAst(text, path).transform(tree)
    except VisitError as err:
        inner = err.orig_exc
        if isinstance(inner, DspecError):
            raise ParseError(inner.message, inner.line, inner.col) from None
        meta = getattr(err.obj, "meta", None)
        line, col = (meta.line, meta.column) if meta is not None and not meta.empty else (1, 1)
        raise ParseError(f"cannot read {err.rule}: {inner}", line, col) from None


_MODULE_HEAD = re.compile(r"\bmodule\s+(?:\{:[^}]*\}\s*)*([A-Za-z_][A-Za-z0-9_'?.]*)")


def _literals_blanked(clean: str) -> str:
    """Comment-free text with string and char literals blanked too (their braces are not the code's)."""
    out: list[str] = []
    pos = 0
    for m in re.finditer(r"@\"|\"|'", clean):
        if m.start() < pos:
            continue
        kind = m.group(0)
        if kind == "'":
            if m.start() > 0 and _IDCHAR.match(clean, m.start() - 1):
                continue  # a prime in an identifier
            lit = _CHAR.match(clean, m.start())
        else:
            lit = (_VERBATIM if kind == '@"' else _STRING).match(clean, m.start())
        if lit:
            out.append(clean[pos:lit.start()])
            out.append(_blank(lit.group(0)))
            pos = lit.end()
    out.append(clean[pos:])
    return "".join(out)


def module_chunks(text: str) -> list[tuple[str, int, str]]:
    """The top-level modules of a library's text as (name, first line, text from the end of the previous
    one), so that each can be parsed alone: a module whose syntax we do not read costs that module only
    (Dafny's standard library, which new syntax reaches first)."""
    code = _literals_blanked(strip_comments(text))
    out: list[tuple[str, int, str]] = []
    depth, start, pos = 0, 0, 0
    while pos < len(code):
        ch = code[pos]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and ch == "m" and (head := _MODULE_HEAD.match(code, pos)) and (
                pos == 0 or not _IDCHAR.match(code, pos - 1)):
            brace = code.find("{", head.end())
            if brace < 0:
                break
            level, end = 0, brace
            while end < len(code):
                level += {"{": 1, "}": -1}.get(code[end], 0)
                end += 1
                if level == 0:
                    break
            out.append((head.group(1), text.count("\n", 0, start) + 1, text[start:end]))
            start = pos = end
            continue
        pos += 1
    return out


def read_source(path: str) -> str:
    """The file's text; ParseError for missing files and undecodable (binary) bytes."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ParseError("no such file", 1, 1) from None
    except OSError as err:
        raise ParseError(f"cannot read file: {err.strerror}", 1, 1) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line, col = _line_col(data[: err.start].decode("utf-8", "replace"), err.start)
        raise ParseError(f"not UTF-8 text (byte 0x{data[err.start]:02x}): not a Dafny source file", line, col) from None


def parse_file(path: str, recover: bool = True) -> A.Program | Diagnostic:
    """Parse a file, skipping the declarations it cannot read (`parse_program`'s recover); a located
    Diagnostic instead of an exception when it cannot be read or parsed at all."""
    try:
        return parse_program(read_source(path), path, recover)
    except ParseError as err:
        return Diagnostic(path, err.line, err.col, err.message)


_CALLABLES = (A.Method, A.Function)
_CONTAINERS = (A.ClassDecl, A.Datatype, A.TypeSynonym, A.Newtype)  # declarations with members


def iter_members(program: A.Program) -> Iterator[tuple[str, A.Method | A.Function]]:
    """Methods, functions, predicates and lemmas anywhere in the program, with `Module.Class.name` names."""
    return iter_declared(program, _CALLABLES)


def iter_declared(program: A.Program, kinds: tuple[type, ...]) -> Iterator[tuple[str, Any]]:
    """The declarations of these kinds anywhere in the program (in modules, classes, datatypes and types
    with members), with `Module.Class.name` names (an anonymous constructor is `_ctor`)."""

    def walk(decls: tuple[Any, ...], prefix: str) -> Iterator[tuple[str, Any]]:
        for decl in decls:
            if isinstance(decl, kinds):
                yield prefix + (decl.name or "_ctor"), decl
            elif isinstance(decl, A.Module):
                yield from walk(decl.decls, f"{prefix}{decl.name}.")
            elif isinstance(decl, _CONTAINERS):
                yield from walk(decl.members, f"{prefix}{decl.name}.")

    yield from walk(program.decls, "")


def iter_unreadable(program: A.Program) -> Iterator[tuple[str, A.Unreadable]]:
    """The declarations the parser skipped, anywhere in the program, with `Module.Class.name` names (the
    container's name with `#line` where the declaration's own name was not found)."""

    def walk(decls: tuple[Any, ...], prefix: str) -> Iterator[tuple[str, A.Unreadable]]:
        for decl in decls:
            if isinstance(decl, A.Unreadable):
                yield prefix + decl.member_name, decl
            elif isinstance(decl, A.Module):
                yield from walk(decl.decls, f"{prefix}{decl.name}.")
            elif isinstance(decl, _CONTAINERS):
                yield from walk(decl.members, f"{prefix}{decl.name}.")

    yield from walk(program.decls, "")

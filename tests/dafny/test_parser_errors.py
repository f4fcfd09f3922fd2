"""Bad input: located one-line errors, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.dafny.parser import ParseError, parse_file, parse_program
from dspec2test.errors import Diagnostic, DspecError

FIXTURES = Path(__file__).parent / "fixtures"


def error_of(src: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_program(src, "bad.dfy")
    return info.value


def test_truncated_file_is_unexpected_end_of_file() -> None:
    err = error_of("method M(x: int)\n  requires x >\n")
    assert err.message == "unexpected end of file"
    assert (err.line, err.col) == (2, 15)
    assert isinstance(err, DspecError)


def test_unknown_construct_names_the_token_and_the_expectations() -> None:
    err = error_of("method M() {\n  x := 1;\n  frobnicate x;\n}\n")
    assert (err.line, err.col) == (3, 14)
    assert err.message.startswith("unexpected 'x', expected one of ")
    assert "\n" not in err.message


def test_expected_list_is_trimmed() -> None:
    err = error_of("method M() { x := ; }")
    assert err.message.endswith(", ...")
    assert len(err.message) < 200


def test_unterminated_comment() -> None:
    err = error_of("method M() { }\n/* open /* nested */ never closed\n")
    assert err.message == "unterminated comment" and (err.line, err.col) == (2, 1)


def test_nul_byte_is_binary() -> None:
    err = error_of("method M() { }\x00\x01")
    assert "binary" in err.message


def test_parse_file_returns_diagnostics(tmp_path: Path) -> None:
    binary = tmp_path / "b.dfy"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    diag = parse_file(str(binary))
    assert isinstance(diag, Diagnostic) and "not UTF-8" in diag.message
    missing = parse_file(str(tmp_path / "nope.dfy"))
    assert isinstance(missing, Diagnostic) and missing.message == "no such file"
    trunc = parse_file(str(FIXTURES / "truncated.dfy"), recover=False)
    assert isinstance(trunc, Diagnostic)
    assert trunc.render() == f"{FIXTURES / 'truncated.dfy'}:2:15: error: unexpected end of file"
    # read with recovery, the file is its one declaration, which could not be read
    (skipped,) = parse_file(str(FIXTURES / "truncated.dfy")).decls
    assert (skipped.kind, skipped.name, skipped.message, skipped.error_line) == ("method", "M", "unexpected end of file", 2)


def test_lambda_parameter_must_be_a_name() -> None:
    err = error_of("function f(): int { (1, 2) => 3 }")
    assert err.message == "lambda parameter must be a name" and err.line == 1

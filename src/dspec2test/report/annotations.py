"""GitHub workflow commands: `::error file=F,line=L,title=T::message`, escaped as the runner expects."""

from __future__ import annotations

from typing import Iterable

from dspec2test.action.findings import Finding, facts, headline


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **properties: object) -> str:
    props = ",".join(f"{k}={escape_property(str(v))}" for k, v in properties.items() if v not in (None, ""))
    return f"::{kind}{' ' + props if props else ''}::{escape_data(message)}"


def annotations(findings: Iterable[Finding]) -> list[str]:
    lines = []
    for f in findings:
        body = "\n".join(f"{name}: {value}" for name, value in facts(f))
        lines.append(command("error", body, file=f.file, line=f.line, title=f"dspec2test: {headline(f)}"))
    return lines

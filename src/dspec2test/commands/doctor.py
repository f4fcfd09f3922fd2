"""`dspec2test doctor`: versions of everything the pipeline needs; non-zero naming what is missing."""

from __future__ import annotations

import argparse
import importlib.metadata
import platform
import re
from dataclasses import dataclass
from typing import TextIO

from dspec2test.toolchain import DAFNY_VERSION, DAFNY_Z3_VERSION, find_toolchain, tool_version, z3_version


Z3_FOR_DAFNY = "z3 (dafny verifies)"


@dataclass(frozen=True)
class Requirement:
    name: str
    version: str | None
    minimum: str
    exact: bool = False

    @property
    def problem(self) -> str | None:
        if self.version is None:
            return "missing"
        have, want = _numbers(self.version), _numbers(self.minimum)
        if self.exact and have[: len(want)] != want:
            return f"is {self.version}, need {self.minimum}"
        if not self.exact and have < want:
            return f"is {self.version}, need >= {self.minimum}"
        return None


def _numbers(text: str) -> tuple[int, ...]:
    # Prefer a dotted version: "Z3 version 4.8.12" must not read as 3.
    match = re.search(r"\d+(?:\.\d+)+", text) or re.search(r"\d+", text)
    return tuple(int(p) for p in match.group(0).split(".")) if match else ()


def _dist_version(*names: str) -> str | None:
    for name in names:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _z3_binding() -> str | None:
    try:
        import z3
    except ImportError:
        return None
    return z3.get_version_string()


def collect() -> list[Requirement]:
    tools = find_toolchain()
    dafny = tool_version([tools.dafny, "--version"], tools.dafny_env()) if tools.dafny else None
    z3 = z3_version(tools.z3)
    z3_exe = f"{z3} ({tools.z3})" if z3 else None
    return [
        Requirement("dafny", dafny and dafny.split("+")[0], DAFNY_VERSION, exact=True),
        Requirement(Z3_FOR_DAFNY, z3_exe, "4.8.5"),
        Requirement("python", platform.python_version(), "3.11"),
        Requirement("z3 python binding", _z3_binding() or _dist_version("z3-solver"), "4.8.12"),
        Requirement("lark", _dist_version("lark", "lark-parser"), "1.1.5"),
        Requirement("PyGithub", _dist_version("PyGithub"), "1.55"),
        Requirement("junit-xml", _dist_version("junit-xml", "junit_xml"), "1.9"),
        Requirement("pyyaml", _dist_version("PyYAML", "pyyaml"), "6.0"),
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    del args
    checks = collect()
    for check in checks:
        status = "ok" if check.problem is None else check.problem
        out.write(f"{check.name:<20} {check.version or '-':<28} {status}\n")
    dafny_z3 = next((c for c in checks if c.name == Z3_FOR_DAFNY), None)
    if dafny_z3 and dafny_z3.version and _numbers(dafny_z3.version) < _numbers(DAFNY_Z3_VERSION):
        out.write(f"note: Dafny verifies with this Z3; Dafny {DAFNY_VERSION}'s own releases carry Z3 "
                  f"{DAFNY_Z3_VERSION}, with which some programs verify that do not verify with this one "
                  "(scripts/fetch-z3.sh gets it where GitHub is reachable)\n")
    bad = [c for c in checks if c.problem]
    if bad:
        err.write("doctor: " + "; ".join(f"{c.name} {c.problem}" for c in bad) + "\n")
        return 1
    return 0

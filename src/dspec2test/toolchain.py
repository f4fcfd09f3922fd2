"""Where the external tools are, and the environment they run in.

dafny is looked up beside the running interpreter first (scripts/setup.sh links it into the venv's
bin/), then through $DSPEC2TEST_DAFNY, then on PATH. Z3 for Dafny's verifier: $DSPEC2TEST_Z3, then
beside the interpreter (setup links the Z3 4.12.1 of Dafny's releases there when it has it), then PATH;
it is passed with --solver-path so that the one doctor and the job summary report is the one used.

Every process that compiles or runs the code under test (dafny, the compiled tests, git in the
checkout) gets `untrusted_env()`: a pull request's code must never have a token in reach.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

DAFNY_VERSION = "4.11.0"
TARGETS = ("py", "cs", "js", "go", "java")  # Dafny compilation targets the tests can run on
# py: its verdicts matched cs on every mutant of the paper set, and a run is several times faster (no C#
# build; our driver goes on after a crash or hang without compiling again).
DEFAULT_TARGET = "py"
DAFNY_Z3_VERSION = "4.12.1"  # the Z3 that Dafny 4.11's own releases carry and verify with

# GitHub's tokens and the runner's: the job's token, OIDC and the runtime (cache, artifacts) credentials.
SECRET_VARIABLES = frozenset({
    "GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RUNTIME_URL", "ACTIONS_RESULTS_URL", "ACTIONS_CACHE_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
})
TOKEN_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")  # GitHub's token formats


SECRET_WORDS = frozenset({"TOKEN", "TOKENS", "SECRET", "SECRETS", "KEY", "KEYS", "PASSWORD", "PAT",
                          "CREDENTIALS", "AUTH"})  # parts of an input's name that say it holds a secret


def untrusted_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without anything that could let the code under test act as the workflow: the variables
    above, every action input (`INPUT_*`: the tested code never needs them, and any may hold a secret),
    and any variable holding a secret's value under another name, or a value shaped like a token."""
    removed = {name for name in env if name in SECRET_VARIABLES or name.startswith("INPUT_")}
    secrets = {env[name] for name in removed
               if len(env[name]) >= 8 and (name in SECRET_VARIABLES or SECRET_WORDS & set(name.split("_")))}
    return {name: value for name, value in env.items()
            if name not in removed and value not in secrets and not value.startswith(TOKEN_PREFIXES)}


@dataclass(frozen=True)
class Toolchain:
    dafny: str | None
    z3: str | None

    def dafny_env(self) -> dict[str, str]:
        """Environment for dafny subprocesses (and the tests they run): no secrets, quiet .NET, newer
        runtime allowed."""
        env = untrusted_env(os.environ)
        env.setdefault("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        env.setdefault("DOTNET_NOLOGO", "1")
        env.setdefault("DOTNET_ROLL_FORWARD", "Major")
        env.setdefault("DOTNET_SKIP_FIRST_TIME_EXPERIENCE", "1")
        if self.z3:
            # Dafny's Python target and verifier both look things up on PATH.
            env["PATH"] = os.pathsep.join([str(Path(self.z3).parent), env.get("PATH", "")])
        return env

    def solver_args(self) -> list[str]:
        return ["--solver-path", self.z3] if self.z3 else []


def find_toolchain() -> Toolchain:
    return Toolchain(dafny=_find_dafny(), z3=_find_z3())


def _find_dafny() -> str | None:
    beside = Path(sys.executable).parent / "dafny"
    if beside.exists() and os.access(beside, os.X_OK):
        return str(beside)
    env = os.environ.get("DSPEC2TEST_DAFNY")
    if env:
        return env
    return shutil.which("dafny")


def _find_z3() -> str | None:
    env = os.environ.get("DSPEC2TEST_Z3")
    if env:
        return env
    beside = Path(sys.executable).parent / "z3"
    if beside.exists() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("z3")


def z3_version(z3: str | None) -> str | None:
    """The dotted version the Z3 executable reports ("4.12.1"), or None if it cannot be run."""
    line = tool_version([z3, "--version"]) if z3 else None
    match = re.search(r"\d+(?:\.\d+)+", line or "")
    return match.group(0) if match else None


def tool_version(argv: list[str], env: dict[str, str] | None = None) -> str | None:
    """First line a tool prints for its version flag, or None if it cannot be run."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                              env=untrusted_env(os.environ) if env is None else env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (proc.stdout or proc.stderr).strip()
    if proc.returncode != 0 or not text:
        return None
    return text.splitlines()[0].strip()


def z3_description(z3: str | None) -> str:
    """Which Z3 Dafny's verifier uses, for doctor and the job summary: "Z3 4.12.1 (/path/to/z3)"."""
    if not z3:
        return "no Z3 found (set DSPEC2TEST_Z3 or put z3 on PATH)"
    version = z3_version(z3)
    return f"Z3 {version} ({z3})" if version else f"Z3 of unknown version ({z3}: does not run)"

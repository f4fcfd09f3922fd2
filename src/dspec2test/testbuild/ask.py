"""Asking real Dafny whether a copy of the program builds: the copy written to a temporary folder in the
user's layout, `dafny translate <target>` on it with the program's options (its project file travels
with it), and the errors Dafny printed, naming the files as the copy's relative paths."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dspec2test.errors import Diagnostic, dafny_errors
from dspec2test.toolchain import Toolchain

ASK_TIMEOUT_S = 300.0  # one translation of the copy: far more than any program here takes


@dataclass(frozen=True)
class Answer:
    built: bool  # dafny translated the copy
    errors: tuple[Diagnostic, ...]  # its errors, files named by their paths in the copy
    failure: str = ""  # dafny did not answer (not found, timed out): then nothing can be decided


def ask(tools: Toolchain, texts: Mapping[str, str], inputs: Sequence[str], target: str) -> Answer:
    """Does the program made of `texts` (relative path -> text) build, handed to dafny as `inputs`?"""
    if tools.dafny is None:
        return Answer(False, (), "dafny not found")
    with tempfile.TemporaryDirectory(prefix="dspec2test-testbuild-") as tmp:
        root = Path(tmp) / "program"
        for rel, text in texts.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        argv = [tools.dafny, "translate", target, "--no-verify", "--allow-warnings", *inputs,
                "-o", str(Path(tmp) / "out" / "program")]
        try:
            done = subprocess.run(argv, cwd=root, env=tools.dafny_env(), capture_output=True, text=True,
                                  timeout=ASK_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return Answer(False, (), f"dafny did not translate the copy within {ASK_TIMEOUT_S:g} s")
        except OSError as exc:
            return Answer(False, (), f"cannot run dafny: {exc}")
    output = (done.stdout or "") + (done.stderr or "")
    errors = dafny_errors(output)
    if done.returncode != 0 and not errors:
        tail = " | ".join(line.strip() for line in output.strip().splitlines()[-3:])
        return Answer(False, (), f"dafny failed without an error line: {tail or done.returncode}")
    return Answer(done.returncode == 0 and not errors, errors)

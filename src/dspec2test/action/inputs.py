"""The action's inputs: one table holds name, default and description; action.yml repeats it verbatim.

GitHub passes every declared input as `INPUT_<NAME>` (upper case); outside GitHub they are unset and
the defaults below apply, so `dspec2test action` also runs locally. tests/action checks that
action.yml and README.md agree with this table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Callable, Mapping, TypeVar

from dspec2test.report.gate import FailOn
from dspec2test.toolchain import DEFAULT_TARGET

N = TypeVar("N", int, float)


class Reporter(str, Enum):
    REVIEW = "review"
    CHECK = "check"
    SUMMARY = "summary"
    ANNOTATIONS = "annotations"


TOKEN_EXPRESSION = "${{ github.token }}"


@dataclass(frozen=True)
class InputSpec:
    name: str
    default: str
    description: str


INPUTS: tuple[InputSpec, ...] = (
    InputSpec("github_token", TOKEN_EXPRESSION, "Token for review comments (needs `pull-requests: write`) and check "
              "runs (`checks: write`); never in the environment of the tested code."),
    InputSpec("paths", "**/*.dfy", "Globs of the Dafny files to consider, separated by newlines or commas."),
    InputSpec("config", ".dspec2test.yml", "Path of the configuration file (ignored when it does not exist)."),
    InputSpec("fail_on", "failures", "Fail the step on `failures` (failed, crashed, timeout), on `errors` (anything "
              "not passed, and parse errors in changed files), on `weak` (failures, and a contract that `strength` "
              "finds weak) or `never`."),
    InputSpec("fail_on_empty", "false", "Also fail the step when no affected member got a test."),
    InputSpec("reporter", "review", "`review` (review comments), `check` (a check run), `summary` (job summary "
              "only) or `annotations`."),
    InputSpec("check_name", "dspec2test", "Name of the check run that `reporter: check` creates."),
    InputSpec("junit_path", "dspec2test-junit.xml", "Where to write the JUnit report (empty: none)."),
    InputSpec("sarif_path", "dspec2test.sarif", "Where to write the SARIF 2.1.0 report (empty: none)."),
    InputSpec("json_path", "dspec2test-results.json", "Where to write the results as JSON (empty: none)."),
    InputSpec("summary_path", "dspec2test-summary.md", "Where to write the job summary as a file too (empty: none)."),
    InputSpec("bva", "false", "Boundary values: `false`, `true`, or the extreme N used where unbounded."),
    InputSpec("fdnf", "false", "Full DNF partitioning instead of Safe DNF."),
    InputSpec("simplify", "false", "Expect concrete outputs where the contract makes them unique."),
    InputSpec("repeat", "1", "Solutions per partition (without bva)."),
    InputSpec("strength", "false", "Contract strength: mutants of each affected member that Dafny still verifies and "
              "that compute something else, reported as warnings (they fail the step only with `fail_on: weak`)."),
    InputSpec("timeout", "60", "Wall-clock limit in seconds for each `dafny test` run."),
    InputSpec("target", DEFAULT_TARGET, "Dafny compilation target for the tests (`py`, `cs`, `js`, `go`, `java`)."),
    InputSpec("shard", "1/1", "`k/n`: test only the k-th of n deterministic slices of the affected members."),
    InputSpec("results", "", "Publish these results (a json_path file of an earlier run) instead of testing."),
    InputSpec("event_path", "", "Event JSON to use instead of GITHUB_EVENT_PATH (for workflow_run publishing)."),
    InputSpec("write_delay", "1", "Seconds to wait between two write requests to GitHub."),
)

DEFAULTS: dict[str, str] = {spec.name: spec.default for spec in INPUTS}


class InputError(ValueError):
    """A bad input value; the message names the input."""


@dataclass(frozen=True)
class ActionInputs:
    github_token: str  # never printed
    paths: tuple[str, ...]
    config: str
    fail_on: FailOn
    fail_on_empty: bool
    reporter: Reporter
    check_name: str
    junit_path: str
    sarif_path: str
    json_path: str
    summary_path: str
    bva: int | None
    fdnf: bool
    simplify: bool
    repeat: int
    strength: bool
    timeout: float
    target: str
    shard: tuple[int, int]
    results: str
    event_path: str
    write_delay: float
    explicit: frozenset[str]  # inputs whose value differs from the default (they win over the config)


def raw_inputs(env: Mapping[str, str]) -> dict[str, str]:
    """Input values as strings, defaults filled in for the unset ones."""
    values = {}
    for spec in INPUTS:
        value = env.get(f"INPUT_{spec.name.upper()}")
        values[spec.name] = spec.default if value is None else value.strip()
    return values


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    raw = raw_inputs(env)
    token = raw["github_token"]
    if token in ("", TOKEN_EXPRESSION):  # unexpanded outside GitHub: fall back to the usual variable
        token = env.get("GITHUB_TOKEN", "")
    return ActionInputs(
        github_token=token,
        paths=split_list(raw["paths"]) or (DEFAULTS["paths"],),
        config=raw["config"],
        fail_on=_enum(FailOn, "fail_on", raw["fail_on"]),
        fail_on_empty=parse_bool("fail_on_empty", raw["fail_on_empty"]),
        reporter=_enum(Reporter, "reporter", raw["reporter"]),
        check_name=raw["check_name"] or DEFAULTS["check_name"],
        junit_path=raw["junit_path"],
        sarif_path=raw["sarif_path"],
        json_path=raw["json_path"],
        summary_path=raw["summary_path"],
        bva=parse_bva("bva", raw["bva"]),
        fdnf=parse_bool("fdnf", raw["fdnf"]),
        simplify=parse_bool("simplify", raw["simplify"]),
        repeat=parse_int("repeat", raw["repeat"], minimum=1),
        strength=parse_bool("strength", raw["strength"]),
        timeout=parse_float("timeout", raw["timeout"]),
        target=raw["target"] or DEFAULTS["target"],
        shard=parse_shard(raw["shard"]),
        results=raw["results"],
        event_path=raw["event_path"],
        write_delay=parse_float("write_delay", raw["write_delay"], minimum=0.0),
        explicit=frozenset(k for k, v in raw.items() if v != DEFAULTS[k]),
    )


def split_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in re.split(r"[\n,]", text) if part.strip())


def parse_bool(name: str, text: str) -> bool:
    lowered = str(text).strip().lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off", ""):
        return False
    raise InputError(f"input {name}: expected true or false, got {text!r}")


def parse_bva(name: str, text: str) -> int | None:
    """`false` off, `true` the default extreme 100, a number that extreme."""
    lowered = str(text).strip().lower()
    if lowered.isdigit():
        return int(lowered)
    return 100 if parse_bool(name, lowered) else None


def parse_int(name: str, text: str, minimum: int = 0) -> int:
    return _parse_number(name, text, int, "an integer", minimum)


def parse_float(name: str, text: str, minimum: float = 0.001) -> float:
    return _parse_number(name, text, float, "a number of seconds", minimum)


def _parse_number(name: str, text: str, kind: Callable[[str], N], what: str, minimum: N) -> N:
    try:
        value = kind(str(text).strip())
    except ValueError:
        raise InputError(f"input {name}: expected {what}, got {text!r}") from None
    if value < minimum:
        raise InputError(f"input {name}: must be at least {minimum}, got {value}")
    return value


def parse_shard(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "1/1")
    if not match:
        raise InputError(f"input shard: expected k/n (e.g. 2/4), got {text!r}")
    k, n = int(match.group(1)), int(match.group(2))
    if not 1 <= k <= n:
        raise InputError(f"input shard: need 1 <= k <= n, got {text!r}")
    return k, n


def _enum(kind: type[Enum], name: str, text: str):
    try:
        return kind(text.strip().lower())
    except ValueError:
        choices = " | ".join(m.value for m in kind)
        raise InputError(f"input {name}: expected {choices}, got {text!r}") from None

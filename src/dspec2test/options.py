"""Every option, once: its name, default, validation and help, and the doors it comes through.

A door is an action input (action.yml), a key of `.dspec2test.yml`, or a CLI flag. action.yml's inputs,
the configuration reader (action/config.py) and argparse (commands/flags.py) are all derived from
OPTIONS, so an option has one name (the flag is the name with dashes), one default and one validation
everywhere; tests/action/test_options.py checks that action.yml, the README and argparse agree with it.

Precedence is the same through every door: a value *given* (a flag on the command line; an action input
the workflow set, that is its `INPUT_` variable present and non-empty) wins over the configuration file,
which wins over the default. Whether a value was given never depends on the value itself: `bva: false`
set in the workflow beats `bva: true` in the file. That is why action.yml declares every input the
configuration file can also set with an empty default: GitHub passes a declared default as if the
workflow had set it.

An option that lacks a door says why (`no_door`): a secret never goes in a file or on a command line.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Mapping, cast

from dspec2test.report.gate import FailOn
from dspec2test.toolchain import DEFAULT_TARGET

BVA_EXTREME = 100  # `bva: true` / `--bva` without N: the extreme used where a value is unbounded
TOKEN_EXPRESSION = "${{ github.token }}"
# What the action's image can build the tests for: py always, cs with the .NET SDK in the image
# (Dockerfile). Dafny has more targets, but the image carries no Node, Go or JDK to run them.
IMAGE_TARGETS = ("py", "cs")


class Reporter(str, Enum):
    REVIEW = "review"
    CHECK = "check"
    SUMMARY = "summary"
    ANNOTATIONS = "annotations"


class Door(str, Enum):
    INPUT = "input"  # an input of action.yml (INPUT_<NAME> in the action's environment)
    CONFIG = "config"  # a key of .dspec2test.yml
    CLI = "cli"  # a flag of `dspec2test check` (and of run, generate, replay where it applies)


class Kind(str, Enum):
    TEXT = "text"
    PATH = "path"  # a file to write; empty: none
    GLOBS = "globs"  # newline- or comma-separated in an input or flag; a list (or one string) in the file
    BOOL = "bool"
    INT = "int"
    SECONDS = "seconds"
    BVA = "bva"  # false, true (the extreme BVA_EXTREME) or the extreme N
    CHOICE = "choice"
    SHARD = "shard"  # k/n


ALL = frozenset(Door)


class OptionError(ValueError):
    """A bad value; the message names the option as the door that brought it does (`input bva`,
    `key bva`, `--bva`)."""


@dataclass(frozen=True)
class Option:
    name: str  # the input's and the key's name; the flag is --name-with-dashes unless `flag` says otherwise
    kind: Kind
    default: object  # the typed value used when no door gives one
    help: str  # one sentence: action.yml's description, the README's table and --help all show it
    doors: frozenset[Door] = ALL
    minimum: float | None = None
    choices: tuple[str, ...] = ()
    flag: str = ""  # the CLI flag where it is not derived from the name (report files keep DESIGN.md's words)
    no_door: str = ""  # why a door is missing

    @property
    def cli_flag(self) -> str:
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def default_text(self) -> str:
        """The default as an input's text (what `with:` would say)."""
        return as_text(self, self.default)

    @property
    def action_default(self) -> str:
        """action.yml's `default:`. Empty where the configuration file may set the option too: GitHub
        passes a declared default as if the workflow had given it, which would always beat the file."""
        return "" if Door.CONFIG in self.doors and Door.INPUT in self.doors else self.default_text

    @property
    def input_description(self) -> str:
        """action.yml's `description:`: the help, and the default where action.yml cannot declare it."""
        if self.action_default == self.default_text:
            return self.help
        return (f"{self.help} Default: `{self.default_text}`; when unset or empty, the configuration file's value "
                "if it has one.")

    def where(self, door: Door) -> str:
        return {Door.INPUT: f"input {self.name}", Door.CONFIG: f"key {self.name}", Door.CLI: self.cli_flag}[door]

    def parse(self, value: object, door: Door) -> object:
        """The typed value of `value` (an input's or flag's text, or a YAML value), or OptionError."""
        return _parse(self, value, self.where(door))


def _parse(o: Option, value: object, where: str) -> object:
    if o.kind is Kind.GLOBS:
        if isinstance(value, (list, tuple)):
            if not all(isinstance(v, str) for v in value):
                raise OptionError(f"{where}: expected a list of globs, got {value!r}")
            return tuple(v.strip() for v in value if v.strip())
        if not isinstance(value, str):
            raise OptionError(f"{where}: expected a list of globs, got {value!r}")
        return split_list(value)
    text = "" if value is None else str(value).strip()
    if o.kind in (Kind.TEXT, Kind.PATH):
        return text
    if o.kind is Kind.BOOL:
        return parse_bool(text, where)
    if o.kind is Kind.BVA:
        if text.isdigit() and int(text):
            return _at_least(o, int(text), where)
        return BVA_EXTREME if parse_bool(text, where) else None
    if o.kind is Kind.INT:
        try:
            number: float = int(text)
        except ValueError:
            raise OptionError(f"{where}: expected an integer, got {text!r}") from None
        return _at_least(o, number, where)
    if o.kind is Kind.SECONDS:
        try:
            number = float(text)
        except ValueError:
            raise OptionError(f"{where}: expected a number of seconds, got {text!r}") from None
        if o.minimum is not None:
            return _at_least(o, number, where)
        if number <= 0:
            raise OptionError(f"{where}: must be positive, got {text}")
        return number
    if o.kind is Kind.CHOICE:
        lowered = text.lower()
        if lowered not in o.choices:
            raise OptionError(f"{where}: expected {' | '.join(o.choices)}, got {text!r}")
        return lowered
    if o.kind is Kind.SHARD:
        return parse_shard(text, where)
    raise OptionError(f"{where}: unknown kind {o.kind}")


def _at_least(o: Option, number: float, where: str):
    if o.minimum is not None and number < o.minimum:
        raise OptionError(f"{where}: must be at least {o.minimum:g}, got {number:g}")
    return number


def parse_bool(text: str, where: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "1", "on"):
        return True
    if lowered in ("false", "no", "0", "off", ""):
        return False
    raise OptionError(f"{where}: expected true or false, got {text!r}")


def parse_shard(text: str, where: str = "input shard") -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "1/1")
    if not match:
        raise OptionError(f"{where}: expected k/n (e.g. 2/4), got {text!r}")
    k, n = int(match.group(1)), int(match.group(2))
    if not 1 <= k <= n:
        raise OptionError(f"{where}: need 1 <= k <= n, got {text!r}")
    return k, n


def split_list(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in re.split(r"[\n,]", text) if part.strip())


def as_text(o: Option, value: object) -> str:
    """A value as an input's text: the inverse of parse for the values parse gives."""
    if o.kind is Kind.BVA:
        return "false" if value is None else "true" if value == BVA_EXTREME else str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if o.kind is Kind.GLOBS:
        return ", ".join(value)  # type: ignore[arg-type]
    if o.kind is Kind.SHARD:
        k, n = cast(tuple[int, int], value)
        return f"{k}/{n}"
    return str(value)


_CONFIG_ONLY_REPORTS = "where the reports go is the workflow's business (its upload steps name the files)"

OPTIONS: tuple[Option, ...] = (
    # what is tested
    Option("paths", Kind.GLOBS, ("**/*.dfy",), "Globs of the Dafny files to consider, separated by newlines or "
           "commas.", frozenset({Door.INPUT}),
           no_door="the command line takes the files as arguments; the file narrows them with include/exclude"),
    Option("include", Kind.GLOBS, (), "Globs of the files to test (default: every file `paths` selects)."),
    Option("exclude", Kind.GLOBS, (), "Globs of files never to test."),
    # how the tests are made
    Option("bva", Kind.BVA, None, "Boundary values: `false`, `true`, or the extreme N used where a value is "
           "unbounded (`true` is 100).", minimum=1),
    Option("fdnf", Kind.BOOL, False, "Full DNF partitioning instead of Safe DNF (drops short-circuit safety)."),
    Option("simplify", Kind.BOOL, True, "Also expect the concrete outputs where Z3 proves the contract makes them "
           "unique for the test's inputs (`false`, `--no-simplify`: the compiled clauses only)."),
    Option("repeat", Kind.INT, 1, "Solutions per partition (without bva).", minimum=1),
    Option("search", Kind.BOOL, True, "Inputs from a search beside the solver: every small input and biased "
           "random ones, admitted by running the compiled requires, several of different shapes per partition "
           "(`false`: the solver's inputs only)."),
    Option("length_limit", Kind.INT, 10, "Largest collection size in generated inputs.", minimum=1),
    Option("max_partitions", Kind.INT, 64, "Cap on partitions per member.", minimum=1),
    Option("solver_timeout", Kind.SECONDS, 10.0, "Seconds per Z3 query."),
    Option("member_timeout", Kind.SECONDS, 120.0, "Wall-clock limit in seconds of one member's generation; a "
           "member stopped by it keeps the tests solved before."),
    Option("jobs", Kind.INT, 0, "Members generated at once, each in its own process (0: one per core).",
           minimum=0),
    Option("strength", Kind.BOOL, False, "Contract strength: mutants of each affected member that Dafny still "
           "verifies and that compute something else, reported as warnings (they fail the step only with "
           "`fail_on: weak`)."),
    Option("strength_budget", Kind.SECONDS, 60.0, "Seconds of contract strength per member."),
    Option("cache_dir", Kind.PATH, "", "Folder where generated tests are kept between runs (for `actions/cache` "
           "to hold): a member whose contract and program did not change skips generation (empty: no cache)."),
    # how they run
    Option("timeout", Kind.SECONDS, 60.0, "Wall-clock limit in seconds per test (`py`), or per `dafny test` "
           "run (`cs`)."),
    Option("target", Kind.CHOICE, DEFAULT_TARGET, "Dafny compilation target of the tests: `py`, or `cs` (needs "
           "the .NET SDK: the image's `-cs` variant where the default image lacks it).", choices=IMAGE_TARGETS),
    # the gate
    Option("fail_on", Kind.CHOICE, FailOn.FAILURES.value, "Fail on `failures` (failed, crashed, timeout), on "
           "`errors` (anything not passed, and parse errors in changed files), on `weak` (failures, and a "
           "contract that `strength` finds weak) or `never`.",
           choices=tuple(f.value for f in FailOn)),
    Option("fail_on_empty", Kind.BOOL, False, "Also fail when no affected member got a test."),
    # reports
    Option("reporter", Kind.CHOICE, Reporter.REVIEW.value, "`review` (review comments), `check` (a check run), "
           "`summary` (job summary only) or `annotations`.", frozenset({Door.INPUT, Door.CONFIG}),
           choices=tuple(r.value for r in Reporter), no_door="the command line posts nothing to GitHub"),
    Option("junit_path", Kind.PATH, "dspec2test-junit.xml", "Where to write the JUnit report (empty: none).",
           frozenset({Door.INPUT, Door.CLI}), flag="--junit", no_door=_CONFIG_ONLY_REPORTS),
    Option("sarif_path", Kind.PATH, "dspec2test.sarif", "Where to write the SARIF 2.1.0 report (empty: none).",
           frozenset({Door.INPUT, Door.CLI}), flag="--sarif", no_door=_CONFIG_ONLY_REPORTS),
    Option("json_path", Kind.PATH, "dspec2test-results.json", "Where to write the results as JSON (empty: none).",
           frozenset({Door.INPUT, Door.CLI}), flag="--json", no_door=_CONFIG_ONLY_REPORTS),
    Option("summary_path", Kind.PATH, "dspec2test-summary.md", "Where to write the job summary as a markdown "
           "file too (empty: none).", frozenset({Door.INPUT, Door.CLI}), flag="--summary",
           no_door=_CONFIG_ONLY_REPORTS),
    # the action's own
    Option("github_token", Kind.TEXT, TOKEN_EXPRESSION, "Token for review comments (needs `pull-requests: "
           "write`) and check runs (`checks: write`); never in the environment of the tested code.",
           frozenset({Door.INPUT}), no_door="a secret: never in a file or on a command line"),
    Option("config", Kind.TEXT, ".dspec2test.yml", "Path of the configuration file (ignored when it does not "
           "exist).", frozenset({Door.INPUT, Door.CLI}), no_door="the file cannot name itself"),
    Option("check_name", Kind.TEXT, "dspec2test", "Name of the check run that `reporter: check` creates.",
           frozenset({Door.INPUT}), no_door="names the check run of one workflow job"),
    Option("shard", Kind.SHARD, (1, 1), "`k/n`: test only the k-th of n deterministic slices of the affected "
           "members.", frozenset({Door.INPUT}), no_door="a job matrix sets it per job"),
    Option("results", Kind.PATH, "", "Publish these results (a json_path file of an earlier run) instead of "
           "testing.", frozenset({Door.INPUT}), no_door="publishing from a workflow_run only"),
    Option("event_path", Kind.PATH, "", "Event JSON to use instead of GITHUB_EVENT_PATH (for workflow_run "
           "publishing).", frozenset({Door.INPUT}), no_door="publishing from a workflow_run only"),
    Option("write_delay", Kind.SECONDS, 1.0, "Seconds to wait between two write requests to GitHub.",
           frozenset({Door.INPUT}), minimum=0, no_door="paces requests to GitHub only"),
)

BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}

# The options that shape a run: the same through all three doors.
GENERATION = ("bva", "fdnf", "simplify", "repeat", "search", "length_limit", "max_partitions", "solver_timeout",
              "member_timeout", "jobs", "cache_dir")
STRENGTH = ("strength", "strength_budget")  # contract strength of the affected members (check and the action)
RUNNING = ("timeout", "target")
GATE = ("fail_on", "fail_on_empty")
SELECTION = ("include", "exclude")
REPORT_FILES = ("json_path", "junit_path", "sarif_path", "summary_path")


def through(door: Door) -> tuple[Option, ...]:
    return tuple(o for o in OPTIONS if door in o.doors)


def option(name: str) -> Option:
    return BY_NAME[name]


def jobs_for(jobs: int) -> int:
    """The `jobs` option as a count of processes: 0 is one per core."""
    return jobs if jobs > 0 else max(1, os.cpu_count() or 1)


def resolve(names: Iterable[str], given: Mapping[str, object], config: Mapping[str, object]) -> dict[str, object]:
    """One typed value per name: given (a flag, or an input the workflow set) > the configuration file >
    the default."""
    out = {}
    for name in names:
        if name in given:
            out[name] = given[name]
        elif name in config:
            out[name] = config[name]
        else:
            out[name] = BY_NAME[name].default
    return out

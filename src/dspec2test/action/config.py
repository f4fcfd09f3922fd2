"""`.dspec2test.yml`: file selection, generation flags, timeouts, gate and reporter for a repository.

Every key is optional; an unknown key is an error naming the key and the file (a typo must not be
silently ignored). Precedence: an action input set to a non-default value wins over the file, the
file wins over the input defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from dspec2test.action.inputs import (
    ActionInputs,
    InputError,
    Reporter,
    parse_bool,
    parse_bva,
    parse_float,
    parse_int,
    parse_shard,
)
from dspec2test.report.gate import FailOn, Gate
from dspec2test.toolchain import DEFAULT_TARGET

# key -> one-line meaning (README.md lists them; a test checks the two agree)
CONFIG_KEYS: dict[str, str] = {
    "include": "globs of files to test (default: every file the `paths` input selects)",
    "exclude": "globs of files never to test",
    "bva": "boundary values: false, true or the extreme N",
    "fdnf": "Full DNF partitioning",
    "simplify": "concrete expected outputs where unique",
    "repeat": "solutions per partition",
    "timeout": "seconds per `dafny test` run",
    "solver_timeout": "seconds per Z3 query",
    "max_partitions": "cap on partitions per member",
    "target": "Dafny compilation target",
    "fail_on": "failures | errors | weak | never",
    "strength": "contract strength of the affected members (warnings)",
    "strength_budget": "seconds of contract strength per member",
    "fail_on_empty": "fail when no affected member got a test",
    "reporter": "review | check | summary | annotations",
}


class ConfigError(ValueError):
    """A bad configuration file; the message starts with the file name."""


@dataclass(frozen=True)
class Settings:
    """What one run does, after inputs and the configuration file are combined."""

    paths: tuple[str, ...] = ("**/*.dfy",)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    bva: int | None = None
    fdnf: bool = False
    simplify: bool = False
    repeat: int = 1
    timeout: float = 60.0
    solver_timeout: float = 10.0
    max_partitions: int = 64
    target: str = DEFAULT_TARGET
    fail_on: FailOn = FailOn.FAILURES
    fail_on_empty: bool = False
    reporter: Reporter = Reporter.REVIEW
    shard: tuple[int, int] = (1, 1)
    strength: bool = False
    strength_budget: float = 60.0
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def gate(self) -> Gate:
        return Gate(self.fail_on, self.fail_on_empty)


def load_config(path: Path) -> dict:
    """The validated keys of a configuration file; {} when the file does not exist."""
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise ConfigError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of keys to values at the top level")
    unknown = sorted(str(k) for k in data if k not in CONFIG_KEYS)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key {unknown[0]!r}" + (f" (and {', '.join(unknown[1:])})" if unknown[1:] else "")
            + f"; known keys: {', '.join(CONFIG_KEYS)}"
        )
    try:
        return {key: _convert(key, value) for key, value in data.items()}
    except InputError as exc:
        raise ConfigError(f"{path}: {str(exc).replace('input ', 'key ', 1)}") from None


def _convert(key: str, value):
    text = "" if value is None else str(value)
    if key in ("include", "exclude"):
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"input {key}: expected a list of globs")
        return tuple(value)
    if key == "bva":
        return parse_bva(key, text)
    if key in ("fdnf", "simplify", "fail_on_empty", "strength"):
        return parse_bool(key, text)
    if key in ("repeat", "max_partitions"):
        return parse_int(key, text, minimum=1)
    if key in ("timeout", "solver_timeout", "strength_budget"):
        return parse_float(key, text)
    if key == "fail_on":
        try:
            return FailOn(text)
        except ValueError:
            raise InputError(f"input fail_on: expected {CONFIG_KEYS['fail_on']}, got {text!r}") from None
    if key == "reporter":
        try:
            return Reporter(text)
        except ValueError:
            raise InputError(f"input reporter: expected {CONFIG_KEYS['reporter']}, got {text!r}") from None
    if key == "target":
        return text
    if key == "shard":
        return parse_shard(text)
    raise InputError(f"input {key}: unknown")


def settings_from(inputs: ActionInputs, config: dict) -> Settings:
    """Combine: non-default inputs > configuration file > input defaults."""
    base = Settings(
        paths=inputs.paths,
        bva=inputs.bva,
        fdnf=inputs.fdnf,
        simplify=inputs.simplify,
        repeat=inputs.repeat,
        timeout=inputs.timeout,
        target=inputs.target,
        fail_on=inputs.fail_on,
        fail_on_empty=inputs.fail_on_empty,
        reporter=inputs.reporter,
        shard=inputs.shard,
        strength=inputs.strength,
    )
    overrides = {k: v for k, v in config.items() if k not in inputs.explicit}
    return replace(base, **overrides)

"""`.dspec2test.yml`: the options a repository sets for the action and `dspec2test check`.

Its keys are the options with a configuration door (options.py), validated as the inputs and flags are.
Every key is optional; an unknown key is an error naming the key and the file (a typo must not be
silently ignored). Precedence: an input the workflow set (or a flag given) > the file > the default.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import yaml

from dspec2test.action.inputs import ActionInputs
from dspec2test.options import (
    GATE,
    GENERATION,
    RUNNING,
    SELECTION,
    STRENGTH,
    Door,
    OptionError,
    Reporter,
    option,
    resolve,
    through,
)
from dspec2test.report.gate import FailOn, Gate
from dspec2test.toolchain import DEFAULT_TARGET

CONFIG_OPTIONS = through(Door.CONFIG)
CONFIG_KEYS: dict[str, str] = {o.name: o.help for o in CONFIG_OPTIONS}
# what the file may set for a run (the reporter is the action's business alone)
RUN_KEYS = SELECTION + GENERATION + RUNNING + GATE + STRENGTH


class ConfigError(ValueError):
    """A bad configuration file; the message starts with the file name."""


@dataclass(frozen=True)
class Settings:
    """What one run does, after inputs (or flags), the configuration file and defaults are combined."""

    paths: tuple[str, ...] = ("**/*.dfy",)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    bva: int | None = None
    fdnf: bool = False
    simplify: bool = True
    repeat: int = 1
    search: bool = True
    length_limit: int = 10
    max_partitions: int = 64
    solver_timeout: float = 10.0
    member_timeout: float = 120.0
    jobs: int = 0  # 0: one per core
    cache_dir: str = ""  # relative to the checkout; "" keeps nothing
    timeout: float = 60.0
    target: str = DEFAULT_TARGET
    fail_on: FailOn = FailOn.FAILURES
    fail_on_empty: bool = False
    reporter: Reporter = Reporter.REVIEW
    shard: tuple[int, int] = (1, 1)
    strength: bool = False  # contract strength of the affected members (warnings)
    strength_budget: float = 60.0  # seconds of contract strength per member

    @property
    def gate(self) -> Gate:
        return Gate(self.fail_on, self.fail_on_empty)


def settings_of(values: Mapping[str, object], paths: tuple[str, ...] = ("**/*.dfy",),
                shard: tuple[int, int] = (1, 1)) -> Settings:
    """Settings from resolved option values (options.resolve)."""
    typed = dict(values)
    if "fail_on" in typed:
        typed["fail_on"] = FailOn(typed["fail_on"])
    if "reporter" in typed:
        typed["reporter"] = Reporter(typed["reporter"])
    known: dict[str, Any] = {k: v for k, v in typed.items() if k in Settings.__dataclass_fields__}
    return Settings(paths=paths or ("**/*.dfy",), shard=shard, **known)


def load_config(path: Path) -> dict:
    """The validated keys of a configuration file (typed values); {} when the file does not exist."""
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
        return {key: option(key).parse(value, Door.CONFIG) for key, value in data.items()}
    except OptionError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def settings_from(inputs: ActionInputs, config: Mapping[str, object]) -> Settings:
    """Combine: inputs the workflow set > configuration file > defaults."""
    given = {name: inputs.values[name] for name in inputs.given if name in inputs.values}
    names = RUN_KEYS + ("reporter",)
    return settings_of(resolve(names, given, config), inputs.paths, inputs.shard)

"""The action's inputs, read from `INPUT_<NAME>` variables by the one table of options (options.py).

GitHub passes every declared input as `INPUT_<NAME>` (upper case); outside GitHub they are unset and
the defaults apply, so `dspec2test action` also runs locally. An input counts as given when its variable
is present and non-empty: action.yml declares the inputs the configuration file can also set with an
empty default, so an input the workflow did not set never hides the file's value, whatever its value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from dspec2test.options import (
    TOKEN_EXPRESSION,
    Door,
    Kind,
    OptionError,
    Reporter,
    option,
    split_list,
    through,
)
from dspec2test.report.gate import FailOn

__all__ = ["ActionInputs", "InputError", "Reporter", "INPUTS", "DEFAULTS", "read_inputs", "split_list",
           "TOKEN_EXPRESSION", "FailOn"]

INPUTS = through(Door.INPUT)
DEFAULTS: dict[str, str] = {o.name: o.default_text for o in INPUTS}

InputError = OptionError  # a bad input value; the message names the input


@dataclass(frozen=True)
class ActionInputs:
    """The inputs as typed values: a given input's, else the default. `given` says which the workflow
    set; only those win over the configuration file (config.settings_from)."""

    github_token: str  # never printed
    paths: tuple[str, ...]
    config: str
    check_name: str
    junit_path: str
    sarif_path: str
    json_path: str
    summary_path: str
    shard: tuple[int, int]
    results: str
    event_path: str
    write_delay: float
    values: Mapping[str, object]  # every input's typed value, given or default, by name
    given: frozenset[str]  # inputs whose variable is present and non-empty


def given_inputs(env: Mapping[str, str]) -> dict[str, str]:
    """The inputs the workflow set: variable present and non-empty (surrounding blanks dropped)."""
    out = {}
    for o in INPUTS:
        value = env.get(f"INPUT_{o.name.upper()}")
        if value is not None and value.strip():
            out[o.name] = value.strip()
    return out


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    given = given_inputs(env)
    values: dict[str, object] = {}
    for o in INPUTS:
        if o.name in given:
            values[o.name] = o.parse(given[o.name], Door.INPUT)
        elif f"INPUT_{o.name.upper()}" in env and o.kind is Kind.PATH:
            values[o.name] = ""  # a report path set to empty: no such report
        else:
            values[o.name] = o.default
    token = str(values["github_token"])
    if token in ("", TOKEN_EXPRESSION):  # unexpanded outside GitHub: fall back to the usual variable
        token = env.get("GITHUB_TOKEN", "")
    return ActionInputs(
        github_token=token,
        paths=tuple(values["paths"]) or tuple(option("paths").default),  # type: ignore[arg-type]
        config=str(values["config"]),
        check_name=str(values["check_name"]),
        junit_path=str(values["junit_path"]),
        sarif_path=str(values["sarif_path"]),
        json_path=str(values["json_path"]),
        summary_path=str(values["summary_path"]),
        shard=values["shard"],  # type: ignore[arg-type]
        results=str(values["results"]),
        event_path=str(values["event_path"]),
        write_delay=float(values["write_delay"]),  # type: ignore[arg-type]
        values=values,
        given=frozenset(given),
    )

"""One table of options, three doors: action.yml's inputs, `.dspec2test.yml`'s keys and the CLI's flags
all come from src/dspec2test/options.py, with one name, one default and one validation."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dspec2test import cli
from dspec2test.action.config import CONFIG_KEYS, RUN_KEYS, ConfigError, Settings, load_config, settings_from
from dspec2test.action.inputs import read_inputs
from dspec2test.action.pipeline import pipeline_options
from dspec2test.commands.check import settings_of
from dspec2test.options import GENERATION, OPTIONS, REPORT_FILES, RUNNING, Door, OptionError, option, through

ROOT = Path(__file__).resolve().parents[2]

# A value other than the default for every option that shapes a run, as an input's text would say it.
NON_DEFAULT = {"include": "src/**/*.dfy", "exclude": "src/vendor/**", "bva": "7", "fdnf": "true",
               "simplify": "false", "repeat": "3", "search": "false", "length_limit": "4", "max_partitions": "9",
               "solver_timeout": "2.5", "member_timeout": "30", "jobs": "2", "timeout": "15", "target": "cs",
               "fail_on": "never", "fail_on_empty": "true", "cache_dir": ".dspec2test-cache-x",
               "strength": "true", "strength_budget": "30"}


def flags_of(command: str) -> dict[str, argparse.Action]:
    parser = cli.build_parser(command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {flag: action for action in sub._actions for flag in action.option_strings}


def check_args(argv: list[str]) -> argparse.Namespace:
    return cli.build_parser("check").parse_args(["check", *argv])


def flag_argv(values: dict[str, str]) -> list[str]:
    argv = []
    for name, text in values.items():
        o = option(name)
        if o.kind.value == "bool":
            argv.append(o.cli_flag if text == "true" else "--no-" + o.cli_flag[2:])
        else:
            argv += [o.cli_flag, text]
    return argv


def test_every_option_that_shapes_a_run_has_all_three_doors_and_the_others_say_why_not():
    assert set(NON_DEFAULT) == set(RUN_KEYS)
    for o in OPTIONS:
        if o.name in RUN_KEYS:
            assert o.doors == frozenset(Door), o.name
        else:
            assert o.doors != frozenset(Door) and o.no_door, o.name
    assert len({o.name for o in OPTIONS}) == len(OPTIONS)


def test_action_yml_inputs_config_keys_and_check_flags_are_the_table():
    declared = yaml.safe_load((ROOT / "action.yml").read_text())["inputs"]
    assert list(declared) == [o.name for o in through(Door.INPUT)]  # the same order, too
    assert set(CONFIG_KEYS) == {o.name for o in through(Door.CONFIG)}
    check = flags_of("check")
    for o in through(Door.CLI):
        assert o.cli_flag in check, o.name
        assert check[o.cli_flag].dest == o.name and check[o.cli_flag].default is None, o.name
    # run and generate take the ones that apply to one file: generation (and, for run, running, gate, reports)
    run, generate = flags_of("run"), flags_of("generate")
    for name in GENERATION:
        assert option(name).cli_flag in run and option(name).cli_flag in generate, name
    for name in RUNNING + REPORT_FILES + ("fail_on", "fail_on_empty"):
        assert option(name).cli_flag in run, name


def test_action_yml_and_the_readme_table_are_written_from_the_table():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts/options_docs.py"), "--check"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_same_options_through_each_door_give_the_same_settings(tmp_path):
    via_input = settings_from(read_inputs({f"INPUT_{k.upper()}": v for k, v in NON_DEFAULT.items()}), {})
    path = tmp_path / ".dspec2test.yml"
    path.write_text("".join(f"{k}: {v}\n" for k, v in NON_DEFAULT.items()))
    via_config = settings_from(read_inputs({}), load_config(path))
    via_flags = settings_of(check_args(flag_argv(NON_DEFAULT)), {}, ())
    assert via_input == via_config == via_flags
    defaults = Settings()
    for name in RUN_KEYS:
        assert getattr(via_input, name) != getattr(defaults, name), name
    assert (via_input.bva, via_input.jobs, via_input.target, via_input.include) == (7, 2, "cs", ("src/**/*.dfy",))
    # and what the pipeline is handed: the same run
    runs = {pipeline_options(s, tmp_path) for s in (via_input, via_config, via_flags)}
    assert len(runs) == 1
    (run,) = runs
    g = run.generate
    assert (g.bva, g.fdnf, g.simplify, g.repeat, g.search, g.length_limit, g.max_partitions, g.timeout_s,
            g.member_timeout_s, g.jobs, run.timeout, run.target) == (7, True, False, 3, False, 4, 9, 2.5, 30.0, 2, 15.0,
                                                                     "cs")


@pytest.mark.parametrize("name", sorted(RUN_KEYS))
def test_an_input_or_flag_set_to_its_default_beats_the_configuration_file(tmp_path, name):
    path = tmp_path / ".dspec2test.yml"
    path.write_text(f"{name}: {NON_DEFAULT[name]}\n")
    config = load_config(path)
    default = option(name).default
    default_text = option(name).default_text
    if not default_text:  # an empty glob list cannot be given: leaving it out is the default
        return
    from_input = settings_from(read_inputs({f"INPUT_{name.upper()}": default_text}), config)
    from_flag = settings_of(check_args(flag_argv({name: default_text})), config, ())
    assert getattr(from_input, name) == getattr(from_flag, name) == getattr(Settings(), name), name
    assert getattr(settings_from(read_inputs({}), config), name) != default  # not given: the file decides


@pytest.mark.parametrize("name,text", [("target", "java"), ("repeat", "0"), ("jobs", "x"), ("bva", "-3"),
                                       ("timeout", "0"), ("fail_on", "always")])
def test_one_validation_through_every_door(tmp_path, name, text):
    with pytest.raises(OptionError, match=f"input {name}:"):
        read_inputs({f"INPUT_{name.upper()}": text})
    path = tmp_path / "c.yml"
    path.write_text(f"{name}: {text}\n")
    with pytest.raises(ConfigError, match=f"key {name}:"):
        load_config(path)
    with pytest.raises(OptionError, match=f"{option(name).cli_flag}:"):
        settings_of(check_args([option(name).cli_flag, text]), {}, ())


def test_bva_through_every_door():
    assert settings_of(check_args(["--bva"]), {}, ()).bva == 100
    assert settings_of(check_args(["--bva", "5"]), {}, ()).bva == 5
    assert settings_of(check_args(["--no-bva"]), {"bva": 5}, ()).bva is None  # off on the command line wins
    assert settings_from(read_inputs({"INPUT_BVA": "true"}), {}).bva == 100
    assert option("bva").parse(True, Door.CONFIG) == 100 and option("bva").parse(False, Door.CONFIG) is None


def test_report_files_are_written_by_the_action_by_default_but_by_the_cli_only_when_asked():
    args = cli.build_parser("check").parse_args(["check"])
    assert all(getattr(args, name) is None for name in REPORT_FILES)
    assert read_inputs({}).sarif_path == "dspec2test.sarif"

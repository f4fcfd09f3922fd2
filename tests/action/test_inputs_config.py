"""Inputs and the configuration file: one table, the same defaults in action.yml, code and docs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dspec2test.action.config import CONFIG_KEYS, ConfigError, load_config, settings_from
from dspec2test.action.inputs import DEFAULTS, INPUTS, FailOn, InputError, Reporter, read_inputs

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = {"github_token", "paths", "config", "fail_on", "fail_on_empty", "reporter", "check_name", "junit_path",
            "sarif_path", "bva", "fdnf", "simplify", "repeat", "timeout", "shard"}
OUTPUTS = {"tests", "passed", "failed", "not_passing", "methods", "affected", "conclusion", "junit_path",
           "sarif_path", "json_path", "summary_path", "summary_file", "review_url", "check_url"}


def action_yml():
    return yaml.safe_load((ROOT / "action.yml").read_text())


def test_action_yml_declares_every_input_with_the_table_default_or_empty_where_the_file_may_set_it():
    declared = action_yml()["inputs"]
    assert set(declared) == {s.name for s in INPUTS}
    assert REQUIRED <= set(declared)
    for spec in INPUTS:
        assert str(declared[spec.name]["default"]) == spec.action_default, spec.name
        assert declared[spec.name]["description"] == spec.input_description, spec.name
        if spec.name in CONFIG_KEYS:  # else GitHub would pass the default as if the workflow had set it
            assert declared[spec.name]["default"] == ""
            assert not spec.default_text or f"`{spec.default_text}`" in spec.input_description


def test_action_yml_outputs_are_the_ones_the_action_writes(world, standin):
    data = action_yml()
    assert set(data["outputs"]) == OUTPUTS
    assert all(o["description"] for o in data["outputs"].values())
    assert data["runs"]["using"] == "docker"
    run = world.run(standin.url, reporter="summary", fail_on="never")
    assert set(run.outputs) == OUTPUTS  # GITHUB_OUTPUT gets every declared output, and only those
    assert run.outputs["summary_path"] == run.outputs["summary_file"] == "dspec2test-summary.md"


def test_docs_list_every_output():
    docs = (ROOT / "README.md").read_text()
    for output, spec in action_yml()["outputs"].items():
        assert f"| `{output}` | {spec['description']} |" in docs, output


def test_unset_inputs_take_the_defaults():
    inputs = read_inputs({})
    settings = settings_from(inputs, {})
    assert settings.fail_on is FailOn.FAILURES and settings.reporter is Reporter.REVIEW
    assert inputs.paths == ("**/*.dfy",) and inputs.shard == (1, 1) and settings.bva is None
    assert settings.timeout == 60.0 and settings.target == "py" and inputs.given == frozenset()
    assert inputs.junit_path == "dspec2test-junit.xml" and inputs.check_name == "dspec2test"
    assert read_inputs({"INPUT_WRITE_DELAY": "0"}).write_delay == 0.0  # no pause: allowed, unlike a 0 s timeout


def test_an_empty_input_is_not_given_but_an_empty_report_path_writes_no_report():
    inputs = read_inputs({"INPUT_BVA": "", "INPUT_FAIL_ON": "  ", "INPUT_JUNIT_PATH": ""})
    assert inputs.given == frozenset() and inputs.junit_path == ""
    assert settings_from(inputs, {"bva": 7}).bva == 7


def test_token_falls_back_to_github_token_when_unexpanded():
    assert read_inputs({"GITHUB_TOKEN": "abc"}).github_token == "abc"
    assert read_inputs({"INPUT_GITHUB_TOKEN": "xyz", "GITHUB_TOKEN": "abc"}).github_token == "xyz"


def test_values_are_parsed():
    inputs = read_inputs({"INPUT_BVA": "true", "INPUT_FDNF": "yes", "INPUT_REPEAT": "3", "INPUT_SHARD": "2/4",
                          "INPUT_PATHS": "src/**/*.dfy\nlib/*.dfy, other", "INPUT_REPORTER": "Annotations",
                          "INPUT_JOBS": "2", "INPUT_LENGTH_LIMIT": "4", "INPUT_MEMBER_TIMEOUT": "30"})
    settings = settings_from(inputs, {})
    assert settings.bva == 100 and settings.fdnf and settings.repeat == 3 and inputs.shard == (2, 4)
    assert inputs.paths == ("src/**/*.dfy", "lib/*.dfy", "other")
    assert settings.reporter is Reporter.ANNOTATIONS
    assert (settings.jobs, settings.length_limit, settings.member_timeout) == (2, 4, 30.0)
    assert settings_from(read_inputs({"INPUT_BVA": "7"}), {}).bva == 7
    assert {"bva", "fdnf", "repeat", "shard", "paths", "reporter"} <= inputs.given


@pytest.mark.parametrize("name,value", [("fail_on", "sometimes"), ("reporter", "email"), ("shard", "3/2"),
                                        ("fail_on_empty", "often"), ("target", "js"), ("jobs", "-1"),
                                        ("shard", "x"), ("repeat", "0"), ("timeout", "soon"), ("fdnf", "maybe")])
def test_bad_values_name_the_input(name, value):
    with pytest.raises(InputError, match=f"input {name}"):
        read_inputs({f"INPUT_{name.upper()}": value})


def test_defaults_table_is_what_code_uses():
    assert DEFAULTS["fail_on"] == "failures" and DEFAULTS["reporter"] == "review"
    settings = settings_from(read_inputs({}), {})
    assert settings.fail_on is FailOn.FAILURES and not settings.fail_on_empty
    assert settings_from(read_inputs({"INPUT_FAIL_ON": "errors", "INPUT_REPORTER": "check"}), {}).reporter is Reporter.CHECK


def test_config_unknown_key_names_key_and_file(tmp_path):
    path = tmp_path / ".dspec2test.yml"
    path.write_text("bva: true\nfail_onn: never\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(path) in str(info.value) and "'fail_onn'" in str(info.value)


def test_config_values_and_precedence(tmp_path):
    path = tmp_path / ".dspec2test.yml"
    path.write_text("include: src/**/*.dfy\nexclude: [vendor/**]\nbva: 5\nfdnf: true\ntimeout: 120\n"
                    "fail_on: never\nreporter: annotations\n")
    config = load_config(path)
    settings = settings_from(read_inputs({}), config)
    assert settings.include == ("src/**/*.dfy",) and settings.exclude == ("vendor/**",)
    assert settings.bva == 5 and settings.fdnf and settings.timeout == 120.0
    assert settings.fail_on is FailOn.NEVER and settings.reporter is Reporter.ANNOTATIONS
    # an input the workflow set wins over the file, even when it says what the default says
    settings = settings_from(read_inputs({"INPUT_FAIL_ON": "failures", "INPUT_REPORTER": "summary"}), config)
    assert settings.fail_on is FailOn.FAILURES
    assert settings.reporter is Reporter.SUMMARY
    assert settings_from(read_inputs({"INPUT_BVA": "false"}), config).bva is None


def test_config_bad_value_and_bad_yaml_name_the_file(tmp_path):
    path = tmp_path / "c.yml"
    path.write_text("repeat: many\n")
    with pytest.raises(ConfigError, match=r"c\.yml: key repeat: expected an integer"):
        load_config(path)
    path.write_text("bva: [\n")
    with pytest.raises(ConfigError, match=r"c\.yml:\d+:\d+: not valid YAML"):
        load_config(path)
    assert load_config(tmp_path / "missing.yml") == {}


def test_example_workflows_start_on_every_change_and_in_the_merge_queue():
    for path in (".github/workflows/dspec2test.yml", "docs/workflows/dspec2test-untrusted.yml"):
        on = yaml.safe_load((ROOT / path).read_text())[True]  # yaml reads the key `on` as True
        assert {"pull_request", "merge_group"} <= set(on), path
        assert not any(isinstance(v, dict) and "paths" in v for v in on.values()), path

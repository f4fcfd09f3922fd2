"""The cache of generated tests through the three doors: the action's `cache_dir` input (hits in the job
summary and the log), the configuration file's `cache_dir` key, and `check --cache-dir` with the real
pipeline: a second run on an unchanged contract skips generation and gives the same verdicts."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dspec2test import cli
from dspec2test.action.config import Settings, settings_from
from dspec2test.action.inputs import read_inputs
from dspec2test.action.pipeline import PipelineResult, pipeline_options
from dspec2test.commands import check
from tests.action import fixtures
from tests.action.helpers import commit, make_repo


def test_the_input_and_the_config_key_reach_generation_as_a_folder_in_the_checkout(tmp_path):
    by_input = settings_from(read_inputs({"INPUT_CACHE_DIR": ".dspec2test-cache"}), {})
    assert pipeline_options(by_input, tmp_path).generate.cache_dir == str(tmp_path / ".dspec2test-cache")
    by_config = settings_from(read_inputs({}), {"cache_dir": "gen-cache"})
    assert pipeline_options(by_config, tmp_path).generate.cache_dir == str(tmp_path / "gen-cache")
    assert pipeline_options(Settings(), tmp_path).generate.cache_dir is None  # no cache unless asked


def test_hits_are_in_the_job_summary_and_the_log(world, standin):
    run = world.run(standin.url, reporter="summary", fail_on="never", cache_dir=".dspec2test-cache")
    assert run.code == 0, run.err
    line = "tests of 5 of 5 members reused from the cache (generation skipped)"
    assert f"dspec2test: {line}" in run.out
    assert f"Generation: {line}." in run.summary
    plain = world.run(standin.url, reporter="summary", fail_on="never")
    assert "reused from the cache" not in plain.out + plain.summary


def test_cache_line():
    assert PipelineResult(cached=("A",), looked_up=3).cache_line == \
        "tests of 1 of 3 members reused from the cache (generation skipped)"
    assert PipelineResult().cache_line == ""


@pytest.mark.dafny
def test_a_second_check_on_an_unchanged_contract_skips_generation_with_identical_verdicts(tmp_path, monkeypatch):
    repo, _, _ = make_repo(tmp_path, {"abs.dfy": fixtures.ABS}, {"abs.dfy": fixtures.ABS.replace("r := -x;", "r := x;")})
    monkeypatch.chdir(repo)
    monkeypatch.setenv("HOME", str(tmp_path))

    def run(name: str) -> tuple[str, dict]:
        out, err = io.StringIO(), io.StringIO()
        args = cli.build_parser().parse_args(["check", "--base", "main", "--cache-dir", str(tmp_path / "cache"),
                                              "--json", str(tmp_path / f"{name}.json")])
        assert check.main(args, out, err) == 1, err.getvalue()  # the bug in Abs's body
        data = json.loads((tmp_path / f"{name}.json").read_text())
        return out.getvalue(), [(v["method"], v["partition"], v["scenario"], v["status"], v.get("inputs"))
                                for v in data["tests"]]

    first_out, first = run("first")
    assert "tests of 0 of 1 member reused" in first_out
    second_out, second = run("second")
    assert "tests of 1 of 1 member reused from the cache (generation skipped)" in second_out
    assert second == first and any(status == "failed" for *_, status, _ in first)
    # a push that changes the body again keeps the entry; one that changes the contract does not
    commit(repo, {"abs.dfy": fixtures.ABS.replace("r := -x;", "r := x + 0;")}, "body again")
    assert "tests of 1 of 1 member reused" in run("third")[0]
    commit(repo, {"abs.dfy": fixtures.ABS.replace("r := -x;", "r := x;").replace("ensures r >= 0", "ensures 0 <= r")},
           "contract")
    assert "tests of 0 of 1 member reused" in run("fourth")[0]

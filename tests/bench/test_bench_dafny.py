"""With real Dafny: batched runs give the verdicts of one-at-a-time runs, whatever --jobs says."""

from __future__ import annotations

from pathlib import Path

import pytest

from dspec2test.bench.corpus import load_corpus
from dspec2test.bench.engine import BenchConfig, run_bench
from dspec2test.bench.figures import to_json
from dspec2test.bench.strategies import Prepared, Strategy
from dspec2test.records import Status
from dspec2test.run import RunOptions
from dspec2test.run.versions import Version, VersionsConfig, our_suite, run_alone, run_versions
from dspec2test.toolchain import find_toolchain

FIXTURES = Path(__file__).parent / "fixtures"
TESTS_TEXT = (FIXTURES / "absget_tests.dfy").read_text()
TIMEOUT_S = 3.0

pytestmark = pytest.mark.dafny


SUITE = our_suite(TESTS_TEXT)


def _fixed_tests(strategy, program, workdir, tools, timeout_s, pool) -> Prepared:
    return Prepared(program.name, TESTS_TEXT, 3, None, 0.0, suite=SUITE)


def _verdicts(runs) -> dict:
    return {key: (run.build_error is not None, [(r.name, r.status) for r in run.outcomes]) for key, run in runs.items()}


def test_batched_verdicts_equal_one_at_a_time(tmp_path):
    tools = find_toolchain()
    corpus = load_corpus(FIXTURES / "corpus")
    versions = [Version(m.name, m.text) for m in corpus.mutants if m.name != "absget_typo"]
    # a[i - 2] at i == 1 reads a[-1] == a[1] in Python; Dafny halts: the driver must too.
    original = corpus.programs[0].text
    versions.append(Version("absget_negative", original.replace("v := a[i];", "v := a[i - 2];")))
    for stop_on_kill in (False, True):
        config = VersionsConfig(RunOptions("py", TIMEOUT_S), stop_on_kill, batch=True)
        batched, builds = run_versions(versions, SUITE, config, tools, tmp_path / f"b{stop_on_kill}")
        alone, alone_builds = run_versions(versions, SUITE, VersionsConfig(RunOptions("py", TIMEOUT_S), stop_on_kill,
                                                                           batch=False), tools, tmp_path / f"a{stop_on_kill}")
        assert builds == 1 and alone_builds == len(versions)
        assert all(run.batched for run in batched.values())
        assert _verdicts(batched) == _verdicts(alone)
        statuses = {k: {r.name: r.status for r in run.outcomes} for k, run in batched.items()}
        assert statuses["absget_wrong"]["Test_Abs_p1_s1"] is Status.FAILED
        assert statuses["absget_crash"]["Test_Get_p1_s1"] is Status.CRASHED  # index out of range: that test only
        assert statuses["absget_crash"]["Test_Abs_p1_s1"] is Status.PASSED
        assert statuses["absget_loop"]["Test_Abs_p1_s1"] is Status.TIMEOUT
        assert set(statuses["absget_same"].values()) == {Status.PASSED}
        negative = {r.name: r for r in batched["absget_negative"].outcomes}["Test_Get_p1_s1"]
        assert negative.status is Status.CRASHED and "out of range" in negative.message
        assert len(statuses["absget_same"]) == 3
        if stop_on_kill:  # a killed version's other tests are skipped
            assert list(statuses["absget_loop"]) == ["Test_Abs_p1_s1"]
            assert list(statuses["absget_wrong"]) == ["Test_Abs_p1_s1"]
        else:  # after the hang the driver restarted and the rest still ran
            assert statuses["absget_loop"]["Test_Get_p1_s1"] is Status.PASSED
            # the slowest finished test is measured (the kill phase's limit follows it); a hang is no finished test
            assert 0 < alone["absget_same"].slowest_test_cpu_s < TIMEOUT_S
            assert alone["absget_loop"].slowest_test_cpu_s < TIMEOUT_S


def test_a_cpu_time_limit_ends_a_loop_in_the_same_driver_long_before_the_wall_clock_limit(tmp_path):
    tools = find_toolchain()
    loop = (FIXTURES / "corpus" / "mutants" / "absget" / "absget_loop.dfy").read_text()
    wall_limit_s = 60.0
    got = run_alone(Version("loop", loop), SUITE, VersionsConfig(RunOptions("py", wall_limit_s, 0.3)), tools, tmp_path)
    verdicts = {o.name: o for o in got.outcomes}
    assert verdicts["Test_Abs_p1_s1"].status is Status.TIMEOUT
    assert "CPU time" in verdicts["Test_Abs_p1_s1"].message  # the driver's timer, not the wall-clock watch
    assert {verdicts[n].status for n in ("Test_Abs_p2_s1", "Test_Get_p1_s1")} == {Status.PASSED}
    assert got.seconds < wall_limit_s / 2
    assert 0 < got.slowest_test_cpu_s < 0.3  # the tests that ended in time; the loop is no finished test


def test_kill_matrix_is_the_same_with_two_jobs_and_on_a_second_run(tmp_path):
    tools = find_toolchain()
    corpus = load_corpus(FIXTURES / "corpus")
    matrices = []
    for jobs in (1, 2):
        config = BenchConfig((Strategy.SPEC,), jobs=jobs, timeout_s=TIMEOUT_S, cache_dir=tmp_path / "cache",
                             dafny_version="test")
        data = to_json(run_bench(corpus, config, tools, lambda line: None, prepare_fn=_fixed_tests))
        matrices.append(data["mutants"])
    assert matrices[0] == matrices[1]
    status = {row["mutant"]: (row["class"], row["status"]["spec"]) for row in matrices[0]}
    assert status == {
        "absget_crash": ("bug", "killed"),
        "absget_loop": ("bug", "timeout"),
        "absget_same": ("alive", "survived"),
        "absget_typo": ("incompetent", None),
        "absget_wrong": ("bug", "killed"),
    }
    assert data["strategies"]["spec"]["kill_rate"] == 1.0
    assert data["strategies"]["spec"]["killable"] == 3  # the equivalent-labelled one does not count


def test_a_test_that_does_not_pass_on_the_original_is_a_false_alarm_and_is_left_out_of_the_kill_phase(tmp_path):
    tools = find_toolchain()
    corpus = load_corpus(FIXTURES / "corpus")
    broken = TESTS_TEXT.replace("var x: int := 5;", "var x: int := 5;\n  expect x == 4;")
    assert broken != TESTS_TEXT

    def prepare(strategy, program, workdir, tools, timeout_s, pool) -> Prepared:
        return Prepared(program.name, broken, 3, None, 0.0, suite=our_suite(broken))

    config = BenchConfig((Strategy.SPEC,), jobs=1, timeout_s=TIMEOUT_S, cache_dir=tmp_path / "cache",
                         dafny_version="test")
    data = to_json(run_bench(corpus, config, tools, lambda line: None, prepare_fn=prepare))
    spec = data["strategies"]["spec"]
    assert spec["false_alarms"] == 1 and spec["false_alarm_programs"] == ["absget"]
    assert spec["false_alarm_tests"]["absget"][0].startswith("Test_Abs_p2_s1: not-tested")
    # the program keeps its two other tests, which still kill what they killed
    assert spec["unsupported"] == 0 and spec["killed"] == 2 and spec["timeout"] == 1


def test_members_without_a_body_do_not_keep_the_others_from_being_tested(tmp_path):
    tools = find_toolchain()
    corpus = load_corpus(FIXTURES / "nobody_corpus")
    config = BenchConfig((Strategy.SPEC,), jobs=1, timeout_s=TIMEOUT_S, cache_dir=tmp_path / "cache",
                         dafny_version="test")
    data = to_json(run_bench(corpus, config, tools, lambda line: None))
    spec = data["strategies"]["spec"]
    assert spec["programs_supported"] == 1 and spec["false_alarms"] == 0, spec["unsupported_programs"]
    assert spec["no_implementation_tests"] >= 2  # Half's and Twice's: nothing to run them on
    assert {row["mutant"]: row["status"]["spec"] for row in data["mutants"]} == {"nobody_wrong": "killed"}

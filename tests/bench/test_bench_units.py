"""Unit tests of the bench stages that need no Dafny: corpus, output parsing, batching, figures."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from dspec2test.bench import engine
from dspec2test.bench.classify import Classified, Classifier, Verification, cache_key, read_recorded
from dspec2test.bench.corpus import CorpusError, Label, CorpusProgram, load_corpus, read_labels
from dspec2test.bench.dtest import annotate, method_entries
from dspec2test.bench.engine import (
    BenchConfig, BenchRun, MutantClass, MutantStatus, StrategyRun, kill_time_limit, run_bench,
)
from dspec2test.bench.figures import to_json
from dspec2test.bench.report import markdown, terminal_table
from dspec2test.bench.strategies import Prepared, Strategy
from dspec2test.records import Status
from dspec2test.run import versions
from dspec2test.run import RunOptions
from dspec2test.run.executors import Attempt
from dspec2test.run.foreign import WRAPPER_MODULE, foreign_suite
from dspec2test.run.pydriver import list_tests
from dspec2test.run.versions import SUBJECT_MODULE, Outcome, Suite, SuiteTest, Version, VersionsConfig, run_versions
from dspec2test.toolchain import Toolchain

FIXTURES = Path(__file__).parent / "fixtures"
CORPUS = FIXTURES / "corpus"


def test_corpus_loads_programs_mutants_and_labels(tmp_path):
    corpus = load_corpus(CORPUS)
    assert [p.name for p in corpus.programs] == ["absget"]
    names = [m.name for m in corpus.mutants]
    assert names == sorted(names) and "absget_wrong" in names
    labels = {m.name: m.label for m in corpus.mutants}
    assert labels["absget_same"] is Label.EQUIVALENT
    assert labels["absget_wrong"] is None


def test_labels_file_adds_labels_and_rejects_a_bad_line_with_its_position(tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("# our analysis\nequivalent absget/absget_wrong  # only ghost code changes\n\n")
    corpus = load_corpus(CORPUS, extra_labels=read_labels(labels))
    got = {m.name: m.label for m in corpus.mutants}
    assert got["absget_wrong"] is Label.EQUIVALENT and got["absget_crash"] is None
    labels.write_text("equivalent absget_wrong\n")
    try:
        read_labels(labels)
    except CorpusError as exc:
        assert f"{labels}:1:" in str(exc)
    else:
        raise AssertionError("a line without PROGRAM/ was accepted")


def test_label_only_files_become_mutants_of_the_prefixed_program(tmp_path):
    (tmp_path / "programs").mkdir()
    (tmp_path / "programs" / "P.dfy").write_text("method A() {}\n")
    (tmp_path / "programs" / "P_long.dfy").write_text("method B() {}\n")
    (tmp_path / "incompetent").mkdir()
    (tmp_path / "incompetent" / "P_long__12_AOI.dfy").write_text("method B() { x }\n")
    corpus = load_corpus(tmp_path)
    (m,) = corpus.mutants
    assert (m.program, m.label) == ("P_long", Label.INCOMPETENT)
    assert load_corpus(tmp_path, "P").mutants == ()  # --programs selects; labels follow their program


def test_list_tests_reads_the_generated_runner():
    module_py = '''
class default__:
    @staticmethod
    def Test____Main____(noArgsParameter__):
        d_0_success_ = True
        _dafny.print((_dafny.SeqWithoutIsStrInference(map(_dafny.CodePoint, "A.T1: "))).VerbatimString(False))
        try:
            if True:
                A.default__.T1()
                if True:
                    _dafny.print(_dafny.Seq("PASSED\\n"))
        except _dafny.HaltException as e:
            pass
        _dafny.print((_dafny.SeqWithoutIsStrInference(map(_dafny.CodePoint, "T__2: "))).VerbatimString(False))
        try:
            if True:
                default__.T__2()
        except _dafny.HaltException as e:
            pass
'''
    ast.parse(module_py)
    assert list_tests(module_py) == [("A.T1", ["A", "default__", "T1"]), ("T__2", ["default__", "T__2"])]


def test_method_entries_skip_comments_strings_ghost_and_annotate_once():
    text = (
        '// method Fake()\nghost method G() {}\nmethod {:verify false} A(x: int) { var s := "method B"; }\n'
        "/* method C() */ method Main() {}\nfunction F(): int { 1 }\n"
    )
    assert [n for _, n in method_entries(text)] == ["A", "Main"]
    once = annotate(text, {"A"})
    assert once.count("{:testEntry}") == 1 and "method {:testEntry} {:verify false} A" in once
    assert annotate(once, {"A"}) == once


class _FakeExecutor:
    """Prints, for each test asked for, the marker lines a passing (or, in versions whose text says `WRONG`,
    failing) test prints, stamped as its TestRef says; refuses to build a text saying `BROKEN`."""

    def __init__(self, sources: tuple[str, ...], calls: list[str]):
        self.text = "".join(Path(s).read_text() for s in sources)
        calls.append(self.text)

    def attempt(self, pending) -> Attempt:
        if "BROKEN" in self.text:
            return Attempt(built=False, build_output="prog.dfy(1,1): Error: nope")
        lines = []
        for t in pending:
            version_text = self.text.split(f"module {t.version}")[1][:40] if t.version else self.text
            end = "fail c1" if "WRONG" in version_text else "done"
            lines += [f"{t.frame} start {t.name}", f"{t.frame} call", f"{t.frame} returned", f"{t.frame} {end}"]
        return Attempt("\n".join(lines) + "\n")


def _fake(monkeypatch, calls: list[str]) -> None:
    monkeypatch.setattr(versions, "make_executor",
                        lambda target, dafny, env, workdir, sources, limits, stop=False: _FakeExecutor(sources, calls))


SUITE = versions.our_suite((FIXTURES / "absget_tests.dfy").read_text())


def test_batched_versions_are_told_apart_by_their_stamps(tmp_path, monkeypatch):
    calls: list[str] = []
    _fake(monkeypatch, calls)
    got, builds = run_versions([Version("p/m0", "method ok() {}"), Version("p/m1", "method WRONG() {}")], SUITE,
                               VersionsConfig(RunOptions("py")), Toolchain("dafny", None), tmp_path)
    assert builds == 1 and len(calls) == 1 and calls[0].count(f"module {SUBJECT_MODULE}") == 2
    assert {o.status for o in got["p/m0"].outcomes} == {Status.PASSED}
    assert got["p/m1"].outcomes[0] == Outcome("Test_Abs_p1_s1", Status.FAILED, "ensures (line 3) violated: r >= 0")


def test_batch_that_does_not_build_falls_back_to_one_version_at_a_time(tmp_path, monkeypatch):
    calls: list[str] = []
    _fake(monkeypatch, calls)
    got, builds = run_versions([Version("a", "method ok() {}"), Version("b", "BROKEN")], SUITE,
                               VersionsConfig(RunOptions("py")), Toolchain("dafny", None), tmp_path)
    assert builds == 2 and len(calls) == 3
    assert {o.status for o in got["a"].outcomes} == {Status.PASSED} and got["b"].build_error


def test_foreign_tests_get_wrappers_that_print_our_markers():
    text = ("module DtestProgram { method Abs(x: int) returns (r: int) { r := x; } }\n"
            "module dtUnitTests {\nimport DtestProgram\nmethod {:test} Test0() {\nvar r0 := DtestProgram.Abs(0);\n"
            "expect r0 >= 0;\n}\nmethod Helper() {}\n}\n")
    suite = foreign_suite(text)
    assert [t.name for t in suite.tests] == [f"{WRAPPER_MODULE}.Foreign_1"]
    assert suite.tests[0].case is None
    assert f"module {WRAPPER_MODULE} {{" in suite.text and "import F1 = dtUnitTests" in suite.text
    assert "F1.Test0();" in suite.text and "Helper" not in suite.text.split(WRAPPER_MODULE)[1]


def test_classification_cache_round_trip(tmp_path):
    classifier = Classifier(Toolchain(None, None), "4.11.0", tmp_path, jobs=1)
    key = cache_key("text", "4.11.0", ("verify",))
    assert key != cache_key("text", "4.12.0", ("verify",)) and key != cache_key("text2", "4.11.0", ("verify",))
    classifier._store(key, Classified(Verification.FAILS, "Error: x", 1.5))
    assert classifier._load(key) == Classified(Verification.FAILS, "Error: x", 1.5, cached=True)


def _bench_run() -> BenchRun:
    corpus = load_corpus(CORPUS)
    classes = {f"absget/{m.name}": MutantClass.BUG for m in corpus.mutants}
    classes["absget/absget_same"] = MutantClass.ALIVE
    classes["absget/absget_typo"] = MutantClass.INCOMPETENT
    a = StrategyRun(Strategy.SPEC_BVA, prepared={"absget": Prepared("absget", "t", 3, None, 1.0, suite=Suite("t", ()))},
                    status={"absget/absget_wrong": MutantStatus.KILLED, "absget/absget_loop": MutantStatus.TIMEOUT,
                            "absget/absget_crash": MutantStatus.SURVIVED, "absget/absget_same": MutantStatus.SURVIVED},
                    wall={"generate": 1.0, "safety": 1.0, "kill": 2.0}, builds=1, subjects_run=4)
    b = StrategyRun(Strategy.DTEST_BLOCK, prepared={"absget": Prepared("absget", "", 0, "no tests", 1.0)},
                    unsupported={"absget": "no tests"},
                    status={k: MutantStatus.UNSUPPORTED for k in ("absget/absget_wrong", "absget/absget_loop",
                                                                  "absget/absget_crash")},
                    wall={"generate": 3.0, "safety": 0.0, "kill": 0.0})
    verified = {k: Classified(Verification.FAILS, "", 0.0) for k in classes}
    return BenchRun(corpus, BenchConfig((Strategy.SPEC_BVA, Strategy.DTEST_BLOCK)),
                    {"absget": Classified(Verification.VERIFIED, "", 0.0)}, classes, verified, [a, b], 2.0)


def test_kill_phase_limit_follows_the_slowest_test_on_the_original():
    config = BenchConfig(strategies=(Strategy.SPEC_BVA,), timeout_s=10.0, kill_time_factor=20.0, kill_time_floor_s=2.0)
    assert kill_time_limit(config, 0.01) == 2.0  # quick tests: the floor
    assert kill_time_limit(config, 0.3) == 6.0  # twenty times the slowest
    assert kill_time_limit(config, 1.0) == 10.0  # never beyond --timeout
    assert kill_time_limit(config, 0.0) == 10.0  # not measured (a `dafny test` run): --timeout


def test_figures_count_kills_timeouts_and_unsupported():
    data = to_json(_bench_run())
    bva, block = data["strategies"]["spec-bva"], data["strategies"]["dtest-block"]
    assert (bva["mutants"], bva["killed"], bva["timeout"], bva["survived"]) == (3, 1, 1, 1)
    assert bva["kill_rate"] == round(2 / 3, 4) and bva["unique_kills"] == 2
    assert bva["alive_run"] == 1 and bva["alive_failing"] == 0
    assert (block["programs_supported"], block["unsupported"], block["kill_rate_all"]) == (0, 3, 0.0)
    assert data["overlap"]["pairs"]["dtest-block|spec-bva"]["only_spec-bva"] == 2
    rows = {r["mutant"]: r for r in data["mutants"]}
    assert rows["absget_wrong"]["status"] == {"spec-bva": "killed", "dtest-block": "unsupported"}
    assert rows["absget_typo"]["status"] == {"spec-bva": None, "dtest-block": None}
    assert list(data["survivors"]["spec-bva"]) == ["absget/absget_crash"]
    json.dumps(data)


def test_reports_show_every_strategy():
    data = to_json(_bench_run())
    table = terminal_table(data)
    assert "spec-bva" in table and "66.7" in table and "unsupported absget: no tests" in table
    md = markdown(data)
    assert "| spec-bva |" in md and "absget/absget_crash" in md


def test_mutation_site_names_the_member_at_the_mutants_offset():
    from dspec2test.bench.sites import mutation_offset, mutation_site

    text = "method A(x: int) returns (r: int)\n  ensures r == x\n{ r := x; }\nmethod B() { }\n"
    assert mutation_offset("P", "P_52-55_AOR") == 52 and mutation_offset("P", "P_-_ODL_Add") is None
    assert mutation_site("P", text, f"P_{text.index('r := x')}_VER") == "A"
    assert mutation_site("P", text, f"P_{text.index('{ }')}_SDL") == "B (no contract)"
    assert mutation_site("P", text, "P_-_ODL_Add") == ""


def test_out_of_reach_only_where_no_contracted_member_reaches_the_mutated_one():
    from dspec2test.bench.sites import out_of_reach

    text = ("method A(x: int) returns (r: int)\n  ensures r == 2 * x\n{ r := Helper(x); }\n"
            "function Helper(x: int): int { x + Deep(x) }\n"
            "function Deep(x: int): int { x }\n"
            "method Lonely(x: int) returns (r: int) { r := x; }\n"
            "method Main() { var t := A(1); print t; }\n")
    at = lambda piece, op: f"P_{text.index(piece)}_{op}"
    names = [at("r := Helper", "VER"), at("x + Deep", "AOR"), at("{ x }", "LVR"), at("r := x; }", "SDL"),
             at("print t", "SDL"), "P_-_ODL_Add"]
    assert out_of_reach("P", text, names) == {names[3], names[4]}  # Lonely and Main; Helper and Deep are called


def test_generation_workers_give_the_tests_of_a_direct_run_and_report_a_bad_program(tmp_path):
    from dspec2test.bench.genworker import GenerationPool
    from dspec2test.bench.strategies import OPTIONS, prepare
    from dspec2test.generate import generate

    corpus = load_corpus(Path(__file__).parent / "fixtures" / "corpus")
    [program] = corpus.programs
    broken = tmp_path / "broken.dfy"
    broken.write_text("method M( {\n")
    bad = CorpusProgram("broken", broken, broken.read_text())
    with GenerationPool(2) as pool:
        first = prepare(Strategy.SPEC_BVA, program, tmp_path, None, 120.0, pool)
        again = prepare(Strategy.SPEC_BVA, program, tmp_path, None, 120.0, pool)  # the same, warm worker
        failed = prepare(Strategy.SPEC_BVA, bad, tmp_path, None, 120.0, pool)
    direct = generate(str(program.path), OPTIONS[Strategy.SPEC_BVA])
    assert first.reason is None and first.tests == len(direct.cases) > 0
    assert first.tests_text == again.tests_text == direct.tests_text
    assert failed.reason and failed.tests == 0


def test_a_dead_generation_worker_costs_its_program_only(tmp_path):
    import os
    import signal

    from dspec2test.bench.genworker import GenerationPool
    from dspec2test.bench.strategies import prepare

    [program] = load_corpus(Path(__file__).parent / "fixtures" / "corpus").programs
    with GenerationPool(1) as pool:
        assert prepare(Strategy.SPEC, program, tmp_path, None, 120.0, pool).reason is None
        for pid in list(pool._pool._processes):  # a worker killed from outside, as a crash would
            os.kill(pid, signal.SIGKILL)
        hit = prepare(Strategy.SPEC, program, tmp_path, None, 120.0, pool)
        after = prepare(Strategy.SPEC, program, tmp_path, None, 120.0, pool)
    assert hit.reason and "crashed" in hit.reason
    assert after.reason is None and after.tests > 0


def test_an_exception_inside_a_generation_worker_is_that_programs_crash_not_the_benchs():
    import dataclasses

    from dspec2test.bench.genworker import GenerationPool
    from dspec2test.bench.strategies import OPTIONS

    [program] = load_corpus(Path(__file__).parent / "fixtures" / "corpus").programs
    broken = dataclasses.replace(OPTIONS[Strategy.SPEC], jobs="two")  # generate() raises TypeError in the worker
    with GenerationPool(1) as pool:
        got = pool.run(str(program.path), broken, 60.0)
        fine = pool.run(str(program.path), OPTIONS[Strategy.SPEC], 60.0)
    assert got["crash"].startswith("TypeError")
    assert fine["tests"] > 0


def _copy_corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    shutil.copytree(CORPUS, root)
    return root


def test_recorded_verdicts_replace_dafny_verify_and_a_failing_original_is_skipped(tmp_path):
    root = _copy_corpus(tmp_path)
    shutil.copy(root / "programs" / "absget.dfy", root / "programs" / "broken.dfy")
    (root / "mutants" / "broken").mkdir()
    shutil.copy(root / "mutants" / "absget" / "absget_wrong.dfy", root / "mutants" / "broken" / "broken_m.dfy")
    lines = ["# path\tverify", "programs/absget.dfy\tverified", "programs/broken.dfy\tfails",
             "mutants/broken/broken_m.dfy\tfails"]
    lines += [f"mutants/absget/{p.name}\t{'verified' if 'same' in p.name else 'fails'}"
              for p in sorted((root / "mutants" / "absget").glob("*.dfy"))]
    (root / "verify-status.tsv").write_text("\n".join(lines) + "\n")
    messages: list[str] = []
    # no dafny at all: every verdict must come from the file, and no strategy runs
    bench = run_bench(load_corpus(root), BenchConfig(strategies=()), Toolchain(None, None), messages.append)
    assert bench.recorded == len(bench.originals) + 5 + 1
    assert bench.skipped == {"broken": "the original does not verify (fails)"}
    assert [p.name for p in bench.corpus.programs] == ["absget"]
    assert all(m.program == "absget" for m in bench.corpus.mutants)
    assert bench.classes["absget/absget_same"] is MutantClass.ALIVE
    assert bench.classes["absget/absget_wrong"] is MutantClass.BUG
    assert any("skipped: original broken" in m for m in messages)
    data = to_json(bench)
    assert data["classification"]["skipped_programs"] == {"broken": "the original does not verify (fails)"}


def test_reclassify_ignores_the_recorded_verdicts(tmp_path, monkeypatch):
    root = _copy_corpus(tmp_path)
    (root / "verify-status.tsv").write_text("programs/absget.dfy\tverified\n")
    asked: list[str] = []

    class Recording(Classifier):
        def classify(self, items, progress=None):
            asked.extend(name for name, _ in items)
            return {name: Classified(Verification.VERIFIED, "", 0.0) for name, _ in items}

    monkeypatch.setattr(engine, "Classifier", Recording)
    run_bench(load_corpus(root), BenchConfig(strategies=()), Toolchain(None, None), lambda _: None)
    assert "program:absget" not in asked and "absget/absget_wrong" in asked
    asked.clear()
    run_bench(load_corpus(root), BenchConfig(strategies=(), recorded=False), Toolchain(None, None), lambda _: None)
    assert "program:absget" in asked


def test_a_malformed_recorded_line_is_reported_with_its_position(tmp_path):
    root = _copy_corpus(tmp_path)
    (root / "verify-status.tsv").write_text("# header\nprograms/absget.dfy\tmaybe\n")
    with pytest.raises(ValueError, match=r"verify-status.tsv:2: expected"):
        read_recorded(root)


def test_failures_on_the_original_in_members_that_assume_are_listed_apart_and_every_failing_test_is_dropped():
    from dspec2test.records import ScenarioKind, TestCase
    from dspec2test.run.versions import VersionRun

    text = ("method Bar(x: int) returns (r: int)\n  ensures r == x\n{\n  r := 0;\n  assume r == x;\n}\n"
            "method Foo(x: int) returns (r: int)\n  ensures r == x\n{\n  r := x;\n}\n")

    def case(name, method):
        return SuiteTest(name, name, TestCase(name, method, "p.dfy", 1, 1, 1, "true", ScenarioKind.BASE, None))

    suite = Suite("tests", (case("T_bar", "Bar"), case("T_foo", "Foo"), case("T_foo2", "Foo")))
    run = StrategyRun(Strategy.SPEC_BVA, prepared={"p": Prepared("p", "tests", 3, None, 0.0, suite=suite)})
    got = VersionRun((Outcome("T_bar", Status.FAILED, "ensures"), Outcome("T_foo", Status.CRASHED, "boom"),
                      Outcome("T_foo2", Status.PASSED)))
    engine._sort_out_failures(run, "p", CorpusProgram("p", Path("p.dfy"), text), got)
    assert run.assumed == {"p": ["T_bar: failed ensures"]}
    assert run.false_alarms == {"p": ["T_foo: crashed boom"]}
    assert [t.name for t in run.prepared["p"].suite.tests] == ["T_foo2"] and "p" not in run.unsupported


def test_a_test_with_no_clause_to_check_is_no_false_alarm_and_no_kill_but_a_crash_still_kills():
    from dspec2test.records import ScenarioKind, TestCase
    from dspec2test.run.versions import VersionRun

    unchecked = "ran; none of its 1 clause can be checked at run time: ensures (line 2) IsSquare(r): ghost"
    suite = Suite("tests", (SuiteTest("T_sq", "T_sq", TestCase("T_sq", "Sq", "p.dfy", 1, 1, 1, "true",
                                                               ScenarioKind.BASE, None)),))
    run = StrategyRun(Strategy.SPEC, prepared={"p": Prepared("p", "tests", 1, None, 0.0, suite=suite)})
    original = VersionRun((Outcome("T_sq", Status.NOT_TESTED, unchecked),))
    engine._sort_out_failures(run, "p", CorpusProgram("p", Path("p.dfy"), "method Sq()"), original)
    assert not run.false_alarms and [t.name for t in run.prepared["p"].suite.tests] == ["T_sq"]
    assert engine._status(original) == (engine.MutantStatus.SURVIVED, "")
    crashed = VersionRun((Outcome("T_sq", Status.CRASHED, "halted"),))
    assert engine._status(crashed)[0] is engine.MutantStatus.KILLED
    assert engine._status(VersionRun((Outcome("T_sq", Status.NOT_TESTED, "build failed"),)))[0] \
        is engine.MutantStatus.ERROR

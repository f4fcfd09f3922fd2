"""Generation's results are typed records; the manifest is their JSON, written and read back at the edge."""

from __future__ import annotations

import json
from pathlib import Path

from dspec2test.generate import GenerateOptions, Generated, generate
from dspec2test.generation.manifest import manifest_of, members_of
from dspec2test.pipeline import untested
from dspec2test.records import Limitation, MemberResult, PartitionResult, ScenarioKind, ScenarioResult, ScenarioStatus

FIXTURES = Path(__file__).parent / "fixtures"


def test_the_manifest_reads_back_into_the_records_it_was_written_from():
    got = generate(str(FIXTURES / "abs_or.dfy"), GenerateOptions(bva=100, isolate=False, probe=False))
    assert got.members and all(isinstance(m, MemberResult) for m in got.members)
    text = json.dumps(got.manifest, indent=2)
    back = members_of(json.loads(text))
    assert [m.name for m in back] == [m.name for m in got.members]
    assert [m.partitions for m in back] == [m.partitions for m in got.members]
    assert json.dumps(manifest_of(back), indent=2) == text
    solved = [s for m in got.members for s in m.scenarios if s.test]
    assert solved and all(s.status is ScenarioStatus.SOLVED and s.inputs for s in solved)


def test_optional_keys_are_written_only_when_set_and_in_a_fixed_order():
    scenario = ScenarioResult(2, ScenarioKind.BVA, "x == 0", ScenarioStatus.BAD_INPUT, inputs={"x": "-1"},
                              message="the solved inputs break a requires clause or a type constraint")
    partition = PartitionResult(1, "x >= 0", "x >= 0", (4,), "sat", (scenario,))
    member = MemberResult("M.F", "p.dfy", 3, "method", True, (partition,), stopped="longer than 8 s")
    [entry] = manifest_of([member])["methods"]
    assert list(entry) == ["name", "file", "line", "kind", "body", "partitions", "unsupported", "unchecked", "capped",
                           "stopped"]
    [written] = entry["partitions"][0]["scenarios"]
    assert list(written) == ["id", "kind", "pin", "test", "inputs", "outputs", "unique", "status", "message"]
    assert written["status"] == "bad-input" and written["kind"] == "bva"
    assert members_of({"methods": [entry]}) == (member,)


def test_a_member_without_a_test_is_not_tested_with_the_reason_its_results_give():
    def member(**kw) -> MemberResult:
        return MemberResult("F", "p.dfy", 7, "method", True, **kw)

    unsat = PartitionResult(1, "x < 0", "x < 0", (2,), "sat", (ScenarioResult(1, ScenarioKind.BASE, None,
                                                                              ScenarioStatus.UNSAT),))
    cases = {
        "unsat": member(partitions=(unsat,)),
        "refused": member(unsupported=(Limitation("multiset display", 9, "cannot encode it"),)),
        "none": member(),
    }

    got = untested(Generated("p.dfy", "", (), tuple(cases.values())))
    reasons = {v.message for v in got}
    assert reasons == {"the solver found every scenario unsatisfiable",
                       "unsupported: multiset display (line 9): cannot encode it",
                       "no partition of the contract is satisfiable"}
    assert all(v.member_line == 7 and v.file == "p.dfy" for v in got)

"""Verdicts and run results made by hand, for the report and command tests."""

from dspec2test.errors import Diagnostic
from dspec2test.records import Status, Verdict
from dspec2test.run import RunResult


def verdict(name: str, method: str, p: int, s: int, status: Status, **fields) -> Verdict:
    base = dict(test=name, method=method, partition=p, scenario=s, status=status, file="prog.dfy",
                member_line=2, label="n >= 0", inputs={"n": "3"})
    return Verdict(**{**base, **fields})


PASSED = verdict("Test_M_Sum_p1_s1", "M.Sum", 1, 1, Status.PASSED)
FAILED = verdict("Test_M_Sum_p2_s1", "M.Sum", 2, 1, Status.FAILED, message="dspec2test: expected r == 6 (ensures, line 4)",
                 line=12, clause_line=4, expected="6", actual="7", pin="n == 3")
TIMEOUT = verdict("Test_M_Loop_p1_s1", "M.Loop", 1, 1, Status.TIMEOUT, message="timed out: no verdict within 10 s",
                  member_line=27, label="n > 5", inputs={"n": "7"})
ERROR = verdict("Test_M_Get_p1_s1", "M.Get", 1, 1, Status.CRASHED, message="crashed: IndexError: list index out of range",
                member_line=21, label="true", inputs={"s": "[1, 2]", "i": "5"})
MIXED = RunResult("prog.dfy", (PASSED, FAILED, TIMEOUT, ERROR), rounds=3, wall_s=4.25)
ALL_PASSED = RunResult("prog.dfy", (PASSED,), rounds=1, wall_s=1.0)
BUILD_ERROR = RunResult("prog.dfy", (verdict("Test_M_Sum_p1_s1", "M.Sum", 1, 1, Status.NOT_TESTED,
                                             message="build failed: prog.dfy:4:7: error: unresolved identifier: m"),),
                        build_errors=(Diagnostic("prog.dfy", 4, 7, "unresolved identifier: m"),),
                        program_broken=True, rounds=1)
NO_BODY = RunResult("prog.dfy", (verdict("Test_Abs_p1_s1", "Abs", 1, 1, Status.NO_IMPLEMENTATION,
                                         message="no implementation yet: Abs has no body"),),
                    no_body=("Abs",), rounds=1)

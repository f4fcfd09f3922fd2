"""run stage: generated tests against the implementation with real Dafny -> one Verdict per TestCase."""

from dspec2test.run.runner import RunOptions, RunResult, run_tests

__all__ = ["RunOptions", "RunResult", "run_tests"]

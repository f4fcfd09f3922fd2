"""run stage: generated tests against the implementation with real Dafny -> one Verdict per TestCase.

The one door to running: `run_tests` runs a program's tests (run, check, the action, probes, strength);
`run_versions` runs one suite on many versions of a program (a benchmark's original and mutants), through
the same executors, reader and verdict mapper, with the same RunOptions."""

from dspec2test.run.runner import RunOptions, RunResult, run_tests
from dspec2test.run.versions import Suite, Version, VersionRun, VersionsConfig, run_alone, run_versions

__all__ = ["RunOptions", "RunResult", "Suite", "Version", "VersionRun", "VersionsConfig", "run_alone", "run_tests",
           "run_versions"]

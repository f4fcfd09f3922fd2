"""A build that fails before any test ran: every test not-tested, with a reason a user can act on."""

from pathlib import Path

from dspec2test.emit.metadata import read_metadata
from dspec2test.records import Status
from dspec2test.run.executors import Attempt
from dspec2test.run.runner import RunOptions, _build_failure, _workspace

FIXTURES = Path(__file__).parent / "fixtures"
NO_SDK_OUTPUT = """\
The command could not be loaded, possibly because:
  * You intended to execute a .NET application:
      The application 'build' does not exist.
  * You intended to execute a .NET SDK command:
      No .NET SDKs were found.

Download a .NET SDK:
https://aka.ms/dotnet/download
"""


def test_the_cs_target_where_only_the_dotnet_runtime_is_says_which_image_to_use(tmp_path):
    text = (FIXTURES / "pass_tests.dfy").read_text()
    cases = read_metadata(text)
    ws = _workspace(tmp_path, str(FIXTURES / "prog.dfy"), text, None, "N")
    failed = Attempt(built=False, build_output=NO_SDK_OUTPUT, returncode=1)
    verdicts, extra = _build_failure(ws, (), failed, cases, RunOptions(target="cs"))
    assert {v.status for v in verdicts.values()} == {Status.NOT_TESTED} and not extra
    assert all("needs its -cs variant" in v.message and "target cs" in v.message for v in verdicts.values())
    other = Attempt(built=False, build_output="Error: something else\n", returncode=1)
    plain, _ = _build_failure(ws, (), other, cases, RunOptions(target="cs"))
    assert all(v.message == "build failed: Error: something else" for v in plain.values())

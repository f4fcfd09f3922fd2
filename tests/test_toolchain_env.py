"""The environment of processes that compile or run the code under test holds no token."""

import shutil

from dspec2test import toolchain
from dspec2test.toolchain import Toolchain, untrusted_env

TOKEN = "ghs_0123456789abcdefABCDEF"


def test_tokens_inputs_and_copies_of_them_are_removed_the_rest_kept(monkeypatch):
    env = {"PATH": "/usr/bin", "HOME": "/root", "GITHUB_TOKEN": TOKEN, "INPUT_GITHUB_TOKEN": TOKEN,
           "INPUT_API_KEY": "s3cr3t-value-from-secrets", "ACTIONS_RUNTIME_TOKEN": "eyJ0eXAiOiJKV1Qi",
           "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJhbGciOi", "ACTIONS_ID_TOKEN_REQUEST_URL": "https://x/token",
           "MY_COPY": "s3cr3t-value-from-secrets", "PAT": "github_pat_11ABCDEFG", "GITHUB_REPOSITORY": "o/r",
           "INPUT_BVA": "true", "DOTNET_ROOT": "/usr/share/dotnet", "INPUT_PATHS": "/github/workspace",
           "GITHUB_WORKSPACE": "/github/workspace"}
    # an input that is no secret takes nothing else with it
    assert untrusted_env(env) == {"PATH": "/usr/bin", "HOME": "/root", "GITHUB_REPOSITORY": "o/r",
                                  "DOTNET_ROOT": "/usr/share/dotnet", "GITHUB_WORKSPACE": "/github/workspace"}
    monkeypatch.setattr("os.environ", env)
    dafny = Toolchain("dafny", None).dafny_env()
    assert not {k for k, v in dafny.items() if "TOKEN" in k or k.startswith("INPUT_") or v == TOKEN}
    assert dafny["DOTNET_NOLOGO"] == "1" and dafny["HOME"] == "/root"


def test_z3_is_taken_from_the_environment_then_beside_the_interpreter_then_path(tmp_path, monkeypatch):
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    beside = venv_bin / "z3"
    beside.write_text("#!/bin/sh\necho 'Z3 version 4.12.1 - 64 bit'\n")
    beside.chmod(0o755)
    monkeypatch.setattr("sys.executable", str(venv_bin / "python"))
    monkeypatch.delenv("DSPEC2TEST_Z3", raising=False)
    found = toolchain.find_toolchain().z3
    assert found == str(beside)
    assert toolchain.z3_description(found) == f"Z3 4.12.1 ({beside})"
    monkeypatch.setenv("DSPEC2TEST_Z3", "/opt/other/z3")
    assert toolchain.find_toolchain().z3 == "/opt/other/z3"
    assert toolchain.z3_description("/opt/other/z3") == "Z3 of unknown version (/opt/other/z3: does not run)"
    beside.unlink()
    monkeypatch.delenv("DSPEC2TEST_Z3")
    assert toolchain.find_toolchain().z3 == shutil.which("z3")

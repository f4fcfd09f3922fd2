"""Golden files: compare with a stored file, or rewrite it when DSPEC2TEST_UPDATE_GOLDEN=1."""

import os
from pathlib import Path


def check_golden(path: Path, actual: str) -> None:
    if os.environ.get("DSPEC2TEST_UPDATE_GOLDEN") == "1" or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        if os.environ.get("DSPEC2TEST_UPDATE_GOLDEN") != "1":
            raise AssertionError(f"golden file {path} was missing and has been written; re-run")
        return
    assert actual == path.read_text(encoding="utf-8"), f"differs from {path} (DSPEC2TEST_UPDATE_GOLDEN=1 rewrites)"

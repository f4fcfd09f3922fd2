import shutil
from pathlib import Path

import pytest

from dspec2test.toolchain import find_toolchain

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    """A private copy of the fixture programs, so runs never write beside the repo's files."""
    for f in FIXTURES.glob("*.dfy"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if find_toolchain().dafny:
        return
    skip = pytest.mark.skip(reason="dafny not found (run scripts/setup.sh)")
    for item in items:
        if "dafny" in item.keywords:
            item.add_marker(skip)

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    """A private copy of the fixture programs, so runs never write beside the repo's files."""
    for f in FIXTURES.glob("*.dfy"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


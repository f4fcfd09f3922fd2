"""Tests marked `dafny` need the real toolchain: without it they are skipped, saying how to get it."""

import pytest

from dspec2test.toolchain import find_toolchain


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if find_toolchain().dafny:
        return
    skip = pytest.mark.skip(reason="dafny not found (run scripts/setup.sh)")
    for item in items:
        if "dafny" in item.keywords:
            item.add_marker(skip)

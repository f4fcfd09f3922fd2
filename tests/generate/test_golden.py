"""Golden files for whole generation runs: the manifest (partitions, scenarios) and the emitted tests text.

Regenerate with DSPEC2TEST_UPDATE_GOLDEN=1 after an intended change (solver models included).
"""

import json
from pathlib import Path

import pytest
from golden_util import check_golden

from dspec2test.generate import GenerateOptions, generate

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("fixture,options,tag", [
    # the solver's stage alone (no search), and the default run, whose inputs come from the search first
    ("conditional_get.dfy", GenerateOptions(bva=100, search=False), "bva"),
    ("abs_or.dfy", GenerateOptions(fdnf=True, search=False), "fdnf"),
    ("mixed.dfy", GenerateOptions(simplify=True, search=False), "simplify"),
    ("lifted.dfy", GenerateOptions(simplify=True, search=False), "simplify"),
    ("conditional_get.dfy", GenerateOptions(), "search"),
])
def test_generation_golden(fixture, options, tag, monkeypatch):
    monkeypatch.chdir(FIXTURES)  # relative paths keep the golden files machine independent
    g = generate(fixture, options)
    stem = f"{Path(fixture).stem}.{tag}"
    check_golden(GOLDEN / f"{stem}.json", json.dumps(g.manifest, indent=2) + "\n")
    check_golden(GOLDEN / f"{stem}.tests.dfy", g.tests_text)

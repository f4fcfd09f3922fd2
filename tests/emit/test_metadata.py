from hypothesis import given
from hypothesis import strategies as st

from dspec2test.emit.metadata import MARKER, read_metadata, without_tests, write_metadata
from dspec2test.emit.metadata import test_blocks as blocks
from dspec2test.records import ScenarioKind
from dspec2test.records import TestCase as Case

text = st.text(max_size=20)
cases = st.builds(
    Case,
    name=st.from_regex(r"Test_[A-Za-z0-9_]{1,10}", fullmatch=True),
    method=text,
    file=text,
    line=st.integers(min_value=1, max_value=10_000),
    partition=st.integers(min_value=1, max_value=64),
    scenario=st.integers(min_value=1, max_value=64),
    label=text,
    kind=st.sampled_from(ScenarioKind),
    pin=st.none() | text,
    inputs=st.dictionaries(text, text, max_size=3),
    outputs=st.dictionaries(text, text, max_size=3),
    unique=st.booleans(),
    clauses=st.lists(st.integers(min_value=1, max_value=999), max_size=4).map(tuple),
    unchecked=st.integers(min_value=0, max_value=3),
    unchecked_first=text,
).filter(lambda tc: tc.unchecked or not tc.unchecked_first)


@given(cases)
def test_round_trip(tc: Case) -> None:
    line = write_metadata(tc)
    assert line.startswith(MARKER)
    assert "\n" not in line and "\r" not in line
    assert read_metadata(line) == [tc]


def test_reads_only_marker_lines_in_order() -> None:
    a = Case("Test_A_p1_s1", "A", "p.dfy", 3, 1, 1, "x > 0", ScenarioKind.BASE, None, {"x": "1"})
    b = Case("Test_A_p2_s1", "A", "p.dfy", 3, 2, 1, "x <= 0", ScenarioKind.BVA, "x == 0", {"x": "0"})
    tests = "\n".join(["// a comment", write_metadata(a), "method {:test} Test_A_p1_s1() {}",
                       "  " + write_metadata(b), "method {:test} Test_A_p2_s1() {}"])
    assert read_metadata(tests) == [a, b]


def test_kind_is_written_as_its_value() -> None:
    tc = Case("Test_A_p1_s2", "A", "p.dfy", 3, 1, 2, "x > 0", ScenarioKind.REPEAT, None)
    assert '"kind": "repeat"' in write_metadata(tc)


def test_blocks_and_removal() -> None:
    a = Case("Test_A_p1_s1", "A", "p.dfy", 3, 1, 1, "x > 0", ScenarioKind.BASE, None)
    b = Case("Test_A_p2_s1", "A", "p.dfy", 3, 2, 1, "x <= 0", ScenarioKind.BASE, None)
    text = "\n".join(["// header", "", write_metadata(a), "method {:test} Test_A_p1_s1() {", "}", "",
                      write_metadata(b), "method {:test} Test_A_p2_s1() {", "}"]) + "\n"
    assert blocks(text) == [("Test_A_p1_s1", 3, 6), ("Test_A_p2_s1", 7, 9)]
    reduced = without_tests(text, {"Test_A_p1_s1"})
    assert reduced.startswith("// header\n\n" + write_metadata(b))
    assert read_metadata(reduced) == [b]

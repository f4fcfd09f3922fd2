"""The fixture pull request: a base commit and a head commit that plants a bug in Abs's body,
touches Max's contract, changes the predicate Small (used by Clamp in the same file, far from the
hunks, and by UsesSmall in an unchanged file), adds a file, and leaves Untouched alone."""

from dspec2test.action.results import verdict_from
from dspec2test.report.findings import finding_key, tag_of

ABS = """\
method Abs(x: int) returns (r: int)
  ensures r >= 0
  ensures r == x || r == -x
{
  if x < 0 {
    r := -x;
  } else {
    r := x;
  }
}
"""

BASE_PROG = """\
predicate Small(x: int)
{
  x < 10
}

""" + ABS + """
method Max(a: int, b: int) returns (m: int)
  ensures m >= a
  ensures m >= b
  ensures m == a || m == b
{
  if a > b {
    m := a;
  } else {
    m := b;
  }
}

method Untouched(x: int) returns (r: int)
  ensures r == x + 1
{
  r := x + 1;
}

method Clamp(x: int) returns (r: int)
  requires Small(x)
  ensures r == x
{
  r := x;
}
"""

HEAD_PROG = (BASE_PROG
             .replace("  x < 10\n", "  x < 100\n")
             .replace("  } else {\n    r := x;\n", "  } else {\n    r := x - 1;\n")
             .replace("  ensures m >= b\n", "  ensures b <= m\n"))

FIXED_PROG = HEAD_PROG.replace("    r := x - 1;\n", "    r := x + 0;\n")

OTHER = """\
include "prog.dfy"

method UsesSmall(x: int) returns (r: int)
  requires Small(x)
  ensures r == x
{
  r := x;
}
"""

NEW = """\
method Twice(x: int) returns (r: int)
  ensures r == 2 * x
{
  r := x + x;
}
"""

ABS_BUG_LINE = 13  # `r := x - 1;`
ABS_CLAUSE_LINE = 7  # `ensures r >= 0`, outside the hunk's context
MAX_CLAUSE_LINE = 19  # `ensures b <= m`, a changed line
CLAMP_CLAUSE_LINE = 37


def v(file, method, partition, scenario, status, member_line, clause_line=None, clause=None, label="", **extra):
    return {"test": f"Test_{method}_p{partition}_s{scenario}", "file": file, "method": method,
            "partition": partition, "scenario": scenario, "status": status, "member_line": member_line,
            "clause_line": clause_line, "clause": clause, "label": label,
            "message": f"dspec2test: ensures (line {clause_line}) violated: {clause}" if clause else "", **extra}


def verdicts(abs_fixed=False):
    return [
        v("prog.dfy", "Abs", 1, 1, "passed", 6, label="x < 0"),
        v("prog.dfy", "Abs", 2, 1, "passed" if abs_fixed else "failed", 6, ABS_CLAUSE_LINE, "r >= 0",
          label="x >= 0", inputs={"x": "0"}, actual="r = -1", expected="r >= 0"),
        v("prog.dfy", "Abs", 2, 2, "passed", 6, label="x >= 0"),
        v("prog.dfy", "Max", 1, 1, "passed", 17, label="a > b"),
        v("prog.dfy", "Max", 2, 1, "failed", 17, MAX_CLAUSE_LINE, "b <= m", label="a <= b",
          inputs={"a": "1", "b": "2"}, actual="m = 1"),
        v("prog.dfy", "Clamp", 1, 1, "failed", 35, CLAMP_CLAUSE_LINE, "r == x", label="Small(x)",
          inputs={"x": "50"}),
        v("other.dfy", "UsesSmall", 1, 1, "failed", 3, 5, "r == x", label="Small(x)", inputs={"x": "3"}),
        v("new.dfy", "Twice", 1, 1, "passed", 1, label="true"),
        v("prog.dfy", "Untouched", 1, 1, "failed", 29, 30, "r == x + 1"),  # never asked for: must not show
    ]


def abs_key() -> str:
    """The marker key of Abs's finding (its broken clause `r >= 0`), as the review comments carry it."""
    return finding_key("prog.dfy", "Abs", tag_of(verdict_from(verdicts()[1])))

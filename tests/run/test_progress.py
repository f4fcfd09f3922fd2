"""What `run` shows while it works: a line per member generated (a bar on a terminal), then the runs."""

import io
from pathlib import Path

from dspec2test.generate import GenerateOptions, generate
from dspec2test.report.terminal import TerminalProgress

FIXTURES = Path(__file__).resolve().parents[1] / "generate" / "fixtures"


class Heard:
    def __init__(self) -> None:
        self.events: list[tuple] = []

    def generating(self, members: int) -> None:
        self.events.append(("generating", members))

    def member_done(self, member: str, tests: int, seconds: float, stopped: str | None) -> None:
        self.events.append((member, tests, stopped))


def test_a_log_gets_a_plain_line_per_member():
    err = io.StringIO()
    p = TerminalProgress(err, tty=False)
    p.generating(2)
    p.member_done("M.Find", 12, 1.25, None)
    p.member_done("Slow", 3, 120.0, "took longer than 120 s; stopped")
    assert err.getvalue().splitlines() == ["generating tests for 2 members", "  [1/2] M.Find: 12 tests in 1.2 s",
                                           "  [2/2] Slow: 3 tests in 120.0 s (stopped: took longer than 120 s; stopped)"]
    assert "\r" not in err.getvalue()


def test_a_terminal_gets_one_bar_redrawn_in_place_and_a_closing_line():
    err = io.StringIO()
    p = TerminalProgress(err, tty=True)
    p.generating(4)
    p.member_done("A", 2, 0.5, None)
    drawn = err.getvalue()
    assert drawn.count("\n") == 0 and drawn.rstrip().endswith("1/4 members  A: 2 tests in 0.5 s")
    assert "[" + "#" * 6 + "." * 18 + "]" in drawn
    for name in "BCD":
        p.member_done(name, 1, 0.1, None)
    last = err.getvalue().rsplit("\r", 1)[-1]
    assert last.startswith("\x1b[K5 tests generated for 4 members in ") and last.endswith(" s\n")


def test_generation_tells_the_progress_of_every_member(tmp_path):
    heard = Heard()
    generated = generate(str(FIXTURES / "abs_or.dfy"), GenerateOptions(isolate=False), progress=heard)
    members = [e for e in heard.events if e[0] != "generating"]
    assert heard.events[0] == ("generating", len(generated.manifest["methods"]))
    assert sorted(m[0] for m in members) == sorted(e["name"] for e in generated.manifest["methods"])
    assert sum(m[1] for m in members) == len(generated.cases)

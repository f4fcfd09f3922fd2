"""The lines a generated test prints for the runner, and the per-run stamp that makes them unforgeable.

A test prints `[dspec2test:RUN] start NAME`, `call`, `returned`, `actual X = V`, `fail ID` (the id of
the check that failed, resolved by the TestCase's checks), then `expected X = V` for each output the
failed clause pins to a value, and `done`. The tests file holds the
placeholder MARK; each run replaces it with a fresh nonce, in its own copy, so that a program under
test cannot print a line the runner would take for ours: it cannot know the nonce. In a batched run
every program version's copy of the tests gets its own stamp, so a line also says which version printed it.
This module is the only place that writes or parses the format (emit writes, run reads).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from enum import Enum

MARK = "[dspec2test:RUN]"
_OPEN = "[dspec2test:"


class Marker(str, Enum):
    START = "start"  # NAME: the test began
    CALL = "call"  # the inputs are built and checked: the member under test is called next
    RETURNED = "returned"  # the member returned: the contract is checked next
    ACTUAL = "actual"  # X = V: the value of an output (V may run over several lines)
    EXPECTED = "expected"  # X = V: after `fail`, the value the failed clause pins output X to
    FAIL = "fail"  # ID: that check failed
    DONE = "done"  # every check held
    NO_BODY = "no-body"  # MEMBER: a stub the runner gave a body-less method was reached
    NOT_BUILT = "not-built"  # MEMBER ERROR: a stub the runner gave a member whose code does not build was reached
    END = "end"  # INDEX JSON: how a test the driver ran ended (driver runs only)


def new_nonce() -> str:
    return secrets.token_hex(8)


def stamp_of(nonce: str, version: str = "") -> str:
    return f"{_OPEN}{nonce}{'/' + version if version else ''}]"


def stamp(text: str, nonce: str, version: str = "") -> str:
    """Our own generated text with its placeholder marks made this run's."""
    return text.replace(MARK, stamp_of(nonce, version))


@dataclass(frozen=True)
class Line:
    version: str  # "" outside batched runs
    event: Marker
    rest: str  # what follows the event word


def read_line(line: str, nonce: str) -> Line | None:
    """The marker on `line` when it carries this run's nonce, else None."""
    head = _OPEN + nonce
    if not line.startswith(head):
        return None
    tail = line[len(head):]
    version = ""
    if tail.startswith("/"):
        version, sep, tail = tail[1:].partition("]")
        if not sep:
            return None
    elif tail.startswith("]"):
        tail = tail[1:]
    else:
        return None
    word, _, rest = tail.strip().partition(" ")
    try:
        return Line(version, Marker(word), rest)
    except ValueError:
        return None

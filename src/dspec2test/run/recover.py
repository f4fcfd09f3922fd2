"""What can still run when program and tests do not build: the decisions `run` and the bench share.

Two kinds of build error leave the rest of the tests runnable: members without a body (they get stubs,
run/stubs.py), and errors inside some of our generated tests (those tests are taken out, each with
its error). Any other error stops the build for every test.
"""

from __future__ import annotations

from collections.abc import Collection

from dspec2test.emit.metadata import test_blocks
from dspec2test.errors import Diagnostic
from dspec2test.run.diagnostics import no_body_member


def missing_bodies(errors: tuple[Diagnostic, ...]) -> tuple[str, ...]:
    """The members the build failed on for having no body, when those were its only errors."""
    missing = [no_body_member(d) for d in errors]
    return tuple(dict.fromkeys(m for m in missing if m)) if errors and None not in missing else ()


def broken_tests(errors: tuple[Diagnostic, ...], tests_text: str, tests_files: Collection[str],
                 pending: Collection[str]) -> dict[str, Diagnostic] | None:
    """When every build error lies inside some of our pending tests (in a file named in `tests_files`):
    the first error of each such test. None when any error is elsewhere."""
    blocks = test_blocks(tests_text)
    broken: dict[str, Diagnostic] = {}
    for d in errors:
        owner = next((name for name, first, last in blocks if first <= d.line <= last), None)
        if d.file not in tests_files or owner is None or owner not in pending:
            return None
        broken.setdefault(owner, d)
    return broken or None

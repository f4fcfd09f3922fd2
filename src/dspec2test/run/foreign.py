"""Tests we did not write (Dafny's own `generate-tests`, say) run through the same reader: each gets a
wrapper test of ours that prints the marker lines around a call of it.

A wrapper `Foreign_K` in module `DspecForeign` imports the module of foreign test K and calls it
between `call` and `done`; a halt in it (one of its `expect`s, or the program's) or a crash leaves
`done` unprinted, which the reader and the verdict mapper see like any other test's. Only wrappers
are run; the foreign tests themselves keep their `{:test}` attribute but are never selected.
"""

from __future__ import annotations

from dspec2test.dafny.parser import iter_members, parse_program
from dspec2test.emit.markers import MARK, Marker
from dspec2test.errors import DspecError
from dspec2test.run.versions import Suite, SuiteTest

WRAPPER_MODULE = "DspecForeign"


def foreign_suite(tests_text: str, path: str = "tests.dfy") -> Suite:
    """The tests text with a module of wrappers appended, and the wrappers as the suite's tests.
    Raises DspecError when the tests do not parse (their names cannot be read)."""
    program = parse_program(tests_text, path)
    found = [(name, member) for name, member in iter_members(program)
             if any(a.name == "test" for a in member.attributes)]
    if any("." not in qualified for qualified, _ in found):
        raise DspecError("a test in the default module cannot be imported by a wrapper", 1, 1)
    imports: dict[str, str] = {}
    body: list[str] = []
    tests: list[SuiteTest] = []
    for k, (qualified, _) in enumerate(found, 1):
        module, _, method = qualified.rpartition(".")
        alias = imports.setdefault(module, f"F{len(imports) + 1}")
        target = f"{alias}.{method}"
        name = f"Foreign_{k}"
        shown = f"{WRAPPER_MODULE}.{name}"
        body += [f"  method {{:test}} {name}() {{",
                 f'    print "\\n{MARK} {Marker.START.value} {shown}\\n";',
                 f'    print "\\n{MARK} {Marker.CALL.value}\\n";',
                 f"    {target}();",
                 f'    print "\\n{MARK} {Marker.DONE.value}\\n";',
                 "  }"]
        tests.append(SuiteTest(shown, shown))
    head = [f"module {WRAPPER_MODULE} {{"] + [f"  import {alias} = {module}" for module, alias in imports.items()]
    return Suite(tests_text.rstrip() + "\n\n" + "\n".join(head + body + ["}"]) + "\n", tuple(tests))

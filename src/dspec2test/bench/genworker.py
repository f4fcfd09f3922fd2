"""Generation in a child process: `python -m dspec2test.bench.genworker PROGRAM OPTIONS.json OUT.json`.

Z3 can abort the whole interpreter (a C++ assertion), and generation holds the GIL while it solves, so
the benchmark generates each program in its own process: a crash or a hang costs that program only,
and --jobs programs generate truly in parallel.
"""

from __future__ import annotations

import dataclasses
import json
import sys

from dspec2test.errors import DspecError, Severity
from dspec2test.generate import GenerateOptions, generate
from dspec2test.solve import skip_python_checks


def main(argv: list[str]) -> int:
    program, options_file, out_file = argv
    skip_python_checks()
    fields = json.loads(open(options_file).read())
    options = GenerateOptions(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
    result: dict
    try:
        got = generate(program, options)
    except DspecError as exc:
        result = {"error": f"{exc.line}:{exc.col}: {exc.message}"}
    else:
        problems = [d.render() for d in got.diagnostics if d.severity is not Severity.WARNING]
        unsupported = sum(d.severity is Severity.UNSUPPORTED for d in got.diagnostics)
        result = {"tests_text": got.tests_text, "tests": len(got.cases), "problems": problems,
                  "unsupported": unsupported}
    with open(out_file, "w") as out:
        json.dump(result, out)
    return 0


def options_json(options: GenerateOptions) -> str:
    return json.dumps(dataclasses.asdict(options))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

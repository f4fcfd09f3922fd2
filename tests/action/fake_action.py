"""`dspec2test action` with a fake pipeline, run as a subprocess by the tests.

The verdicts come from the JSON file in $FAKE_VERDICTS (only those of the members the action asked
for); the targets it asked for are written to $FAKE_TARGETS_OUT; with $FAKE_RAISE it raises instead.
"""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.action

from dspec2test.action.pipeline import PipelineResult  # noqa: E402
from dspec2test.action.results import verdict_from  # noqa: E402
from dspec2test.action.runner import Context, run_action  # noqa: E402
from tests.action.helpers import member_reader  # noqa: E402


def fake_pipeline(targets, options):
    wanted = {(t.file, m) for t in targets for m in t.methods}
    with open(os.environ["FAKE_TARGETS_OUT"], "a", encoding="utf-8") as handle:
        handle.write(json.dumps(sorted(wanted)) + "\n")
    if os.environ.get("FAKE_RAISE"):  # an internal error of the pipeline
        raise RuntimeError(os.environ["FAKE_RAISE"])
    spec = json.loads(Path(os.environ["FAKE_VERDICTS"]).read_text())
    verdicts = [verdict_from(d) for d in spec if (d["file"], d["method"]) in wanted]
    # the real pipeline reports absolute program paths; the action must make them relative
    verdicts = [v.__class__(**{**v.__dict__, "file": str(Path(options.root) / v.file)}) for v in verdicts]
    if options.generate.cache_dir:
        names = tuple(sorted({m for _, m in wanted}))
        return PipelineResult(tuple(verdicts), cached=names, looked_up=len(names))
    return PipelineResult(tuple(verdicts))


if __name__ == "__main__":
    sys.exit(run_action(Context(dict(os.environ), sys.stdout, sys.stderr, read=member_reader()), fake_pipeline))

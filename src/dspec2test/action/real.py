"""The real pipeline: each target file generated, run and completed in process (pipeline.run_program),
with typed results. A failure inside one program is that program's internal error, reported for its
members (not-tested, with the reason), and the other programs are still tested.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Sequence

from dspec2test.action.choose import relative
from dspec2test.action.pipeline import PipelineOptions, PipelineResult, Target
from dspec2test.errors import Diagnostic
from dspec2test.pipeline import run_program
from dspec2test.report.terminal import render
from dspec2test.run import RunOptions


def real_pipeline(targets: Sequence[Target], options: PipelineOptions) -> PipelineResult:
    verdicts, diagnostics, reports = [], [], []
    run_options = RunOptions(target=options.target, timeout_s=options.timeout)
    for target in targets:
        path = options.root / target.file
        try:
            tested = run_program(str(path), replace(options.generate, methods=target.methods), run_options)
        except Exception as exc:  # noqa: BLE001 - one program's internal error must not stop the others
            reason = f"internal error: {type(exc).__name__}: {exc}"[:500]
            diagnostics.append(Diagnostic(target.file, 0, 0, reason))
            continue
        verdicts += tested.result.verdicts
        diagnostics += [_relative(d, options.root) for d in tested.diagnostics + tested.result.build_errors]
        reports.append(render(replace(tested.result, program=target.file)))
    return PipelineResult(tuple(verdicts), tuple(diagnostics), "".join(reports))


def _relative(d: Diagnostic, root: Path) -> Diagnostic:
    return replace(d, file=relative(d.file, root))

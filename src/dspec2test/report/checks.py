"""A check run per run (`reporter: check`): the job summary as its output, every finding as an
annotation, its conclusion from the gate.

The Checks API takes at most 50 annotations per request, so the run is created in progress with the
first 50, the rest are added 50 at a time by updates (which append), and the last update completes it
with the conclusion. A 403 (a fork's read-only token, or no `checks: write`) is reported as such, so
the caller can fall back to workflow-command annotations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dspec2test.report.gate import Conclusion
from dspec2test.report.github import GitHub, PublishError

CHUNK = 50
SUMMARY_LIMIT = 65535  # characters of a check run's output.summary


@dataclass
class CheckOutcome:
    id: int | None = None
    url: str = ""
    annotations: int = 0
    errors: list[str] = field(default_factory=list)
    forbidden: bool = False  # GitHub answered 403: the token may not write check runs

    @property
    def degraded(self) -> bool:
        return bool(self.errors)


def publish_check_run(gh: GitHub, name: str, head_sha: str, conclusion: Conclusion, title: str, summary: str,
                      annotations: list[dict], details_url: str = "") -> CheckOutcome:
    out = CheckOutcome()
    chunks = [annotations[i:i + CHUNK] for i in range(0, len(annotations), CHUNK)] or [[]]
    text = summary if len(summary) <= SUMMARY_LIMIT else summary[:SUMMARY_LIMIT - 40] + "\n\n(cut: see the job summary)"

    def output(chunk: list[dict]) -> dict:
        return {"title": title[:255], "summary": text, "annotations": chunk}

    done = {"status": "completed", "conclusion": conclusion.value}
    first = {"name": name, "head_sha": head_sha, "output": output(chunks[0]),
             **(done if len(chunks) == 1 else {"status": "in_progress"})}
    if details_url:
        first["details_url"] = details_url
    path = f"{gh.repo_path}/check-runs"
    try:
        created = gh.write("POST", path, first)
        out.id, out.url = created.get("id"), str(created.get("html_url") or "")
        out.annotations = len(chunks[0])
        for index, chunk in enumerate(chunks[1:], start=2):
            gh.write("PATCH", f"{path}/{out.id}", {"output": output(chunk), **(done if index == len(chunks) else {})})
            out.annotations += len(chunk)
    except PublishError as exc:
        out.forbidden = exc.status == 403
        out.errors.append(f"check run: {exc}")
        gh.log(f"dspec2test: GitHub rejected the check run: {exc}")
        if out.id is not None:  # created, but not all chunks went in: do not leave it in progress
            try:
                gh.write("PATCH", f"{path}/{out.id}", done)
            except PublishError:
                pass  # the error above already makes the caller fall back to annotations
    return out

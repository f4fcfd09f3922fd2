#!/usr/bin/env python3
"""The README's pictures, from a real run of the action against the GitHub stand-in of the tests.

    .venv/bin/python scripts/readme_pictures.py                 # writes docs/images/*.png
    .venv/bin/python scripts/readme_pictures.py --out /tmp/pics --keep-html

A scratch repository gets a pull request that plants the bug of examples/conditional_get.dfy (its base
has LastOrDefault right); tests/action/github_standin.py plays GitHub's REST API on 127.0.0.1 (PyGithub
is pointed at it through GITHUB_API_URL, as the tests do); `dspec2test action` runs on it with the real
pipeline and `bva: true`, and posts its review there. The review comment, shown under the diff lines it
sits on, and the job summary it wrote are rendered to HTML with GitHub-like styles and photographed with
Debian's headless chromium, then cropped. Needs `apt-get install chromium python3-markdown
fonts-noto-color-emoji` besides what scripts/setup.sh installs; no network.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import markdown
from PIL import Image, ImageChops

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.action.github_standin import HUNK, GitHubStandIn, PullState  # noqa: E402
from tests.action.helpers import make_repo, pr_files  # noqa: E402

REPO = "octo/widgets"
TOKEN = "ghs_picturestoken0123456789"
EXAMPLE = "examples/conditional_get.dfy"
WIDTH = 980

CSS = """
body { font: 14px/1.5 -apple-system, "Segoe UI", "Liberation Sans", "DejaVu Sans", sans-serif; color: #1f2328;
       background: #ffffff; margin: 0; padding: 16px; width: %dpx; }
code, pre, .code { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12px; }
code { background: rgba(175,184,193,0.2); padding: 0.1em 0.3em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 12px; border-radius: 6px; overflow: hidden; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #d1d9e0; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
tr:nth-child(2n) td { background: #f6f8fa; }
h2 { font-size: 22px; border-bottom: 1px solid #d1d9e0; padding-bottom: 6px; margin: 0 0 12px; }
h3 { font-size: 17px; margin: 20px 0 8px; }
h4 { font-size: 15px; margin: 16px 0 6px; }
a { color: #0969da; text-decoration: none; }
blockquote { margin: 0 0 12px; padding: 0 12px; color: #59636e; border-left: 4px solid #d1d9e0; }
.file { border: 1px solid #d1d9e0; border-radius: 6px; overflow: hidden; }
.file-head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 12px; font-weight: 600; }
.diff { width: 100%%; border-collapse: collapse; margin: 0; }
.diff td { border: none; padding: 0 10px; white-space: pre; background: none; line-height: 20px; }
.diff td.num { color: #59636e; text-align: right; width: 36px; user-select: none; }
.diff tr.add td { background: #dafbe1; }
.diff tr.del td { background: #ffebe9; }
.diff tr.hunk td { background: #ddf4ff; color: #59636e; }
.thread { border-top: 1px solid #d1d9e0; border-bottom: 1px solid #d1d9e0; background: #f6f8fa; padding: 12px; }
.comment { background: #ffffff; border: 1px solid #d1d9e0; border-radius: 6px; }
.comment-head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 12px; color: #59636e; }
.comment-head b { color: #1f2328; }
.badge { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 6px; font-size: 12px; margin-left: 4px; }
.comment-body { padding: 4px 16px; }
.caption { color: #59636e; margin-bottom: 8px; }
""" % WIDTH


def pull_request(tmp: Path) -> tuple[Path, str, str]:
    """A repository whose pull request turns a correct LastOrDefault into the example's buggy one."""
    buggy = (ROOT / EXAMPLE).read_text(encoding="utf-8")
    correct = buggy.replace("r := s[|s| - 2];", "r := s[|s| - 1];")
    if correct == buggy:
        raise SystemExit(f"{EXAMPLE}: the planted bug `r := s[|s| - 2];` is not there any more")
    return make_repo(tmp, {EXAMPLE: correct}, {EXAMPLE: buggy})


def run_action(repo: Path, base: str, head: str, tmp: Path) -> tuple[GitHubStandIn, str, str]:
    """The action's real run against the stand-in: (stand-in after the run, job summary, step log)."""
    pull = PullState(7, head, base, REPO, REPO, pr_files(repo, base, head))
    event = tmp / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 7, "pull_request": {
        "number": 7, "head": {"sha": head, "repo": {"full_name": REPO}},
        "base": {"sha": base, "repo": {"full_name": REPO}}}}), encoding="utf-8")
    summary, outputs = tmp / "summary.md", tmp / "outputs.txt"
    with GitHubStandIn(REPO, TOKEN, pull) as server:
        env = {
            "PATH": os.environ["PATH"], "HOME": str(tmp), "GIT_CONFIG_NOSYSTEM": "1", "PYTHONPATH": str(ROOT / "src"),
            "GITHUB_ACTIONS": "true", "GITHUB_API_URL": server.url, "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
            "GITHUB_WORKSPACE": str(repo), "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_SHA": head, "GITHUB_RUN_ID": "1", "INPUT_GITHUB_TOKEN": TOKEN, "INPUT_WRITE_DELAY": "0",
            "INPUT_BVA": "true", "INPUT_PATHS": "examples/**/*.dfy",
        }
        proc = subprocess.run([sys.executable, "-m", "dspec2test", "action"], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=900)
    if proc.returncode != 1 or not server.comments:
        raise SystemExit(f"the action did not report the planted bug (exit {proc.returncode}):\n{proc.stdout}\n"
                         f"{proc.stderr}")
    return server, summary.read_text(encoding="utf-8"), proc.stdout


def page(body: str, title: str) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>{body}</body></html>")


def render_markdown(text: str) -> str:
    """GitHub-flavoured enough for our reports: tables, fenced code, and a `\\|` in a table cell shown as `|`
    (GitHub unescapes it inside code spans too; our reports escape no `|` outside tables)."""
    lines = [line for line in text.splitlines() if not line.startswith("<!-- dspec2test:")]  # hidden markers
    return markdown.markdown("\n".join(lines), extensions=["tables", "fenced_code"]).replace("\\|", "|")


def diff_rows(patch: str, line: int, body: str) -> str:
    """The hunk holding `line`, GitHub's split of old and new line numbers, the comment under its line."""
    rows, old, new = [], 0, 0
    for text in patch.splitlines():
        m = HUNK.match(text)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            rows.append(f"<tr class='hunk'><td class='num'></td><td class='num'></td><td>{html.escape(text)}</td></tr>")
            continue
        kind = {"+": "add", "-": "del"}.get(text[:1], "")
        left = "" if kind == "add" else str(old)
        right = "" if kind == "del" else str(new)
        rows.append(f"<tr class='{kind}'><td class='num'>{left}</td><td class='num'>{right}</td>"
                    f"<td class='code'>{html.escape(text)}</td></tr>")
        if kind != "del" and new == line:
            rows.append(f"<tr><td colspan='3' style='padding:0'><div class='thread'>{body}</div></td></tr>")
        old += kind != "add"
        new += kind != "del"
    return "<table class='diff'>" + "".join(rows) + "</table>"


def comment_page(server: GitHubStandIn) -> str:
    comment = next(c for c in server.comments.values() if c.get("line"))
    patch = next(f["patch"] for f in server.pull.files if f["filename"] == comment["path"])
    body = (f"<div class='comment'><div class='comment-head'><b>github-actions</b><span class='badge'>bot</span> "
            f"reviewed on line {comment['line']}</div><div class='comment-body'>{render_markdown(comment['body'])}"
            "</div></div>")
    return page(f"<div class='caption'>A pull request plants the bug of <code>{EXAMPLE}</code>; dspec2test's review "
                f"comment on the changed line:</div><div class='file'><div class='file-head'>{comment['path']}</div>"
                f"{diff_rows(patch, comment['line'], body)}</div>", "review comment")


def summary_page(summary: str) -> str:
    return page(render_markdown(summary), "job summary")


def photograph(html_path: Path, png: Path) -> None:
    """Chromium's screenshot of the page, cropped to what it drew (plus a margin)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium not found: apt-get install chromium")
    with tempfile.TemporaryDirectory(prefix="dspec2test-pictures-") as profile:
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--user-data-dir={profile}", f"--window-size={WIDTH + 32},3000", "--force-device-scale-factor=1",
                        f"--screenshot={png}", html_path.as_uri()], check=True, capture_output=True, timeout=120)
    image = Image.open(png).convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, (255, 255, 255))).getbbox()
    if box:
        left, top, right, bottom = box
        image = image.crop((max(0, left - 12), max(0, top - 12), min(image.width, right + 12),
                            min(image.height, bottom + 12)))
    image.save(png, optimize=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images"), help="folder for the PNG files")
    parser.add_argument("--keep-html", action="store_true", help="keep the HTML pages beside the pictures")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="dspec2test-pictures-") as scratch:
        tmp = Path(scratch)
        repo, base, head = pull_request(tmp)
        server, summary, log = run_action(repo, base, head, tmp)
        for name, text in (("review-comment", comment_page(server)), ("job-summary", summary_page(summary))):
            page_path = (out if args.keep_html else tmp) / f"{name}.html"
            page_path.write_text(text, encoding="utf-8")
            photograph(page_path, out / f"{name}.png")
            print(f"wrote {out / (name + '.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

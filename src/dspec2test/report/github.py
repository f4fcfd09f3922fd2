"""The only code that talks to GitHub (through PyGithub's requester): the transport, and the review
publisher; report/checks.py writes check runs through the same transport.

PyGithub 1.55 cannot create a review on a bare commit sha, nor a file-level comment (`subject_type`),
so those requests go through its requester; listing follows GitHub's Link headers.
Every request is retried on 403/429 as GitHub asks (Retry-After, else the rate-limit reset, bounded);
writes are spaced by `write_delay`. Nothing here raises to the caller: a failed write is recorded and
the caller degrades to annotations and the job summary. The token is never logged.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import requests
from github import Github, GithubException

from dspec2test.report.review import Existing, Plan, is_special, key_of

MAX_RETRIES = 3
MAX_WAIT_S = 60.0


BOT_LOGIN = "github-actions[bot]"  # who GITHUB_TOKEN writes as; `GET /user` is refused for that token


@dataclass
class PublishOutcome:
    created: int = 0
    updated: int = 0
    skipped: int = 0
    deleted: int = 0
    in_body: int = 0
    review_id: int | None = None
    review_url: str = ""
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def degraded(self) -> bool:
        return bool(self.errors)


class PublishError(Exception):
    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class GitHub:
    """The transport every GitHub request goes through: PyGithub's requester (auth, base url), retried
    on rate limits, writes spaced by `write_delay`, pages followed, the token scrubbed from errors."""

    def __init__(
        self,
        token: str,
        repository: str,
        api_url: str = "https://api.github.com",
        write_delay: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        log: Callable[[str], object] = lambda _msg: None,
        max_wait: float = MAX_WAIT_S,
    ):
        self.repository = repository
        self._token = token
        self._write_delay = write_delay
        self._sleep = sleep
        self._log = log
        self._max_wait = max_wait
        self._last_write: float | None = None
        self._identity: str | None = None
        gh = Github(login_or_token=token or None, base_url=api_url.rstrip("/"), timeout=30, per_page=100)
        # PyGithub 1.55 (Debian 12) has no public way to its requester, which sends our REST calls
        self._requester = gh.get_repo(repository, lazy=True)._requester  # type: ignore[attr-defined]

    @property
    def repo_path(self) -> str:
        return f"/repos/{self.repository}"

    def identity(self) -> str:
        """The login our writes appear under: `GET /user`, or github-actions[bot] when the token is an
        installation token (GITHUB_TOKEN), for which GitHub refuses that request."""
        if self._identity is None:
            try:
                _, data = self.request("GET", "/user")
                self._identity = str((data or {}).get("login") or BOT_LOGIN)
            except PublishError as exc:
                if exc.status not in (401, 403, 404):
                    raise
                self._identity = BOT_LOGIN
        return self._identity

    def pull(self, number: int) -> dict:
        _, data = self.request("GET", f"{self.repo_path}/pulls/{number}")
        return data or {}

    def write(self, verb: str, path: str, payload: dict | None = None) -> dict:
        """A write request, spaced from the previous one; its response ({} when empty), or PublishError."""
        if self._last_write is not None:
            wait = self._write_delay - (time.monotonic() - self._last_write)
            if wait > 0:
                self._sleep(wait)
        try:
            _, data = self.request(verb, path, payload)
            return {} if data is None else data
        finally:
            self._last_write = time.monotonic()

    def paginate(self, path: str) -> list[dict]:
        items: list[dict] = []
        url = path
        params: dict[str, int] | None = {"per_page": 100}
        for _ in range(100):  # bounded: 10,000 items is more than any PR we comment on
            headers, data = self.request("GET", url, parameters=params)
            items.extend(data or [])
            following = _next_link(headers.get("link", ""))
            if not following:
                break
            url, params = following, None
        return items

    def request(self, verb: str, path: str, payload: dict | None = None, parameters: dict | None = None):
        for attempt in range(MAX_RETRIES + 1):
            try:
                return self._requester.requestJsonAndCheck(verb, path, parameters=parameters, input=payload)
            except GithubException as exc:
                wait = _retry_wait(exc.status, exc.headers or {}, attempt)
                if wait is None or attempt == MAX_RETRIES:
                    raise PublishError(self.scrub(f"HTTP {exc.status}: {_message(exc.data)}"), exc.status) from None
                wait = min(wait, self._max_wait)
                self._log(f"dspec2test: GitHub answered {exc.status} to {verb} {path}; retrying in {wait:g} s")
                self._sleep(wait)
            except (requests.RequestException, OSError, AssertionError, ValueError) as exc:
                # AssertionError: PyGithub refuses a Link to another host; ValueError: a body that is not JSON
                raise PublishError(self.scrub(f"{type(exc).__name__}: {exc}")) from None
        raise PublishError("unreachable")

    def scrub(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text

    def log(self, message: str) -> None:
        self._log(message)


_REJECTED = {"rejected": True}  # sentinel: the write was refused with 422


class Publisher:
    """One pull request's review: reads its files and our own comments, applies a review Plan."""

    def __init__(self, github: GitHub, number: int):
        self.github = github
        self._number = number
        self._files: list[dict] | None = None
        self._pulls = f"{github.repo_path}/pulls"

    # ---------------------------------------------------------------- reading

    def pull_head(self) -> str:
        return str((self.github.pull(self._number).get("head") or {}).get("sha") or "")

    def files(self) -> dict[str, str | None]:
        """path -> patch of every file in the PR (None when GitHub omits the patch, e.g. binary or huge)."""
        return {f["filename"]: f.get("patch") for f in self.file_entries()}

    def file_entries(self) -> list[dict]:
        """GitHub's pulls/N/files entries (filename, status, previous_filename, patch), read once."""
        if self._files is None:
            self._files = self.github.paginate(f"{self._pulls}/{self._number}/files")
        return self._files

    def my_comments(self) -> list[Existing]:
        """Our own marked comments: written by our identity (anyone can paste our marker into theirs),
        each with the number of replies in its thread."""
        me = self.github.identity().lower()
        comments = self.github.paginate(f"{self._pulls}/{self._number}/comments")
        replies = Counter(c.get("in_reply_to_id") for c in comments if c.get("in_reply_to_id"))
        found = []
        for c in comments:
            key = key_of(c.get("body") or "")
            author = str((c.get("user") or {}).get("login") or "").lower()
            if key and not is_special(key) and author == me and not c.get("in_reply_to_id"):
                # outdated after a push: GitHub keeps the comment but reports no current line
                stale = c.get("subject_type") == "line" and "line" in c and c.get("line") is None
                found.append(Existing(int(c["id"]), key, c.get("body") or "", stale, replies[c["id"]]))
        return found

    def review_bodies(self) -> list[str]:
        """The bodies of our own earlier reviews."""
        try:
            me = self.github.identity().lower()
            return [r.get("body") or "" for r in self.github.paginate(f"{self._pulls}/{self._number}/reviews")
                    if str((r.get("user") or {}).get("login") or "").lower() == me]
        except PublishError:
            return []  # only used to avoid repeating a summary review; not worth failing for

    # ---------------------------------------------------------------- writing

    def apply(self, plan: Plan, head_sha: str) -> PublishOutcome:
        out = PublishOutcome(skipped=len(plan.skipped), in_body=len(plan.in_body))
        for comment_id, body in plan.updates:
            if self._write("PATCH", f"{self._pulls}/comments/{comment_id}", {"body": body}, out) is not None:
                out.updated += 1
        for comment_id in plan.deletes:
            if self._write("DELETE", f"{self._pulls}/comments/{comment_id}", None, out) is not None:
                out.deleted += 1
        if plan.needs_review:
            review = {
                "commit_id": head_sha,
                "body": plan.review_body,
                "event": "COMMENT",
                "comments": [{"path": c.path, "line": c.line, "side": "RIGHT", "body": c.body} for c in plan.line_comments],
            }
            data = self._write("POST", f"{self._pulls}/{self._number}/reviews", review, out, quiet_422=True)
            if data is _REJECTED and plan.line_comments:
                # GitHub saw the diff differently from its own files API: post the same text unanchored
                # rather than nothing (one review still, and no second 422 possible).
                extra = "\n\n".join(f"**{c.path}:{c.line}**\n\n{c.body}" for c in plan.line_comments)
                review = {**review, "comments": [], "body": plan.review_body + "\n\n" + extra}
                out.notes.append("GitHub refused the line anchors (422); the comments went into the review body")
                data = self._write("POST", f"{self._pulls}/{self._number}/reviews", review, out)
            elif data is _REJECTED:
                out.errors.append("POST review: HTTP 422")
                data = None
            if data is not None:
                out.review_id = data.get("id") if isinstance(data, dict) else None
                out.review_url = str(data.get("html_url") or "") if isinstance(data, dict) else ""
                out.created += len(review["comments"])
        for c in plan.file_comments:
            payload = {"commit_id": head_sha, "path": c.path, "subject_type": "file", "body": c.body}
            if self._write("POST", f"{self._pulls}/{self._number}/comments", payload, out) is not None:
                out.created += 1
        return out

    def _write(self, verb: str, path: str, payload: dict | None, out: PublishOutcome, quiet_422: bool = False):
        """The response data (or {} for an empty one) on success, None after recording the error
        (with quiet_422, a 422 is returned as _REJECTED and not recorded)."""
        try:
            return self.github.write(verb, path, payload)
        except PublishError as exc:
            if quiet_422 and exc.status == 422:
                return _REJECTED
            out.errors.append(f"{verb} {path}: {exc}")
            self.github.log(f"dspec2test: GitHub rejected {verb} {path}: {exc}")
            return None


def _retry_wait(status: int, headers: dict, attempt: int) -> float | None:
    """Seconds to wait before retrying, or None when the error is not a rate limit."""
    headers = {str(k).lower(): v for k, v in headers.items()}
    if status not in (403, 429):
        return None
    if "retry-after" in headers:
        try:
            return max(0.0, float(headers["retry-after"]))
        except ValueError:
            return 1.0
    if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
        try:
            return max(0.0, float(headers["x-ratelimit-reset"]) - time.time())
        except ValueError:
            return 1.0
    # A 429 always means slow down; a plain 403 is a permission problem, not worth retrying.
    return float(2 ** attempt) if status == 429 else None


def _message(data) -> str:
    if isinstance(data, dict):
        msg = str(data.get("message") or "")
        errors = data.get("errors")
        return f"{msg} {errors}" if errors else msg
    return str(data)[:200]


def _next_link(link: str) -> str | None:
    for part in link.split(","):
        match = re.search(r'<([^>]+)>\s*;\s*rel="next"', part)
        if match:
            return match.group(1)
    return None

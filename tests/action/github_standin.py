"""A local stand-in for the parts of GitHub's REST API the action uses, built to GitHub's documented
behaviour (pulls, pull request files, review comments, reviews, check runs, the authenticated user), on
127.0.0.1 with an ephemeral port.

Like GitHub it refuses a whole review with 422 when one comment's line is not in the diff of its file
(only RIGHT-side lines inside a hunk of the file's patch, LEFT-side lines that the hunk deletes or
keeps), wants a body for a COMMENT review, allows `subject_type: file` only on the single-comment
endpoint, paginates with Link headers, and can answer 403/429 with Retry-After once or 5xx always.
Comments and reviews are written as the token's identity: for an installation token (GITHUB_TOKEN)
that is github-actions[bot], and `GET /user` is refused with 403 as GitHub refuses it. Check runs take
at most 50 annotations per request (422 beyond), append the annotations of each update, and want a
conclusion once completed; `faults.forbid_checks` answers them 403 as for a read-only token.
Every request is recorded.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def diff_lines(patch: str) -> tuple[set[int], set[int]]:
    """(RIGHT lines, LEFT lines) a comment may target in one file's patch."""
    right, left = set(), set()
    old = new = None
    for line in (patch or "").splitlines():
        m = HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            continue
        if old is None or line.startswith("\\"):
            continue
        if line.startswith("+"):
            right.add(new)
            new += 1
        elif line.startswith("-"):
            left.add(old)
            old += 1
        else:
            right.add(new)
            left.add(old)
            old += 1
            new += 1
    return right, left


@dataclass
class Request:
    method: str
    path: str
    query: dict
    body: object
    headers: dict


@dataclass
class PullState:
    number: int
    head_sha: str
    base_sha: str
    head_repo: str
    base_repo: str
    files: list[dict]  # {"filename", "status", "patch", "previous_filename"?}


@dataclass
class Faults:
    once: dict = field(default_factory=dict)  # (method, path suffix) -> (status, headers); used once
    server_error_on_writes: bool = False
    forbid_checks: bool = False  # 403 on check runs, as for a fork's read-only token


CONCLUSIONS = {"action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out"}
LEVELS = {"notice", "warning", "failure"}
BOT = "github-actions[bot]"


class GitHubStandIn:
    def __init__(self, repo: str, token: str, pull: PullState, per_page_default: int = 30, max_per_page: int = 100,
                 user: str | None = None):
        """user: the login of a personal token (GET /user answers it); None: an installation token."""
        self.repo, self.token, self.pull = repo, token, pull
        self.user = user
        self.requests: list[Request] = []
        self.comments: dict[int, dict] = {}
        self.reviews: list[dict] = []
        self.check_runs: dict[int, dict] = {}
        self.faults = Faults()
        self.per_page_default = per_page_default
        self.max_per_page = max_per_page
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    # ------------------------------------------------------------ helpers for tests

    def writes(self) -> list[Request]:
        return [r for r in self.requests if r.method in ("POST", "PATCH", "PUT", "DELETE")]

    @property
    def login(self) -> str:
        return self.user or BOT

    def add_comment(self, body: str, login: str, path: str = "prog.dfy", line: int | None = 1,
                    in_reply_to: int | None = None) -> int:
        """A comment someone else (or we, earlier) wrote, as GitHub lists it."""
        with self._lock:
            self._next_id += 1
            self.comments[self._next_id] = {
                "id": self._next_id, "body": body, "path": path, "line": line, "side": "RIGHT",
                "subject_type": "line", "user": {"login": login}, "commit_id": self.pull.head_sha,
                **({"in_reply_to_id": in_reply_to} if in_reply_to else {})}
            return self._next_id

    def set_head(self, head_sha: str, files: list[dict]) -> None:
        """A new push: new patches; comments whose line left the diff become outdated (line null)."""
        with self._lock:
            self.pull.head_sha = head_sha
            self.pull.files = files
            for c in self.comments.values():
                if c.get("subject_type") == "line" and c.get("line") is not None:
                    right, _ = diff_lines(self._patch(c["path"]) or "")
                    if c["line"] not in right:
                        c["line"] = None

    def _patch(self, path: str) -> str | None:
        for f in self.pull.files:
            if f["filename"] == path:
                return f.get("patch")
        return None

    # ------------------------------------------------------------ HTTP

    def _handler(self):
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _reply(self, status, data=None, headers=None):
                payload = b"" if data is None else json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def _handle(self):
                parsed = urlparse(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    return self._reply(400, {"message": "Problems parsing JSON"})
                req = Request(self.command, parsed.path, parse_qs(parsed.query), body, dict(self.headers))
                with standin._lock:
                    standin.requests.append(req)
                    status, data, headers = standin.route(req)
                self._reply(status, data, headers)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _handle

        return Handler

    def route(self, req: Request):
        auth = req.headers.get("Authorization") or req.headers.get("authorization") or ""
        if auth not in (f"token {self.token}", f"Bearer {self.token}"):
            return 401, {"message": "Bad credentials"}, {}
        for (method, suffix), (status, headers) in list(self.faults.once.items()):
            if req.method == method and req.path.endswith(suffix):
                del self.faults.once[(method, suffix)]
                return status, {"message": "You have exceeded a secondary rate limit."}, headers
        if self.faults.server_error_on_writes and req.method != "GET":
            return 502, {"message": "Server Error"}, {}
        if req.path == "/user" and req.method == "GET":
            if self.user is None:
                return 403, {"message": "Resource not accessible by integration",
                             "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user"}, {}
            return 200, {"login": self.user, "id": 1, "type": "User"}, {}
        if req.path.startswith(f"/repos/{self.repo}/check-runs"):
            if self.faults.forbid_checks:
                return 403, {"message": "Resource not accessible by integration"}, {}
            return self._check_runs(req)
        prefix = f"/repos/{self.repo}/pulls"
        if not req.path.startswith(prefix):
            return 404, {"message": "Not Found"}, {}
        rest = req.path[len(prefix):]
        n = str(self.pull.number)
        if req.method == "GET" and rest == f"/{n}":
            return 200, self._pull_json(), {}
        if req.method == "GET" and rest == f"/{n}/files":
            return self._page(req, [dict(f, sha="0" * 40) for f in self.pull.files])
        if req.method == "GET" and rest == f"/{n}/comments":
            return self._page(req, sorted(self.comments.values(), key=lambda c: c["id"]))
        if req.method == "GET" and rest == f"/{n}/reviews":
            return self._page(req, self.reviews)
        if req.method == "POST" and rest == f"/{n}/reviews":
            return self._create_review(req.body or {})
        if req.method == "POST" and rest == f"/{n}/comments":
            return self._create_comment(req.body or {})
        m = re.fullmatch(r"/comments/(\d+)", rest)
        if m and req.method in ("PATCH", "DELETE", "GET"):
            cid = int(m.group(1))
            if cid not in self.comments:
                return 404, {"message": "Not Found"}, {}
            if req.method == "DELETE":
                del self.comments[cid]
                return 204, None, {}
            if req.method == "PATCH":
                if not isinstance((req.body or {}).get("body"), str):
                    return 422, {"message": "Validation Failed", "errors": [{"field": "body", "code": "missing"}]}, {}
                self.comments[cid]["body"] = req.body["body"]
            return 200, self.comments[cid], {}
        return 404, {"message": "Not Found"}, {}

    def _check_runs(self, req: Request):
        rest = req.path[len(f"/repos/{self.repo}/check-runs"):]
        body = req.body if isinstance(req.body, dict) else {}
        if req.method == "POST" and rest == "":
            for key in ("name", "head_sha"):
                if not isinstance(body.get(key), str) or not body[key]:
                    return 422, {"message": "Invalid request.", "errors": [f"{key} wasn't supplied."]}, {}
            self._next_id += 1
            run = {"id": self._next_id, "name": body["name"], "head_sha": body["head_sha"], "status": "queued",
                   "conclusion": None, "details_url": body.get("details_url"),
                   "html_url": f"https://github.com/{self.repo}/runs/{self._next_id}",
                   "output": {"title": None, "summary": None, "annotations_count": 0}, "annotations": []}
            problem = self._update_run(run, body)
            if problem:
                self._next_id -= 1
                return 422, {"message": "Invalid request.", "errors": [problem]}, {}
            self.check_runs[run["id"]] = run
            return 201, self._run_json(run), {}
        m = re.fullmatch(r"/(\d+)(/annotations)?", rest)
        if not m or int(m.group(1)) not in self.check_runs:
            return 404, {"message": "Not Found"}, {}
        run = self.check_runs[int(m.group(1))]
        if req.method == "GET":
            return (self._page(req, run["annotations"]) if m.group(2) else (200, self._run_json(run), {}))
        if req.method == "PATCH" and not m.group(2):
            problem = self._update_run(run, body)
            if problem:
                return 422, {"message": "Invalid request.", "errors": [problem]}, {}
            return 200, self._run_json(run), {}
        return 404, {"message": "Not Found"}, {}

    def _update_run(self, run: dict, body: dict) -> str | None:
        """Apply a create or update request as GitHub documents it; the problem, or None."""
        status = body.get("status", run["status"])
        conclusion = body.get("conclusion", run["conclusion"])
        if status not in ("queued", "in_progress", "completed"):
            return f"status {status!r} is not included in the list"
        if conclusion is not None and conclusion not in CONCLUSIONS:
            return f"conclusion {conclusion!r} is not included in the list"
        if status == "completed" and conclusion is None:
            return "conclusion wasn't supplied."  # completed needs a conclusion
        output = body.get("output")
        if output is not None:
            if not isinstance(output.get("title"), str) or not isinstance(output.get("summary"), str):
                return "output title and summary are required"
            if len(output["summary"]) > 65535:
                return "output summary is too long (maximum is 65535 characters)"
            notes = output.get("annotations") or []
            if len(notes) > 50:
                return "annotations: at most 50 per request"
            for a in notes:
                if not (isinstance(a.get("path"), str) and isinstance(a.get("start_line"), int)
                        and isinstance(a.get("end_line"), int) and a.get("annotation_level") in LEVELS
                        and isinstance(a.get("message"), str) and a["message"]):
                    return f"invalid annotation {a!r}"
            run["output"] = {"title": output["title"], "summary": output["summary"]}
            run["annotations"] += notes  # updates append, as GitHub's do
        if conclusion is not None and body.get("conclusion") is not None:
            status = "completed"  # giving a conclusion completes the run
        run["status"], run["conclusion"] = status, conclusion
        return None

    def _run_json(self, run: dict) -> dict:
        data = {k: v for k, v in run.items() if k != "annotations"}
        data["output"] = {**run["output"], "annotations_count": len(run["annotations"])}
        return data

    def _pull_json(self):
        p = self.pull
        return {
            "url": f"{self.url}/repos/{self.repo}/pulls/{p.number}",
            "number": p.number, "state": "open",
            "head": {"sha": p.head_sha, "repo": {"full_name": p.head_repo}},
            "base": {"sha": p.base_sha, "repo": {"full_name": p.base_repo}},
        }

    def _page(self, req: Request, items: list):
        per_page = min(int((req.query.get("per_page") or [self.per_page_default])[0]), self.max_per_page)
        page = int((req.query.get("page") or ["1"])[0])
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        if page * per_page < len(items):
            headers["Link"] = f'<{self.url}{req.path}?per_page={per_page}&page={page + 1}>; rel="next"'
        return 200, chunk, headers

    def _invalid(self, message: str):
        return 422, {"message": "Unprocessable Entity", "errors": [message],
                     "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"}, {}

    def _check_line(self, c: dict) -> str | None:
        patch = self._patch(c.get("path", ""))
        if patch is None:
            return f"Path could not be resolved: {c.get('path')}"
        if "position" in c and "line" not in c:
            return None if isinstance(c["position"], int) and c["position"] >= 1 else "Position is invalid"
        line, side = c.get("line"), c.get("side", "RIGHT")
        right, left = diff_lines(patch)
        if not isinstance(line, int) or side not in ("RIGHT", "LEFT"):
            return "Line could not be resolved"
        if line not in (right if side == "RIGHT" else left):
            return "Pull request review thread line must be part of the diff"
        return None

    def _new_comment(self, c: dict, commit_id: str, review_id: int | None, subject_type: str) -> dict:
        self._next_id += 1
        comment = {
            "id": self._next_id, "pull_request_review_id": review_id, "body": c["body"], "path": c["path"],
            "line": c.get("line"), "side": c.get("side", "RIGHT") if subject_type == "line" else None,
            "commit_id": commit_id, "subject_type": subject_type, "user": {"login": self.login},
            "html_url": f"https://github.com/{self.repo}/pull/{self.pull.number}#discussion_r{self._next_id}",
        }
        self.comments[comment["id"]] = comment
        return comment

    def _create_review(self, body: dict):
        if body.get("commit_id") not in (None, self.pull.head_sha):
            return self._invalid("commit_id is not part of the pull request")
        event = body.get("event")
        if event in ("COMMENT", "REQUEST_CHANGES") and not body.get("body"):
            return self._invalid("Body is required for COMMENT and REQUEST_CHANGES reviews")
        comments = body.get("comments") or []
        for c in comments:
            if not isinstance(c, dict) or not isinstance(c.get("body"), str) or "subject_type" in c:
                return self._invalid("Invalid review comment")
            problem = self._check_line(c)
            if problem:
                return self._invalid(problem)
        self._next_id += 1
        review = {"id": self._next_id, "body": body.get("body") or "", "commit_id": body.get("commit_id") or self.pull.head_sha,
                  "state": "COMMENTED" if event == "COMMENT" else "PENDING", "user": {"login": self.login},
                  "html_url": f"https://github.com/{self.repo}/pull/{self.pull.number}#pullrequestreview-{self._next_id}"}
        self.reviews.append(review)
        for c in comments:
            self._new_comment(c, review["commit_id"], review["id"], "line")
        return 200, review, {}

    def _create_comment(self, body: dict):
        for key in ("body", "commit_id", "path"):
            if not isinstance(body.get(key), str):
                return 422, {"message": "Validation Failed", "errors": [{"field": key, "code": "missing"}]}, {}
        if body["commit_id"] != self.pull.head_sha:
            return self._invalid("commit_id is not part of the pull request")
        if body.get("subject_type") == "file":
            if self._patch(body["path"]) is None and body["path"] not in {f["filename"] for f in self.pull.files}:
                return self._invalid(f"Path could not be resolved: {body['path']}")
            return 201, self._new_comment(body, body["commit_id"], None, "file"), {}
        problem = self._check_line(body)
        if problem:
            return self._invalid(problem)
        return 201, self._new_comment(body, body["commit_id"], None, "line"), {}

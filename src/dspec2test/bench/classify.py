"""Classify programs and mutants once with `dafny verify` (run/verify.py), cached by content.

verified -> alive (the spec does not catch the change); resolution/parse/type errors -> incompetent;
verification errors (Dafny's own time-outs included) -> bug, i.e. wrong with respect to the spec.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from dspec2test.run.verify import Verification, verify, verify_args
from dspec2test.toolchain import Toolchain

CACHE_FORMAT = 1
RECORDED = "verify-status.tsv"  # a corpus's own record of each file's `dafny verify` verdict


@dataclass(frozen=True)
class Classified:
    verification: Verification
    message: str  # first lines of Dafny's errors, empty when verified
    seconds: float
    cached: bool = False


def read_recorded(root: Path) -> dict[str, Verification]:
    """`CORPUS/verify-status.tsv`: path relative to the corpus (`programs/P.dfy`, `mutants/P/M.dfy`) ->
    verdict, one `path<TAB>verdict` per line, `#` lines are comments. Empty when the file is absent.
    Classifying a large corpus afresh takes half an hour; its recorded verdicts take none."""
    path = root / RECORDED
    if not path.is_file():
        return {}
    out: dict[str, Verification] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        try:
            out[fields[0].strip()] = Verification(fields[1].strip())
        except (IndexError, ValueError):
            raise ValueError(f"{path}:{n}: expected `PATH<TAB>verified|fails|incompetent`, got {line!r}") from None
    return out


def cache_key(text: str, dafny_version: str, args: tuple[str, ...]) -> str:
    blob = "\0".join([f"v{CACHE_FORMAT}", dafny_version, " ".join(args), text])
    return hashlib.sha256(blob.encode()).hexdigest()


def classify_one(text: str, name: str, tools: Toolchain, timeout_s: float) -> Classified:
    with tempfile.TemporaryDirectory(prefix="dspec2test-verify-") as tmp:
        path = Path(tmp) / f"{name}.dfy"
        path.write_text(text)
        got = verify(path, timeout_s, tools)
    return Classified(got.verification, got.message, got.wall_s)


class Classifier:
    """Classifies many texts in parallel; results are cached as one JSON file per content hash."""

    def __init__(self, tools: Toolchain, dafny_version: str, cache_dir: Path | None, jobs: int,
                 timeout_s: float = 300.0):
        self.tools = tools
        self.dafny_version = dafny_version
        self.cache_dir = cache_dir / "verify" if cache_dir else None
        self.jobs = max(1, jobs)
        self.timeout_s = timeout_s

    def classify(self, items: list[tuple[str, str]],
                 progress: Callable[[str, Classified], None] | None = None) -> dict[str, Classified]:
        """items: (name, text). Returns name -> Classified."""
        args = verify_args(self.tools)
        out: dict[str, Classified] = {}
        todo: list[tuple[str, str, str]] = []
        for name, text in items:
            key = cache_key(text, self.dafny_version, args)
            hit = self._load(key)
            if hit is not None:
                out[name] = hit
                if progress:
                    progress(name, hit)
            else:
                todo.append((name, text, key))

        def work(item: tuple[str, str, str]) -> tuple[str, Classified]:
            name, text, key = item
            got = classify_one(text, name.replace("/", "_"), self.tools, self.timeout_s)
            self._store(key, got)
            return name, got

        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            for name, got in pool.map(work, todo):
                out[name] = got
                if progress:
                    progress(name, got)
        return out

    def _load(self, key: str) -> Classified | None:
        if not self.cache_dir:
            return None
        path = self.cache_dir / f"{key}.json"
        try:
            data = json.loads(path.read_text())
            return Classified(Verification(data["verification"]), data["message"], data["seconds"], cached=True)
        except (OSError, ValueError, KeyError):
            return None

    def _store(self, key: str, got: Classified) -> None:
        if not self.cache_dir:
            return
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        data = {"verification": got.verification.value, "message": got.message, "seconds": round(got.seconds, 3)}
        tmp = self.cache_dir / f"{key}.json.tmp"
        tmp.write_text(json.dumps(data, sort_keys=True))
        tmp.replace(self.cache_dir / f"{key}.json")

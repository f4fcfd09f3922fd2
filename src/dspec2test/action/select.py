"""File selection by globs, and the deterministic split of affected members across shards."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence, TypeVar

T = TypeVar("T")


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """`**` crosses directories, `*` and `?` do not; a pattern without wildcards also names a folder."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    tail = "" if any(ch in pattern for ch in "*?") else "(?:/.*)?"
    return re.compile("".join(out) + tail)


def matches(path: str, patterns: Sequence[str]) -> bool:
    path = path.removeprefix("./")
    return any(_glob_regex(p.strip().lstrip("/").removeprefix("./").rstrip("/")).fullmatch(path) for p in patterns)


def selected(path: str, paths: Sequence[str], include: Sequence[str] = (), exclude: Sequence[str] = ()) -> bool:
    return (
        path.endswith(".dfy")
        and matches(path, paths)
        and (not include or matches(path, include))
        and not matches(path, exclude)
    )


def shard(items: Sequence[T], k: int, n: int, key=str) -> list[T]:
    """The k-th (1-based) of n slices: sorted by key, then dealt round-robin, so every job of a matrix
    computes the same split from the same diff and the slices differ in size by at most one."""
    ordered = sorted(items, key=key)
    return [item for index, item in enumerate(ordered) if index % n == k - 1]

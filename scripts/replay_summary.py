#!/usr/bin/env python3
"""The figures of a replay measurement, from the JSON of `dspec2test replay --json OUT`.

    python3 scripts/replay_summary.py OUT.json [OUT2.json ...] [--top N] [--examples]

For each file: commits (checked, could not be), affected members (ghost), affected non-ghost members
with a contract and how many got tests that ran (a verdict passed, failed, crashed or timeout), the
failing verdicts (on merged code every one is a false alarm), a histogram of the not-tested reasons
with names, files and numbers stripped, the reasons that say a name was not found, internal errors,
and the median check time per commit. Only the standard library: it runs wherever the JSON is.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

RAN = ("passed", "failed", "crashed", "timeout")
FAILING = ("failed", "crashed", "timeout")
NOT_FOUND = ("unknown type", "unknown name", "unknown function", "does not exist")
INTERNAL = ("internal error", "traceback")
OURS = "dspec2test's bug"  # a test that crashed before the call, or an input we got wrong
# several diagnostics of one member are joined with "; " (Choice.complete): each counts as a reason
_PARTS = re.compile(r"; (?=unsupported:|error:|warning:|build failed:|\S+\.dfy:\d)")
_NOT_FOUND_NAME = re.compile(r"unknown (?:type|name|function) [\w.<>,]+|module \S+ does not exist")

# a word after one of these is a name (`unknown type BoundedInts.uint8`, `trait MutableMapTrait`)
_NAMED = r"(?:type|name|function|method|lemma|predicate|module|trait|class|datatype|extern|member|field|identifier)"
_KEEP = {"dspec2test", "Dafny", "Z3"}
_WORDS = {"of", "the", "a", "an", "is", "has", "that", "does", "with", "for", "in", "not", "no", "to", "and", "or"}


def normalise(reason: str) -> str:
    """A reason with what differs between members taken out: files, lines, numbers and names."""
    text = re.sub(r"\S+\.dfy(?::\d+)*:?", "<file>", reason)
    text = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"", "'X'", text)
    text = re.sub(rf"\b({_NAMED}) ([\w.<>?,']+)",
                  lambda m: m.group(0) if m.group(2).lower() in _WORDS else f"{m.group(1)} X", text)
    # what remains of names: qualified, CamelCase, snake_case or with digits (uint8, u256)
    text = re.sub(r"(?<![\w'])(?=\w*(?:[A-Z_.\d]))[A-Za-z_][\w.]*(?:<[^>]*>)?",
                  lambda m: m.group(0) if m.group(0) in _KEEP else "X", text)
    text = re.sub(r"\b\d+\b", "N", text)
    text = re.sub(r"\bX(?:[ ,.:]+X\b)+", "X", text)
    return re.sub(r"\s+", " ", text).strip()[:140]


def _distinct(reasons: list[str]) -> list[str]:
    """A member's reasons with the joined ones split apart, each kind once."""
    parts = [p for r in reasons for p in _PARTS.split(r)]
    return list({normalise(p): p for p in reversed(parts)}.values())[::-1]


def figures(data: dict) -> dict:
    commits = data["commits"]
    members = [(c["sha"], m) for c in commits for m in c["members"]]
    compiled = [(sha, m) for sha, m in members if not m["ghost"] and m["has_contract"]]
    ran = [(sha, m) for sha, m in compiled if any(m["statuses"].get(s) for s in RAN)]
    failing = [(sha, m) for sha, m in members if any(m["statuses"].get(s) for s in FAILING)]
    reasons = [(sha, m, r) for sha, m in members for r in _distinct(m["not_tested"])]
    seconds = [c["seconds"] for c in commits if c["error"] is None]
    return {
        "options": data.get("options", {}),
        "commits": len(commits),
        "checked": len(seconds),
        "commit_errors": [(c["sha"][:9], c["error"]) for c in commits if c["error"] is not None],
        "affected": len(members),
        "ghost": sum(m["ghost"] for _, m in members),
        "proved": sum(len(c.get("proved", [])) for c in commits),
        "non_ghost_with_contract": len(compiled),
        "non_ghost_ran": len(ran),
        "all_ran": sum(any(m["statuses"].get(s) for s in RAN) for _, m in members),
        "failing_verdicts": sum(m["statuses"].get(s, 0) for _, m in members for s in FAILING),
        "failing_members": [(sha[:9], m["file"], m["name"], {s: m["statuses"][s] for s in FAILING if m["statuses"].get(s)})
                            for sha, m in failing],
        "untested_members": sum(1 for _, m in members if not any(m["statuses"].get(s) for s in RAN)),
        "reasons": Counter(normalise(r) for _, _, r in reasons),
        "compiled_reasons": Counter(normalise(r) for _, m, r in reasons if not m["ghost"] and m["has_contract"]),
        "examples": {normalise(r): f"{m['file']}:{m['line']} {m['name']}: {r}" for _, m, r in reversed(reasons)},
        "not_found": {k: sum(k in r.lower() for _, _, r in reasons) for k in NOT_FOUND},
        "not_found_names": Counter(n for _, _, r in reasons for n in set(_NOT_FOUND_NAME.findall(r))),
        "ours": sum(OURS in r for _, _, r in reasons),
        "internal": sum(any(k in r.lower() for k in INTERNAL) for _, _, r in reasons)
        + sum(any(k in (c["error"] or "").lower() for k in INTERNAL) for c in commits),
        "median_seconds": statistics.median(seconds) if seconds else None,
        "total_seconds": sum(c.get("wall_seconds", c["seconds"]) for c in commits),
        "statuses": sum((Counter(c["statuses"]) for c in commits), Counter()),
    }


def render(name: str, f: dict, top: int, examples: bool) -> str:
    pct = (lambda a, b: f"{100 * a / b:.0f}%" if b else "-")
    lines = [f"## {name}", ""]
    opts = f["options"]
    lines.append(f"options: bva={opts.get('bva')} target={opts.get('target')} last={opts.get('last')} "
                 f"head={str(opts.get('head', ''))[:9]}")
    lines.append(f"commits: {f['commits']} ({f['checked']} checked, {len(f['commit_errors'])} could not be)")
    for sha, error in f["commit_errors"]:
        lines.append(f"  {sha}: {error}")
    lines.append(f"affected members: {f['affected']} ({f['ghost']} ghost); with tests that ran: {f['all_ran']}; "
                 f"lemmas proved by Dafny (counted, not tested): {f['proved']}")
    lines.append(f"affected non-ghost members with a contract: {f['non_ghost_with_contract']}; with tests that ran: "
                 f"{f['non_ghost_ran']} ({pct(f['non_ghost_ran'], f['non_ghost_with_contract'])})")
    lines.append(f"failing verdicts (on merged code: false alarms): {f['failing_verdicts']} "
                 f"in {len(f['failing_members'])} members")
    for sha, file, member, statuses in f["failing_members"]:
        lines.append(f"  {sha} {file} {member}: {statuses}")
    lines.append("verdicts: " + ", ".join(f"{s} {n}" for s, n in sorted(f["statuses"].items()) if n))
    lines.append("not-tested reasons containing: " + ", ".join(f"'{k}' {n}" for k, n in f["not_found"].items()))
    lines.append("most frequent: " + ", ".join(f"{n} {k}" for k, n in f["not_found_names"].most_common(8)))
    lines.append(f"internal errors / tracebacks: {f['internal']}; reasons saying \"{OURS}\": {f['ours']}")
    median = "-" if f["median_seconds"] is None else f"{f['median_seconds']:.1f} s"
    lines.append(f"median check per commit: {median} (all commits with checkouts: {f['total_seconds']:.0f} s)")
    total = sum(f["reasons"].values())
    lines += ["", f"not-tested reasons (one per member and distinct reason; {total} in all, "
              f"{len(f['reasons'])} kinds; {f['untested_members']} members got no test that ran):"]
    if examples:
        for reason, n in f["reasons"].most_common(top):
            lines += [f"  {n:5}  {reason}", f"         e.g. {f['examples'][reason][:300]}"]
        return "\n".join(lines) + "\n"
    lines += _histogram(f["reasons"], top)
    lines += ["", "of which for non-ghost members with a contract:"]
    lines += _histogram(f["compiled_reasons"], top)
    return "\n".join(lines) + "\n"


def _histogram(counts: Counter, top: int) -> list[str]:
    lines = [f"  {n:5}  {reason}" for reason, n in counts.most_common(top)]
    rest = sum(n for _, n in counts.most_common()[top:])
    return lines + ([f"  {rest:5}  ({len(counts) - top} other kinds)"] if rest else [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", metavar="OUT.json")
    parser.add_argument("--top", type=int, default=25, help="reasons shown in the histogram (default 25)")
    parser.add_argument("--examples", action="store_true", help="one original reason under each kind")
    args = parser.parse_args(argv)
    for name in args.files:
        try:
            data = json.loads(Path(name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"replay_summary: {name}: {exc}", file=sys.stderr)
            return 2
        sys.stdout.write(render(name, figures(data), args.top, args.examples) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

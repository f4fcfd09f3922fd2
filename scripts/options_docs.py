#!/usr/bin/env python3
"""action.yml's inputs and README.md's table of options, written from the one table (src/dspec2test/options.py).

    python3 scripts/options_docs.py           # rewrite both from the table
    python3 scripts/options_docs.py --check   # exit 1 if either differs from it (the tests check this too)

Run it after changing an option: action.yml's `inputs:` block and the README's rows between the
`<!-- options -->` markers are replaced, nothing else.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dspec2test.options import OPTIONS, Door  # noqa: E402

BEGIN, END = "<!-- options -->", "<!-- /options -->"


def inputs_block() -> str:
    """action.yml's `inputs:` section."""
    lines = ["inputs:"]
    for o in OPTIONS:
        if Door.INPUT not in o.doors:
            continue
        lines += [f"  {o.name}:", f"    description: {json.dumps(o.input_description)}", "    required: false",
                  f"    default: {json.dumps(o.action_default)}"]
    return "\n".join(lines) + "\n"


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def options_table() -> str:
    """The README's table: one row per option, with the door it comes through."""
    rows = ["| Name | Input | Key | Flag | Default | Meaning |", "| --- | --- | --- | --- | --- | --- |"]
    for o in OPTIONS:
        doors = ["✓" if door in o.doors else "—" for door in (Door.INPUT, Door.CONFIG)]
        flag = f"`{o.cli_flag}`" if Door.CLI in o.doors else "—"
        default = f"`{o.default_text}`" if o.default_text else "(empty)"
        rows.append(f"| `{o.name}` | {' | '.join(doors)} | {flag} | {cell(default)} | {cell(o.help)} |")
    return "\n".join(rows) + "\n"


def with_inputs(action_yml: str) -> str:
    start = action_yml.index("inputs:\n")
    end = action_yml.index("outputs:\n")
    return action_yml[:start] + inputs_block() + action_yml[end:]


def with_table(readme: str) -> str:
    start = readme.index(BEGIN) + len(BEGIN)
    end = readme.index(END)
    return readme[:start] + "\n" + options_table() + readme[end:]


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, rewrite in ((ROOT / "action.yml", with_inputs), (ROOT / "README.md", with_table)):
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            stale.append(path.name)
            if not check:
                path.write_text(new, encoding="utf-8")
    if check and stale:
        print(f"out of date with src/dspec2test/options.py: {', '.join(stale)} "
              "(run python3 scripts/options_docs.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env bash
# Runs the whole test suite with the venv that scripts/setup.sh made.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 2
# one worker per core (pytest-xdist, a Debian package setup.sh installs): most of the time is real Dafny
PARALLEL=()
"$ROOT/.venv/bin/python" -c "import xdist" 2>/dev/null && PARALLEL=(-n auto)
"$ROOT/.venv/bin/python" -m pytest -q "${PARALLEL[@]}" "$@" tests
rc=$?
# pytest exits 5 when it collected no test: not a failure of the suite itself.
[ "$rc" -eq 5 ] && { echo "no tests collected"; exit 0; }
exit "$rc"

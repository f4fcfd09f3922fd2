#!/usr/bin/env bash
# Container entrypoint of the GitHub Action. The checkout is owned by another user than the
# container's root, so git must be told to trust it before any git command runs.
set -euo pipefail
if [ -n "${GITHUB_WORKSPACE:-}" ]; then
  git config --global --add safe.directory "$GITHUB_WORKSPACE"
  cd "$GITHUB_WORKSPACE"
fi
exec /app/.venv/bin/dspec2test action "$@"

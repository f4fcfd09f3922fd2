#!/usr/bin/env bash
# Builds the action's image for release vX.Y.Z from this checkout, checks it, and with --push pushes it
# as ghcr.io/OWNER/dspec2test-action:{vX.Y.Z,vX.Y,vX} (a pre-release such as 1.2.0-rc.1: only its own
# tag). Without --push this is the release's dry run: everything but the pushes, saying what it would do.
# .github/workflows/release.yml runs it (after scripts/fetch-z3.sh and the registry login).
#
#   bash scripts/publish-release.sh X.Y.Z OWNER [--push]
#
# Environment: ENGINE (docker, else podman), BUILD_FLAGS (more `build` flags; where no registry is
# reachable: "--network host --from localhost/dotnet-sdk-local:bookworm"), SOURCE (the repository's URL,
# for the image's label), Z3 (the Z3 version the image must verify with: 4.12.1 unless "any").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

usage() { echo "usage: $0 X.Y.Z OWNER [--push]" >&2; exit 2; }
[ $# -ge 2 ] || usage
version="$1"
owner="$(printf '%s' "$2" | tr '[:upper:]' '[:lower:]')"  # registries want lowercase names
push=false
case "${3:-}" in --push) push=true ;; "") ;; *) usage ;; esac
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "$version: not a version X.Y.Z" >&2; exit 2; }
if [ -n "${ENGINE:-}" ]; then engine="$ENGINE"; elif command -v docker >/dev/null; then engine=docker; else engine=podman; fi
read -r -a build_flags <<< "${BUILD_FLAGS:-}"
want_z3="${Z3:-4.12.1}"
image="ghcr.io/$owner/dspec2test-action"
tags=("v$version")
if [[ "$version" != *-* ]]; then
  tags+=("v${version%.*}" "v${version%%.*}")
fi

step() { printf '==> %s\n' "$*"; }
fail() { printf 'publish-release: %s\n' "$*" >&2; exit 1; }

step "the checkout is release v$version of $image"
if ! python3 scripts/release.py check "$version" --owner "$owner"; then
  "$push" && fail "not a release commit: tag the commit scripts/release.py prepare $version wrote"
  echo "dry run: the release commit (scripts/release.py prepare $version --owner $owner) would change:"
  python3 scripts/release.py prepare "$version" --owner "$owner" --dry-run
fi

step "build $image:v$version with $engine"
started=$(date +%s)
"$engine" build "${build_flags[@]}" \
  --label "org.opencontainers.image.source=${SOURCE:-https://github.com/$owner/dspec2test-action}" \
  --label "org.opencontainers.image.version=$version" \
  --label "org.opencontainers.image.description=dspec2test: tests from Dafny contracts, as a GitHub Action" \
  -t "$image:v$version" .
built=$(( $(date +%s) - started ))
size=$("$engine" image inspect --format '{{.Size}}' "$image:v$version")

step "doctor in the image"
doctor=$("$engine" run --rm --entrypoint /app/.venv/bin/dspec2test "$image:v$version" doctor) \
  || fail "dspec2test doctor fails in the image: $doctor"
echo "$doctor"
z3_line=$(grep '^z3 (dafny verifies)' <<< "$doctor" | awk '{print $4, $5}')  # "4.12.1 (/path)"
if [ "$want_z3" != any ] && [ "${z3_line%% *}" != "$want_z3" ]; then
  fail "the image's Dafny verifies with $z3_line, not Z3 $want_z3 (run scripts/fetch-z3.sh before building)"
fi
for module in pytest hypothesis matplotlib; do
  if "$engine" run --rm --entrypoint /app/.venv/bin/python "$image:v$version" -c "import $module" 2>/dev/null; then
    fail "the test-only package $module is in the image"
  fi
done

step "the action in the image, on examples/, without network"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/workspace" "$work/workflow" "$work/file_commands" "$work/home"
cp examples/*.dfy "$work/workspace/"
git -C "$work/workspace" init -q
git -C "$work/workspace" add -A
git -C "$work/workspace" -c user.name=release -c user.email=release@example.invalid commit -q -m examples
echo '{"inputs": {}}' > "$work/workflow/event.json"
started=$(date +%s)
set +e
"$engine" run --rm --network none \
  -v "$work/workspace:/github/workspace" -v "$work/workflow:/github/workflow" \
  -v "$work/file_commands:/github/file_commands" -v "$work/home:/github/home" \
  -e HOME=/github/home -e GITHUB_ACTIONS=true -e GITHUB_WORKSPACE=/github/workspace \
  -e GITHUB_EVENT_NAME=workflow_dispatch -e GITHUB_EVENT_PATH=/github/workflow/event.json \
  -e GITHUB_OUTPUT=/github/file_commands/output -e GITHUB_STEP_SUMMARY=/github/file_commands/summary \
  -e INPUT_REPORTER=summary -e INPUT_FAIL_ON=never "$image:v$version"
code=$?
set -e
ran=$(( $(date +%s) - started ))
[ "$code" -eq 0 ] || fail "the action exited $code on examples/"
output() { sed -n "s/^$1=//p" "$work/file_commands/output"; }
tests=$(output tests); passed=$(output passed); failed=$(output failed)
if ! { [ "${tests:-0}" -gt 0 ] && [ "$failed" -ge 1 ] && [ "$((passed + failed))" -eq "$tests" ]; }; then
  fail "on examples/: $tests tests, $passed passed, $failed failed (want the planted bug, and the rest passed)"
fi
if [ "$want_z3" != any ]; then
  grep -q "Dafny verifies with Z3 $want_z3" "$work/file_commands/summary" || fail "the job summary does not name Z3 $want_z3"
fi

step "tags"
for tag in "${tags[@]}"; do
  [ "$tag" = "v$version" ] || "$engine" tag "$image:v$version" "$image:$tag"
done
for tag in "${tags[@]}"; do  # the exact version first: the moving tags never name an image it lacks
  if "$push"; then
    "$engine" push "$image:$tag"
  else
    echo "dry run: would push $image:$tag"
  fi
done

report="| Release | Image | Size | Build | Run on examples/ (offline) | Z3 for Dafny |
| --- | --- | --- | --- | --- | --- |
| v$version$("$push" || echo " (dry run)") | \`$image\`: ${tags[*]} | $((size / 1000000)) MB | ${built} s | ${ran} s: $tests tests, $failed failed | $z3_line |"
echo "$report"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n' "$report" >> "$GITHUB_STEP_SUMMARY"; fi

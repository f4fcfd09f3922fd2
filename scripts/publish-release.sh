#!/usr/bin/env bash
# Builds the action's image for release vX.Y.Z from this checkout and checks it; says which tags the
# release pushes: ghcr.io/OWNER/dspec2test-action:vX.Y.Z, and vX.Y and vX only when X.Y.Z is the newest
# release of their line (scripts/release.py moving; a pre-release such as 1.2.0-rc.1: its own tag only).
# An image already at vX.Y.Z is never overwritten: the script fails first, in a dry run too.
# .github/workflows/release.yml runs it (after scripts/fetch-z3.sh and the registry login), then pushes
# with docker/build-push-action, which attaches the image's SBOM and provenance.
#
#   bash scripts/publish-release.sh X.Y.Z OWNER [--release] [--preflight] [--prebuilt]
#
# --release: the real release (a checkout that is not the release commit fails, and so does a registry
# that cannot say whether vX.Y.Z exists); without it, a dry run that says what the release would do.
# --preflight: stop after those checks (nothing built). --prebuilt: the image $IMAGE:vX.Y.Z is built
# already (the workflow builds it with buildx): check it without building.
# Tags pushed are written as `tags=` (comma-separated) to $GITHUB_OUTPUT when that is set.
# Environment: VARIANT (py, the default image; cs, the SDK variant: its tags end in -cs and its check runs
# the C# target), ENGINE (docker, else podman), BUILD_FLAGS (more `build` flags; where no registry is
# reachable: "--network host -f Dockerfile.local", a copy naming local bases), SOURCE (the repository's
# URL, for the image's label), Z3 (the Z3 version the image must verify with: 4.12.1 unless "any").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

usage() { echo "usage: $0 X.Y.Z OWNER [--release] [--preflight] [--prebuilt]" >&2; exit 2; }
[ $# -ge 2 ] || usage
version="$1"
owner="$(printf '%s' "$2" | tr '[:upper:]' '[:lower:]')"  # registries want lowercase names
shift 2
release=false preflight=false prebuilt=false
for arg in "$@"; do
  case "$arg" in --release) release=true ;; --preflight) preflight=true ;; --prebuilt) prebuilt=true ;; *) usage ;; esac
done
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "$version: not a version X.Y.Z" >&2; exit 2; }
if [ -n "${ENGINE:-}" ]; then engine="$ENGINE"; elif command -v docker >/dev/null; then engine=docker; else engine=podman; fi
read -r -a build_flags <<< "${BUILD_FLAGS:-}"
want_z3="${Z3:-4.12.1}"
image="ghcr.io/$owner/dspec2test-action"
variant="${VARIANT:-py}"
case "$variant" in py) suffix="" ;; cs) suffix="-cs" ;; *) echo "VARIANT=$variant: py or cs" >&2; exit 2 ;; esac

step() { printf '==> %s\n' "$*"; }
fail() { printf 'publish-release: %s\n' "$*" >&2; exit 1; }

step "$image:v$version$suffix is not released yet"
if answer=$("$engine" manifest inspect "$image:v$version$suffix" 2>&1); then
  fail "$image:v$version$suffix exists already: a release is never overwritten (release a new version instead)"
elif grep -qiE 'no such manifest|manifest unknown|not found|does not exist|no such image' <<< "$answer"; then
  echo "not in the registry: good"
elif "$release" && [ -n "$(git tag --list 'v*.*.*' | grep -vx "v$version" || true)" ]; then
  fail "cannot tell whether $image:v$version$suffix exists, so it is not pushed: $answer"
elif "$release"; then  # the first release: a registry may refuse to speak of a package not made yet
  echo "the first release: $image is not in the registry yet ($answer)"
else
  echo "dry run: cannot tell whether $image:v$version$suffix exists ($answer)"
fi

step "the checkout is release v$version of $image"
if ! python3 scripts/release.py check "$version" --owner "$owner"; then
  "$release" && fail "not a release commit: tag the commit scripts/release.py prepare $version wrote"
  echo "dry run: the release commit (scripts/release.py prepare $version --owner $owner) would change:"
  python3 scripts/release.py prepare "$version" --owner "$owner" --dry-run
fi

read -r -a moving <<< "$(python3 scripts/release.py moving "$version")"
tags=()
for tag in "v$version" "${moving[@]}"; do tags+=("$tag$suffix"); done
refs=()
for tag in "${tags[@]}"; do refs+=("$image:$tag"); done
echo "tags: ${tags[*]} (vX.Y and vX move only to the newest release of their line)"
if [ -n "${GITHUB_OUTPUT:-}" ]; then (IFS=,; echo "tags=${refs[*]}") >> "$GITHUB_OUTPUT"; fi
"$preflight" && exit 0

started=$(date +%s)
if "$prebuilt"; then
  step "$image:v$version$suffix as built"
  "$engine" image inspect "$image:v$version$suffix" >/dev/null || fail "no image $image:v$version$suffix to check (--prebuilt)"
else
  step "build $image:v$version$suffix with $engine"
  "$engine" build "${build_flags[@]}" --target "$variant" \
    --label "org.opencontainers.image.source=${SOURCE:-https://github.com/$owner/dspec2test-action}" \
    --label "org.opencontainers.image.version=$version" \
    --label "org.opencontainers.image.description=dspec2test: tests from Dafny contracts, as a GitHub Action" \
    -t "$image:v$version$suffix" .
fi
built=$(( $(date +%s) - started ))
size=$("$engine" image inspect --format '{{.Size}}' "$image:v$version$suffix")

step "doctor in the image"
doctor=$("$engine" run --rm --entrypoint /app/.venv/bin/dspec2test "$image:v$version$suffix" doctor) \
  || fail "dspec2test doctor fails in the image: $doctor"
echo "$doctor"
z3_line=$(grep '^z3 (dafny verifies)' <<< "$doctor" | awk '{print $4, $5}')  # "4.12.1 (/path)"
if [ "$want_z3" != any ] && [ "${z3_line%% *}" != "$want_z3" ]; then
  fail "the image's Dafny verifies with $z3_line, not Z3 $want_z3 (run scripts/fetch-z3.sh before building)"
fi
for module in pytest hypothesis matplotlib; do
  if "$engine" run --rm --entrypoint /app/.venv/bin/python "$image:v$version$suffix" -c "import $module" 2>/dev/null; then
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
  -e INPUT_REPORTER=summary -e INPUT_FAIL_ON=never -e INPUT_TARGET="$variant" "$image:v$version$suffix"
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
for ref in "${refs[@]}"; do
  [ "$ref" = "$image:v$version$suffix" ] || "$engine" tag "$image:v$version$suffix" "$ref"
  if "$release"; then echo "to push: $ref"; else echo "dry run: would push $ref"; fi
done

report="| Release | Image | Size | Build | Run on examples/ (offline) | Z3 for Dafny |
| --- | --- | --- | --- | --- | --- |
| v$version$("$release" || echo " (dry run)") | \`$image\`: ${tags[*]} | $((size / 1000000)) MB | ${built} s | ${ran} s: $tests tests, $failed failed | $z3_line |"
echo "$report"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n' "$report" >> "$GITHUB_STEP_SUMMARY"; fi

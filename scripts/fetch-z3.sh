#!/usr/bin/env bash
# Puts Z3 4.12.1, the Z3 that Dafny 4.11's own release zips carry (and that setup-dafny-action users
# verify with), at vendor/z3/z3-4.12.1, taken from Z3's own release zip for x64 glibc. scripts/setup.sh
# then links it beside the CLI, so Dafny verifies with it instead of Debian's 4.8.12; the Dockerfile
# copies the build context, so an image built after this script carries it. Needs GitHub to be
# reachable (the release workflow runs it there); nothing else in the project downloads anything.
#
# The zip is checked against its pinned SHA-256 before anything is taken out of it: a zip with another
# checksum is refused, and so is an empty pin. Another zip (another Z3 build) is taken only when its
# checksum is given explicitly, as Z3_ZIP_SHA256=<64 hex digits>.
#
#   bash scripts/fetch-z3.sh            # idempotent: does nothing when vendor/z3/z3-4.12.1 is there
#   bash scripts/fetch-z3.sh ZIP        # take it from Z3's release zip already downloaded
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
Z3_VERSION="4.12.1"
ZIP_STEM="z3-$Z3_VERSION-x64-glibc-2.35"
URL="https://github.com/Z3Prover/z3/releases/download/z3-$Z3_VERSION/$ZIP_STEM.zip"
# SHA-256 of $ZIP_STEM.zip as Z3 published it (the same pin in independent projects that download it).
PINNED_SHA256="c5360fd157b0f861ec8780ba3e51e2197e9486798dc93cd878df69a4b0c2b7c5"
ZIP_SHA256="${Z3_ZIP_SHA256:-$PINNED_SHA256}"
MEMBER="$ZIP_STEM/bin/z3"
TARGET="$ROOT/vendor/z3/z3-$Z3_VERSION"

if [ -x "$TARGET" ] && "$TARGET" --version | grep -q "$Z3_VERSION"; then
  echo "fetch-z3: $TARGET is there"
  exit 0
fi
if ! [[ "$ZIP_SHA256" =~ ^[0-9a-f]{64}$ ]]; then
  echo "fetch-z3: no SHA-256 to check the zip against (got '${ZIP_SHA256}'): refusing an unchecked Z3" >&2
  exit 1
fi
case "$(uname -m)" in
  x86_64) ;;
  *) echo "fetch-z3: this is Z3's x86-64 Linux build, not one for $(uname -m)" >&2; exit 1 ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
zip="${1:-}"
if [ -z "$zip" ]; then
  zip="$work/$ZIP_STEM.zip"
  echo "fetch-z3: downloading $URL"
  curl -fsSL --retry 3 -o "$zip" "$URL" || { echo "fetch-z3: cannot download $URL" >&2; exit 1; }
fi
sum="$(sha256sum "$zip" | cut -d' ' -f1)"
echo "fetch-z3: $(basename "$zip") sha256 $sum"
if [ "$sum" != "$ZIP_SHA256" ]; then
  echo "fetch-z3: checksum mismatch: expected $ZIP_SHA256, got $sum; nothing taken" >&2
  exit 1
fi

# Taken out into the scratch folder and checked there: a wrong binary never lands in vendor/.
python3 - "$zip" "$MEMBER" "$work/z3" <<'PY'
import shutil, sys, zipfile
archive, member, out = sys.argv[1:]
root = member.split("/", 1)[0]
with zipfile.ZipFile(archive) as z:
    names = z.namelist()
    if member not in names:
        found = [n for n in names if n.endswith("/z3")]
        sys.exit(f"fetch-z3: {member} is not in {archive} (its z3 files: {found})")
    with z.open(member) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    if f"{root}/LICENSE.txt" in names:  # Z3's licence travels with the binary
        with z.open(f"{root}/LICENSE.txt") as src, open(out + ".LICENSE.txt", "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
chmod +x "$work/z3"
"$work/z3" --version | grep -q "$Z3_VERSION" || { echo "fetch-z3: $MEMBER does not report Z3 $Z3_VERSION" >&2; exit 1; }
mkdir -p "$(dirname "$TARGET")"
mv "$work/z3" "$TARGET"
if [ -f "$work/z3.LICENSE.txt" ]; then mv "$work/z3.LICENSE.txt" "$(dirname "$TARGET")/LICENSE.txt"; fi
echo "fetch-z3: $("$TARGET" --version) at $TARGET"

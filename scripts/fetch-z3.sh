#!/usr/bin/env bash
# Puts Z3 4.12.1, the Z3 that Dafny 4.11's own release zips carry (and that setup-dafny-action users
# verify with), at vendor/z3/z3-4.12.1, taken from Dafny's release zip on GitHub. scripts/setup.sh then
# links it beside the CLI, so Dafny verifies with it instead of Debian's 4.8.12; the Dockerfile copies
# the build context, so an image built after this script carries it. Needs GitHub to be reachable (the
# release workflow runs it there); nothing else in the project downloads anything.
#
#   bash scripts/fetch-z3.sh            # idempotent: does nothing when vendor/z3/z3-4.12.1 is there
#   bash scripts/fetch-z3.sh ZIP        # take it from a Dafny release zip already downloaded
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DAFNY_VERSION="4.11.0"
Z3_VERSION="4.12.1"
ZIP_NAME="dafny-$DAFNY_VERSION-x64-ubuntu-20.04.zip"
URL="https://github.com/dafny-lang/dafny/releases/download/v$DAFNY_VERSION/$ZIP_NAME"
# The zip's SHA-256 when pinned (it could not be read where this script was written: GitHub was out
# of reach); the script prints what it downloaded, so the first release pins it here.
ZIP_SHA256=""
MEMBER="dafny/z3/bin/z3-$Z3_VERSION"
TARGET="$ROOT/vendor/z3/z3-$Z3_VERSION"

if [ -x "$TARGET" ] && "$TARGET" --version | grep -q "$Z3_VERSION"; then
  echo "fetch-z3: $TARGET is there"
  exit 0
fi
case "$(uname -m)" in
  x86_64) ;;
  *) echo "fetch-z3: Dafny's release zips carry a Linux Z3 for x86-64 only, not $(uname -m)" >&2; exit 1 ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
zip="${1:-}"
if [ -z "$zip" ]; then
  zip="$work/$ZIP_NAME"
  echo "fetch-z3: downloading $URL"
  curl -fsSL --retry 3 -o "$zip" "$URL" || { echo "fetch-z3: cannot download $URL" >&2; exit 1; }
fi
sum="$(sha256sum "$zip" | cut -d' ' -f1)"
echo "fetch-z3: $ZIP_NAME sha256 $sum"
if [ -n "$ZIP_SHA256" ] && [ "$sum" != "$ZIP_SHA256" ]; then
  echo "fetch-z3: checksum mismatch: expected $ZIP_SHA256" >&2
  exit 1
fi

# Taken out into the scratch folder and checked there: a wrong binary never lands in vendor/.
python3 - "$zip" "$MEMBER" "$work/z3" <<'PY'
import shutil, sys, zipfile
archive, member, out = sys.argv[1:]
with zipfile.ZipFile(archive) as z:
    names = z.namelist()
    if member not in names:
        found = [n for n in names if "/z3/" in n]
        sys.exit(f"fetch-z3: {member} is not in {archive} (its Z3 files: {found})")
    with z.open(member) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    for name in names:  # Z3's licence travels with the binary
        if name.startswith("dafny/z3/") and name.upper().endswith("LICENSE.TXT"):
            with z.open(name) as src, open(out + ".LICENSE.txt", "wb") as dst:
                shutil.copyfileobj(src, dst)
PY
chmod +x "$work/z3"
"$work/z3" --version | grep -q "$Z3_VERSION" || { echo "fetch-z3: $MEMBER does not report Z3 $Z3_VERSION" >&2; exit 1; }
mkdir -p "$(dirname "$TARGET")"
mv "$work/z3" "$TARGET"
if [ -f "$work/z3.LICENSE.txt" ]; then mv "$work/z3.LICENSE.txt" "$(dirname "$TARGET")/LICENSE.txt"; fi
echo "fetch-z3: $("$TARGET" --version) at $TARGET"

#!/usr/bin/env bash
# One-command setup: Debian packages, Dafny 4.11.0 as a local .NET tool, a venv from the Debian
# interpreter (PyPI is not assumed reachable), and the project installed in it.
# Idempotent: a second run checks each step and changes nothing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DAFNY_VERSION="4.11.0"
TOOLS="$ROOT/.tools"
VENV="$ROOT/.venv"
APT_PACKAGES=(python3 python3-venv python3-pip python3-setuptools python3-z3 python3-lark python3-github
  python3-junit.xml python3-yaml python3-pytest python3-hypothesis python3-matplotlib z3 git ca-certificates)

step() { printf '==> %s\n' "$*"; }
fail() { printf 'setup failed at step "%s": %s\n' "$1" "$2" >&2; exit 1; }

step "Debian packages"
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null || fail "Debian packages" "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
    || fail "Debian packages" "apt-get install ${missing[*]} failed"
fi

step "Dafny $DAFNY_VERSION"
command -v dotnet >/dev/null || fail "Dafny" "the .NET SDK (dotnet) is not on PATH"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_ROLL_FORWARD=Major
if ! "$TOOLS/dafny/dafny" --version 2>/dev/null | grep -q "^$DAFNY_VERSION"; then
  rm -rf "$TOOLS/dafny"
  dotnet tool install --tool-path "$TOOLS/dafny" dafny --version "$DAFNY_VERSION" >/dev/null \
    || fail "Dafny" "dotnet tool install dafny --version $DAFNY_VERSION failed"
  "$TOOLS/dafny/dafny" --version | grep -q "^$DAFNY_VERSION" || fail "Dafny" "installed dafny does not report $DAFNY_VERSION"
fi

step "Python venv"
if [ ! -x "$VENV/bin/python" ]; then
  /usr/bin/python3 -m venv --system-site-packages "$VENV" || fail "Python venv" "/usr/bin/python3 -m venv failed"
fi

step "dspec2test package"
if ! "$VENV/bin/python" -c 'import dspec2test' 2>/dev/null || [ ! -x "$VENV/bin/dspec2test" ]; then
  "$VENV/bin/python" -m pip install -q --no-deps --no-build-isolation --no-index -e "$ROOT" \
    || fail "dspec2test package" "pip install -e . failed"
fi
# Byte-code compiled now, once: where PYTHONDONTWRITEBYTECODE is set (CI images often set it), every
# CLI start would otherwise compile the whole package again, a tenth of a second each time.
"$VENV/bin/python" -m compileall -q "$ROOT/src" >/dev/null || fail "dspec2test package" "compileall src failed"
# The CLI looks for dafny beside its own interpreter first, so a link here makes it reachable.
ln -sfn "$TOOLS/dafny/dafny" "$VENV/bin/dafny"

step "check"
"$VENV/bin/dspec2test" doctor >/dev/null || { "$VENV/bin/dspec2test" doctor; fail "check" "dspec2test doctor reported a problem"; }
echo "ready: $VENV/bin/dspec2test"

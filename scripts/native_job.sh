#!/usr/bin/env bash
# The jobs that prove the native part (Makefile: `make sanitize`, `make test-dependency-floor`),
# each in a copy of the tree with a venv of its own, so the checkout's own build is untouched:
#   sanitize     every extension (Lexbor, ada and CED included) built with AddressSanitizer and
#                UndefinedBehaviorSanitizer; the whole suite, then FUZZ_SECONDS of
#                scripts/fuzz_extract.py. Any sanitizer report aborts the job.
#   floor        the lowest versions pyproject.toml admits of the two packages the native part
#                builds from or is checked against (ada-url: its ada.cpp and ada.h compiled in,
#                its URL class for hosts; selectolax: the oracles' tree), the whole suite (the
#                top of each range is what the other jobs install).
set -euo pipefail
job="$1"
here="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$(command -v python3.11 || command -v python3)}"
work="$(mktemp -d "${TMPDIR:-/tmp}/redecode-$job.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# the tests find the shared corpus beside the checkout (../shared)
ln -s "$(cd "$here/.." && pwd)/shared" "$work/shared"
mkdir "$work/repo"
(cd "$here" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - --) | tar xf - -C "$work/repo"
cd "$work/repo"
"$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# objects and fetched sources are cached by content and flags: share the checkout's cache
# (or the one REDECODE_BUILD_CACHE names)
export REDECODE_BUILD_CACHE="${REDECODE_BUILD_CACHE:-$here/build/native}"
slow_args=(-m "not slow and not browser and not spark")
# one test file per process on every core, as make test runs them (JOBS: make's)
jobs_args=(-n "${JOBS:-auto}" --dist loadfile)
case "$job" in
  sanitize)
    REDECODE_SANITIZE=1 .venv/bin/python -m pip install -q -e '.[dev]'
    .venv/bin/python scripts/check_native.py --files
    # Python is not instrumented: the runtimes are preloaded; its own allocator is bypassed
    # so that ASan sees the buffers the extensions read. CPython leaks by design at exit.
    export LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
    export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    export PYTHONMALLOC=malloc
    .venv/bin/python -m pytest -p no:cacheprovider "${jobs_args[@]}" "${slow_args[@]}"
    .venv/bin/python scripts/fuzz_extract.py --seconds "${FUZZ_SECONDS:-120}" --seed "${FUZZ_SEED:-$RANDOM}" \
      --save-failures "$here/build/fuzz-failures"
    ;;
  floor)
    floors=("ada-url==${ADA_URL_FLOOR:-4.0.0}" "selectolax==${SELECTOLAX_FLOOR:-1.0.0}")
    .venv/bin/python -m pip install -q "setuptools>=77" wheel "${floors[@]}"
    # no build isolation: _urls compiles the ada of the ada-url installed here
    .venv/bin/python -m pip install -q --no-build-isolation -e '.[dev]' "${floors[@]}"
    .venv/bin/python scripts/check_native.py
    .venv/bin/python -c "import pipeline.native as n, selectolax; print('floor: ada-url', n.urls.ADA_URL_VERSION, 'compiled in; selectolax', selectolax.__version__)"
    .venv/bin/python -m pytest -p no:cacheprovider "${jobs_args[@]}" -m "not slow"
    ;;
  *) echo "usage: $0 sanitize|floor" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# The two jobs that prove the native part (Makefile: `make sanitize`, `make test-pure-python`),
# each in a copy of the tree with a venv of its own, so the checkout's own build is untouched:
#   sanitize     every extension (Lexbor, ada and CED included) built with AddressSanitizer and
#                UndefinedBehaviorSanitizer; the whole suite, then FUZZ_SECONDS of
#                scripts/fuzz_extract.py. Any sanitizer report aborts the job.
#   pure-python  installed with no usable compiler (CC/CXX fail): no extension is built; the
#                whole suite on the pure-Python path, and `redecode run` must announce each
#                fallback (extraction, CED) on stderr exactly once.
#   floor        the lowest versions pyproject.toml admits of the two packages the native part
#                builds from or falls back to (ada-url: its ada.cpp and ada.h compiled in;
#                selectolax: the reference path), the whole suite (the top of each range is
#                what the other jobs install).
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
export REDECODE_BUILD_CACHE="$here/build/native"
slow_args=(-m "not slow and not browser and not spark")
case "$job" in
  sanitize)
    REDECODE_SANITIZE=1 .venv/bin/python -m pip install -q -e '.[dev]'
    for ext in pipeline/extract/_document pipeline/extract/_urls pipeline/extract/_dfa \
               pipeline/encoding/_utf8 pipeline/encoding/_mojibake pipeline/encoding/_ced \
               pipeline/runners/_malloc pipeline/http/_head pipeline/_slots \
               pipeline/sources/_fields; do
      ls "$ext".*.so >/dev/null || { echo "sanitize: $ext was not built" >&2; exit 1; }
    done
    # Python is not instrumented: the runtimes are preloaded; its own allocator is bypassed
    # so that ASan sees the buffers the extensions read. CPython leaks by design at exit.
    export LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
    export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    export PYTHONMALLOC=malloc
    .venv/bin/python -m pytest -p no:cacheprovider "${slow_args[@]}"
    .venv/bin/python scripts/fuzz_extract.py --seconds "${FUZZ_SECONDS:-120}" --seed "${FUZZ_SEED:-$RANDOM}" \
      --save-failures "$here/build/fuzz-failures"
    ;;
  pure-python)
    CC=false CXX=false .venv/bin/python -m pip install -q -e '.[dev]'
    built="$(find pipeline -name '_*.so')"
    if [ -n "$built" ]; then
      echo "pure-python: an extension was built: $built" >&2; exit 1
    fi
    REDECODE_EXPECT_PURE_PYTHON=1 .venv/bin/python -m pytest -p no:cacheprovider -m "not slow and not native"
    .venv/bin/redecode run data/sample/ --out "$work/out" --rules data/sample/rules.toml 2> "$work/stderr"
    announced="$(grep -c "extraction runs in pure Python" "$work/stderr" || true)"
    if [ "$announced" != 1 ]; then
      echo "pure-python: the fallback was announced $announced times on stderr:" >&2
      cat "$work/stderr" >&2; exit 1
    fi
    echo "pure-python: fallback announced once: $(grep "extraction runs in pure Python" "$work/stderr")"
    announced="$(grep -c "uses an emulation of Chromium's detector" "$work/stderr" || true)"
    if [ "$announced" != 1 ]; then
      echo "pure-python: the CED fallback was announced $announced times on stderr:" >&2
      cat "$work/stderr" >&2; exit 1
    fi
    echo "pure-python: CED fallback announced once: $(grep "uses an emulation of Chromium's detector" "$work/stderr")"
    ;;
  floor)
    floors=("ada-url==${ADA_URL_FLOOR:-4.0.0}" "selectolax==${SELECTOLAX_FLOOR:-1.0.0}")
    .venv/bin/python -m pip install -q "setuptools>=77" wheel "${floors[@]}"
    # no build isolation: _urls compiles the ada of the ada-url installed here
    .venv/bin/python -m pip install -q --no-build-isolation -e '.[dev]' "${floors[@]}"
    .venv/bin/python -c "import pipeline.extract._urls as u, selectolax; print('floor: ada-url', u.ADA_URL_VERSION, 'compiled in; selectolax', selectolax.__version__)"
    .venv/bin/python -m pytest -p no:cacheprovider -m "not slow"
    ;;
  *) echo "usage: $0 sanitize|pure-python|floor" >&2; exit 2 ;;
esac

# redecode — every target bootstraps .venv by itself on a fresh machine (Python 3.11 + pip).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
OUT ?= out
# make redecode CRAWL="crawl/*.warc.gz" RULES=rules.toml OUT=out/ : any inputs `redecode run`
# takes; by default the bundled sample with its rules (RULES is empty for another CRAWL).
SAMPLE := data/sample/
CRAWL ?= $(SAMPLE)
RULES ?= $(if $(filter $(SAMPLE),$(CRAWL)),$(SAMPLE)rules.toml)
RUN_ARGS ?=
SLOW ?=
PYTEST_ARGS ?=
# test processes (pytest-xdist; one test file stays in one process, so its fixtures start once)
JOBS ?= auto
# make bench WRITE=1 also rewrites the tracked bench/RESULTS.md (default: $(OUT)/bench/) and
# copies its tables into README.md (scripts/readme_tables.py)
WRITE ?=

.PHONY: redecode test bench sample lint nightly clean venv package-check sanitize test-dependency-floor

venv: $(STAMP)

$(STAMP): pyproject.toml setup.py $(wildcard pipeline/*.c pipeline/*/*.c pipeline/*/*.cpp pipeline/*/*.h)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

## Decode CRAWL (default: the bundled sample, with its rules) into $(OUT)/
redecode: $(STAMP)
	$(BIN)/redecode run $(CRAWL) --out $(OUT) $(if $(RULES),--rules $(RULES)) $(RUN_ARGS)

## The whole test suite (slow suites only with SLOW=1; SLOW=1 also runs the two native jobs)
test: $(STAMP)
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile $(if $(SLOW),,-m "not slow") $(PYTEST_ARGS)
	$(if $(SLOW),$(MAKE) sanitize test-dependency-floor)

## Every extension built with ASan + UBSan: the suite, then FUZZ_SECONDS (120) of fuzzing
sanitize:
	scripts/native_job.sh sanitize

## The lowest ada-url and selectolax that pyproject.toml admits: the suite
test-dependency-floor:
	scripts/native_job.sh floor

## Build the wheel and the sdist, install each into a clean venv, run the sample there
package-check: $(STAMP)
	scripts/package_check.sh $(BIN)/python

## Regenerate data/sample/ from the project's own text
sample: $(STAMP)
	$(BIN)/python scripts/make_sample.py data/sample

## ruff over everything, mypy over the package, the compiled modules' stubs against the
## built modules (settings in pyproject.toml)
lint: $(STAMP)
	$(BIN)/ruff check pipeline tests scripts bench setup.py
	$(BIN)/python -m mypy
	$(BIN)/python -m mypy.stubtest --mypy-config-file pyproject.toml \
	  $(addprefix pipeline.native.,$(basename $(notdir $(wildcard pipeline/native/_*.pyi))))

## Benchmarks (installs the peers in the bench extra); results in $(OUT)/bench/RESULTS.md
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	$(BIN)/python -m bench --results $(if $(WRITE),bench/RESULTS.md,$(OUT)/bench/RESULTS.md)
	$(if $(WRITE),$(BIN)/python scripts/readme_tables.py)

## Decode CRAWL as `make redecode` does, audit it with gates, write the report
nightly: redecode
	$(BIN)/redecode audit --out $(OUT) --check all --fail-on "errors>100" --fail-on "mojibake_rate>0.5"
	$(BIN)/redecode report --out $(OUT) -o $(OUT)/report.html

clean:
	rm -rf $(OUT) .pytest_cache

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
# make bench WRITE=1 also rewrites the tracked bench/RESULTS.md (default: $(OUT)/bench/)
WRITE ?=

.PHONY: redecode test bench sample lint nightly clean venv package-check

venv: $(STAMP)

$(STAMP): pyproject.toml $(wildcard pipeline/*/*.c pipeline/*/*.h)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

## Decode CRAWL (default: the bundled sample, with its rules) into $(OUT)/
redecode: $(STAMP)
	$(BIN)/redecode run $(CRAWL) --out $(OUT) $(if $(RULES),--rules $(RULES)) $(RUN_ARGS)

## The whole test suite (slow suites only with SLOW=1)
test: $(STAMP)
	$(BIN)/python -m pytest $(if $(SLOW),,-m "not slow") $(PYTEST_ARGS)

## Build the wheel and the sdist, install each into a clean venv, run the sample there
package-check: $(STAMP)
	scripts/package_check.sh $(BIN)/python

## Regenerate data/sample/ from the project's own text
sample: $(STAMP)
	$(BIN)/python scripts/make_sample.py data/sample

lint: $(STAMP)
	$(BIN)/ruff check pipeline tests scripts bench

## Benchmarks (installs the peers in the bench extra); results in $(OUT)/bench/RESULTS.md
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	$(BIN)/python -m bench --results $(if $(WRITE),bench/RESULTS.md,$(OUT)/bench/RESULTS.md)

## Decode CRAWL as `make redecode` does, audit it with gates, write the report
nightly: redecode
	$(BIN)/redecode audit --out $(OUT) --check all --fail-on "errors>100" --fail-on "mojibake_rate>0.5"
	$(BIN)/redecode report --out $(OUT) -o $(OUT)/report.html

clean:
	rm -rf $(OUT) .pytest_cache

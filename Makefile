# ck3raven — two commands for a newcomer: `make run` and `make test`. `make check` is what CI runs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run run-reset test check lint format typecheck arch archlint docs bench bench-peers bench-crash bench-shared install clean clients fuzzers casefold-tools mutate

RUN_DIR ?= .run
# processes the suite runs in (pytest-xdist): one per core; `make test TEST_WORKERS=0` runs it in one
TEST_WORKERS ?= auto
# `make mutate`'s temporary folder, outside the checkout: a test world made inside it would lie in this
# repository, which doctor warns of (and its test expects no warning)
MUTATE_TMP ?= /tmp/ck3raven-mutate
CLIENTS       := tests/clients
CLIENTS_STAMP := $(CLIENTS)/node_modules/.installed
FUZZERS       := tests/mcpfuzz
FUZZERS_STAMP := $(FUZZERS)/.venv/.installed

run: $(STAMP)  ## serve a scratch copy of the sample world over stdio (stdout is the MCP protocol: nothing else may print there)
	@test -f $(RUN_DIR)/config.toml || $(BIN)/ck3raven init --sample $(RUN_DIR) >/dev/null
	@echo "ck3raven: ready on stdio with $(abspath $(RUN_DIR))/config.toml; a client starts it with: $(abspath $(BIN))/ck3raven serve --config $(abspath $(RUN_DIR))/config.toml" 1>&2
	@exec $(BIN)/ck3raven serve --config $(RUN_DIR)/config.toml

run-reset:  ## start the scratch world of `make run` over
	rm -rf $(RUN_DIR)

test: $(STAMP) $(CLIENTS_STAMP) $(FUZZERS_STAMP)  ## the whole test suite (with the real MCP clients and the fuzzer it drives)
	$(BIN)/pytest -q -n $(TEST_WORKERS)

clients: $(CLIENTS_STAMP)  ## the real MCP clients the e2e tests drive (pinned by tests/clients/package-lock.json)

$(CLIENTS_STAMP): $(CLIENTS)/package.json $(CLIENTS)/package-lock.json
	npm ci --prefix $(CLIENTS) --no-audit --no-fund --loglevel=error 1>&2
	@touch $@

fuzzers: $(FUZZERS_STAMP)  ## mcpfuzz in a venv of its own (it needs the mcp 1.x SDK; pinned by tests/mcpfuzz/requirements.txt)

$(FUZZERS_STAMP): $(FUZZERS)/requirements.txt
	@test -x $(FUZZERS)/.venv/bin/python || $(PYTHON) -m venv $(FUZZERS)/.venv 1>&2
	@$(FUZZERS)/.venv/bin/python -m pip install -q -r $(FUZZERS)/requirements.txt 1>&2
	@touch $@

CASEFOLD_PACKAGES := exfatprogs exfat-fuse dosfstools
casefold-tools:  ## best effort, as root with apt: the tools the tests use to mount a real folder that ignores case (else those tests skip, saying why)
	@if command -v mkfs.exfat >/dev/null && command -v mount.exfat-fuse >/dev/null; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
	  echo "casefold-tools: needs root and apt-get; the tests on a real case-insensitive folder will skip" 1>&2; exit 0; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	apt-get install -y -qq $(CASEFOLD_PACKAGES) 1>&2 || { apt-get update -qq 1>&2 && apt-get install -y -qq $(CASEFOLD_PACKAGES) 1>&2; } || \
	  echo "casefold-tools: not installed; the tests on a real case-insensitive folder will skip" 1>&2

check: lint typecheck arch archlint test  ## everything CI checks
	$(BIN)/python .ci/conformance.py --check

install: $(STAMP)

$(STAMP): pyproject.toml  # install output goes to stderr, so that `make run` keeps stdout for MCP
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) 1>&2
	@$(BIN)/python -m pip install -q --upgrade pip 1>&2
	@$(BIN)/python -m pip install -q -e '.[dev]' 1>&2
	@touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(STAMP)
	$(BIN)/mypy

arch: $(STAMP)
	$(BIN)/lint-imports

archlint: $(STAMP)
	$(BIN)/python .ci/archlint.py domain ports adapters app

docs: $(STAMP)  ## regenerate docs/reply-codes.md from the registry
	$(BIN)/ck3raven codes --format markdown > docs/reply-codes.md
	$(BIN)/python .ci/conformance.py --write

bench: $(STAMP)  ## every bench in one table: start-up, calls over stdio and HTTP against their floors and stock FastMCP (same tools, same raw work), resolve+enforce, contracts vs git (JSON in bench/results/)
	$(BIN)/python bench/suite.py

mutate: $(STAMP)  ## mutation testing of domain/policy, contracts, compliance and world (mutmut; about an hour on 2 cores, not in CI): the score per package and every mutant not killed
	@mkdir -p $(MUTATE_TMP)
	TMPDIR=$(MUTATE_TMP) $(BIN)/mutmut run --max-children 2 >/dev/null 2>&1 || true
	$(BIN)/python .ci/mutants.py --min 95

bench-peers: $(STAMP)  ## the same start-up and calls with the MCP reference filesystem server (npm) beside them, same run
	$(BIN)/python bench/suite.py --peers

bench-crash: $(STAMP)  ## kill -9 during state decisions and file writes, then check nothing is torn
	$(BIN)/python bench/kill_state.py
	$(BIN)/python bench/kill_writes.py
	$(BIN)/python bench/kill_audit.py

bench-shared: $(STAMP)  ## several stdio servers on one config at once: the four-server scenario, two for 60 s, eight for 30 s
	$(BIN)/python bench/shared_state.py --servers 4 --rounds 6
	$(BIN)/python bench/shared_state.py --servers 2 --seconds 60
	$(BIN)/python bench/shared_state.py --servers 8 --seconds 30

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache $(CLIENTS)/node_modules $(FUZZERS)/.venv

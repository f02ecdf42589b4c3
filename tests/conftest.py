"""Shared fixtures.

``built_site``: the real site, built strictly (as ``make html`` does) once per
test session into a temporary build folder; it returns the HTML folder. The
build's other outputs sit beside it: ``<html>/../jupyter_execute`` and
``<html>/../doctrees``. Notebook outputs come from the repository's own
``_build/.jupyter_cache``, so a session after ``make html`` re-executes nothing.
Set ``TRTDOCS_BUILT_SITE=<html folder>`` to test an existing build instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sitebuild import REPO, log, sphinx_build

ROOT = REPO
JUPYTER_CACHE = ROOT / "_build" / ".jupyter_cache"

__all__ = ["ROOT", "sphinx_build"]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TRTDOCS_BUILT_SITE")
    if given:
        html = Path(given).resolve()
        assert (html / "index.html").is_file(), f"TRTDOCS_BUILT_SITE={given} holds no built site"
        return html
    builddir = tmp_path_factory.mktemp("site") / "_build"
    JUPYTER_CACHE.parent.mkdir(exist_ok=True)
    result = sphinx_build(ROOT, builddir, "-D", f"nb_execution_cache_path={JUPYTER_CACHE}")
    if result.returncode != 0:
        pytest.fail(f"strict build of the site failed:\n{log(result)[-20000:]}")
    return builddir / "html"

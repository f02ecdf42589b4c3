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
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JUPYTER_CACHE = ROOT / "_build" / ".jupyter_cache"


def sphinx_build(srcdir: Path, builddir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """The Makefile's strict sphinx-build (-W -n --keep-going -T) of ``srcdir``."""
    cmd = [sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-T", "-q",
           "-d", str(builddir / "doctrees"), *extra, "-b", "html", str(srcdir), str(builddir / "html")]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=srcdir, timeout=1800)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TRTDOCS_BUILT_SITE")
    if given:
        html = Path(given).resolve()
        assert (html / "index.html").is_file(), f"TRTDOCS_BUILT_SITE={given} holds no built site"
        return html
    builddir = tmp_path_factory.mktemp("site") / "_build"
    JUPYTER_CACHE.parent.mkdir(exist_ok=True)
    proc = sphinx_build(ROOT, builddir, "-D", f"nb_execution_cache_path={JUPYTER_CACHE}")
    assert proc.returncode == 0, f"strict build of the site failed:\n{proc.stdout}\n{proc.stderr}"
    return builddir / "html"

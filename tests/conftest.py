"""Shared fixtures: one strict build of the real site per test session."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitebuild import REPO, log, sphinx_build


@pytest.fixture(scope="session")
def built_site() -> Path:
    """Build the real site as `make html` does (same _build, so its cache is
    reused) and return the html folder. A failing build fails every test that
    uses it, with the build's log."""
    out = REPO / "_build"
    result = sphinx_build(REPO, out)
    if result.returncode != 0:
        pytest.fail(f"strict build of the site failed:\n{log(result)[-20000:]}")
    return out / "html"

"""Shared fixtures.

``built_site``: the real site, built strictly (as ``make html`` does) once per
test session into a temporary build folder; it returns the HTML folder. The
build's other outputs sit beside it: ``<html>/../jupyter_execute`` and
``<html>/../doctrees``. Notebook outputs come from the repository's own
``_build/.jupyter_cache``, so a session after ``make html`` re-executes nothing.
Set ``TRTDOCS_BUILT_SITE=<html folder>`` to test an existing build instead.
``TRTDOCS_SITE_SOURCE=<folder>`` builds another site (tests of this fixture).

The build keeps ``CI`` and ``REQUIRE_ALL`` from the environment, so that
``CI=true make test`` builds the site as CI does. When the build fails, one
test reports it (:data:`BUILD_TEST`) and every test that needs the site is
skipped with a line that points there; without that test in the session, the
session fails at its end with the same report, once.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sitebuild import REPO, SiteBuild, failure_report, log, sphinx_build, summarize

ROOT = REPO
JUPYTER_CACHE = ROOT / "_build" / ".jupyter_cache"
BUILD_TEST = "tests/test_site.py::test_the_site_builds_strictly"
STRICTNESS = ("CI", "REQUIRE_ALL")  # what the real site's build keeps from the environment

__all__ = ["ROOT", "sphinx_build"]


_SITE: list[SiteBuild] = []  # the session's build, once made


@pytest.fixture(scope="session")
def site_build(tmp_path_factory: pytest.TempPathFactory) -> SiteBuild:
    """The strict build of the real site, made once; never raises."""
    given = os.environ.get("TRTDOCS_BUILT_SITE")
    if given:
        html = Path(given).resolve()
        ok = (html / "index.html").is_file()
        build = SiteBuild(html, 0 if ok else 1, summary=f"TRTDOCS_BUILT_SITE={given} holds no built site")
    else:
        # TRTDOCS_SITE_SOURCE: another site to build, for the tests of this fixture
        source = Path(os.environ.get("TRTDOCS_SITE_SOURCE") or ROOT)
        builddir = tmp_path_factory.mktemp("site") / "_build"
        cache = JUPYTER_CACHE if source == ROOT else builddir / ".jupyter_cache"
        cache.parent.mkdir(parents=True, exist_ok=True)
        result = sphinx_build(source, builddir, "-D", f"nb_execution_cache_path={cache}",
                              keep_env=STRICTNESS)
        log_file = builddir / "build.log"
        log_file.write_text(log(result), encoding="utf-8")
        build = SiteBuild(builddir / "html", result.returncode, log_file,
                          summarize(log(result)) if result.returncode else "")
    _SITE.append(build)
    return build


@pytest.fixture(scope="session")
def built_site(site_build: SiteBuild) -> Path:
    if site_build.returncode != 0:
        pytest.skip(f"needs the built site, and its strict build failed: see {BUILD_TEST}")
    return site_build.html


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A failed site build the build test did not report fails the session, once."""
    if not _SITE or _SITE[0].returncode == 0 or _SITE[0].reported:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", "site build failed", red=True)
        reporter.write_line(failure_report(_SITE[0]))
    session.exitstatus = pytest.ExitCode.TESTS_FAILED

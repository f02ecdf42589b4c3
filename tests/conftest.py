"""The test tiers, and the real site every site test shares.

Tiers, by folder:

* ``tests/unit``: pure tests: no Sphinx build, no notebook execution, no
  browser (``make check``);
* ``tests/make``: the Makefile's targets and this harness;
* ``tests/build``: the fixture sites (``tests/roots``) built in this process;
* ``tests/site``: the real site, built once: static checks, the browser, the
  notebooks run as a reader runs them.

Every test outside ``tests/unit`` is marked ``build`` (``-m "not build"`` is
the pure tier again); browser tests are marked ``browser``.

``built_site``: the real site, built strictly (as ``make html`` does) once per
session into a temporary build folder; it returns the HTML folder. The build's
other outputs sit beside it: ``<html>/../jupyter_execute``, ``<html>/../doctrees``,
``<html>/../trtdocs/environment.json`` (the probe). Notebook outputs come from the
repository's own ``_build/.jupyter_cache``, so a session after ``make html``
executes nothing. The build starts in the background as soon as the session
knows a test needs it, so the pure and fixture tests run beside it. Set
``TRTDOCS_BUILT_SITE=<html folder>`` to test an existing build instead;
``TRTDOCS_SITE_SOURCE=<folder>`` builds another site (tests of this harness).

The build keeps ``CI`` and ``REQUIRE_ALL`` from the environment, so that
``CI=true make test`` builds the site as CI does. When it fails, one test
reports it (:data:`sitebuild.BUILD_TEST`) and every test that needs the site is skipped
with a line that points there; without that test in the session, the session
fails at its end with the same report, once.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from paths import ROOT, TIERS
from sitebuild import (
    BUILD_TEST,
    STRICTNESS,
    SiteBuild,
    failure_report,
    sphinx_build,
    start_sphinx_build,
    summarize,
)
from static import Mypy

JUPYTER_CACHE = ROOT / "_build" / ".jupyter_cache"
SITE_FIXTURES = frozenset({"built_site", "site_build"})
_MYPY = Mypy()

__all__ = ["ROOT", "sphinx_build"]


class _Site:
    """The session's build of the real site: started once, waited for once."""

    def __init__(self) -> None:
        self.build: SiteBuild | None = None
        self._running = None  # (process, builddir)

    def start(self) -> None:
        if (
            self.build is not None
            or self._running is not None
            or os.environ.get("TRTDOCS_BUILT_SITE")
        ):
            return
        source = Path(os.environ.get("TRTDOCS_SITE_SOURCE") or ROOT)
        builddir = Path(tempfile.mkdtemp(prefix="trtdocs-site-")) / "_build"
        cache = JUPYTER_CACHE if source == ROOT else builddir / ".jupyter_cache"
        cache.parent.mkdir(parents=True, exist_ok=True)
        log_file = builddir / "build.log"
        # the day's install resolutions: the repository's own, as make html keeps them
        resolutions = (
            ROOT / "_build" / "trtdocs" / "resolve"
            if source == ROOT
            else builddir / "trtdocs" / "resolve"
        )
        process = start_sphinx_build(
            source,
            builddir,
            log_file,
            "-D",
            f"nb_execution_cache_path={cache}",
            "-D",
            f"trtdocs_resolve_cache={resolutions}",
            keep_env=STRICTNESS,
        )
        self._running = (process, log_file)

    def result(self) -> SiteBuild:
        """The build, made once; never raises."""
        if self.build is not None:
            return self.build
        given = os.environ.get("TRTDOCS_BUILT_SITE")
        if given:
            html = Path(given).resolve()
            ok = (html / "index.html").is_file()
            self.build = SiteBuild(
                html, 0 if ok else 1, summary=f"TRTDOCS_BUILT_SITE={given} holds no built site"
            )
            return self.build
        self.start()
        assert self._running is not None
        process, log_file = self._running
        process.wait()
        out = log_file.read_text(encoding="utf-8")
        self.build = SiteBuild(
            log_file.parent / "html",
            process.returncode,
            log_file,
            summarize(out) if process.returncode else "",
        )
        return self.build

    def clean(self) -> None:
        """Stop a build no test waited for; remove a build that succeeded (a
        failed one stays, for its log)."""
        if self._running is None:
            return
        process, log_file = self._running
        if self.build is None:
            process.terminate()
            process.wait()
        if self.build is None or self.build.returncode == 0:
            shutil.rmtree(log_file.parent.parent, ignore_errors=True)


_SITE = _Site()


def _tier(item: pytest.Item) -> str:
    rel = Path(str(item.path)).resolve().relative_to(ROOT / "tests")
    return rel.parts[0] if len(rel.parts) > 1 and rel.parts[0] in TIERS else ""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test outside tests/unit ``build``, and every test that needs the
    real site ``real_site``; run the tiers in order, and the site tests that
    compare with the reader's run of the notebooks last (the run goes on
    meanwhile)."""
    for item in items:
        if _tier(item) != "unit":
            item.add_marker(pytest.mark.build)
        if SITE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.real_site)
    order = {tier: n for n, tier in enumerate(TIERS)}
    worker = _xdist_worker(config)
    items.sort(
        key=lambda item: (
            order.get(_tier(item), len(TIERS)),
            # under pytest-xdist mypy runs in its test, first: beside the others
            not (worker and "mypy_report" in getattr(item, "fixturenames", ())),
            "reader_run" in getattr(item, "fixturenames", ()),
        )
    )


def _xdist_worker(config: pytest.Config) -> bool:
    """Whether this session is one of pytest-xdist's workers, each of which
    collects every test and runs those it is sent (its config holds the input
    the controller sent; a pytest run from a worker's test inherits its
    PYTEST_XDIST_WORKER, and is no worker)."""
    return hasattr(config, "workerinput")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the site's build, and mypy, when a collected test needs them."""
    if session.config.option.collectonly:
        return
    needed = set().union(*(getattr(item, "fixturenames", ()) for item in session.items))
    if SITE_FIXTURES & needed:
        if not _xdist_worker(session.config):  # a worker fails them instead (site_build)
            _SITE.start()
    # a worker runs mypy in its test: a start in each worker would run it twice
    if "mypy_report" in needed and not _xdist_worker(session.config):
        _MYPY.start()


@pytest.fixture(scope="session")
def mypy_report() -> tuple[int, str]:
    """mypy's exit status and output over pyproject.toml's files (tests/static.py)."""
    return _MYPY.result()


@pytest.fixture(scope="session")
def site_build(request: pytest.FixtureRequest) -> SiteBuild:
    """The strict build of the real site, made once; never raises."""
    if _xdist_worker(request.config):
        pytest.fail(
            "the tests that need the real site (marked real_site) run in one session without -n "
            "(each worker would build the site): make test runs them so; or leave them out "
            'with -m "not real_site"',
            pytrace=False,
        )
    return _SITE.result()


@pytest.fixture(scope="session")
def built_site(site_build: SiteBuild) -> Path:
    if site_build.returncode != 0:
        pytest.skip(f"needs the built site, and its strict build failed: see {BUILD_TEST}")
    return site_build.html


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A failed site build the build test did not report fails the session, once."""
    _MYPY.stop()
    build = _SITE.build
    if build is None or build.returncode == 0 or build.reported:
        _SITE.clean()
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", "site build failed", red=True)
        reporter.write_line(failure_report(build))
    session.exitstatus = pytest.ExitCode.TESTS_FAILED

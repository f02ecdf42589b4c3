"""Fixtures of the site tests: the browser and the served sites (tests of
issue 20's reader side use them too), and the reader's run of the notebooks,
started with the first site test so that it runs beside the others."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from paths import ROOTS
from reader_run import ReaderRun
from reader_site import CHROMIUM, CHROMIUM_ARGS
from sites import build


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """A static host: a missing address gets the site's 404.html, with status 404."""

    def log_message(self, *args: object) -> None:
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory, "404.html")
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@functools.cache
def _serve(directory: Path) -> str:
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> str:
    return _serve(built_site)


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/roots/test-reader built with the real configuration, in this process."""
    result = build(
        ROOTS / "test-reader", tmp_path_factory.mktemp("reader-site") / "_build", features=None
    )
    assert result.returncode == 0, f"fixture site build failed:\n{result.log}"
    return result.outdir


@pytest.fixture(scope="session")
def fixture_url(fixture_site: Path) -> str:
    return _serve(fixture_site)


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make deps` (installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, site_url: str) -> Iterator:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/"))
    pg = context.new_page()
    yield pg
    context.close()


_RUN: list[ReaderRun] = []  # the session's run, once started


@pytest.fixture(scope="session")
def reader_run(built_site: Path) -> ReaderRun:
    """The downloads run as a reader runs them (tests/reader_run.py), once."""
    if not _RUN:
        _RUN.append(ReaderRun.start(built_site))
    return _RUN[0]


@pytest.fixture(scope="session", autouse=True)
def _start_reader_run(request: pytest.FixtureRequest) -> None:
    """With the first site test: start the run when the session has a test that
    compares with it (those run last), so it goes on beside the others."""
    wanted = any(
        "reader_run" in getattr(item, "fixturenames", ()) for item in request.session.items
    )
    if wanted and request.getfixturevalue("site_build").returncode == 0:
        request.getfixturevalue("reader_run")

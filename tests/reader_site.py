"""Helpers shared by the reader tests (tests/site/): the pages of a
built site, parsed once, and what their links and assets point to."""

from __future__ import annotations

import functools
import json
import posixpath
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from paths import ROOT

# (tag, attribute) pairs the browser fetches while it shows a page
FETCHED = (
    ("script", "src"),
    ("link", "href"),
    ("img", "src"),
    ("iframe", "src"),
    ("source", "src"),
    ("video", "src"),
    ("audio", "src"),
    ("embed", "src"),
    ("object", "data"),
)
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)|@import\s+['"]([^'"]+)['"]""")
VAGUE_LINK_TEXT = frozenset(
    {
        "here",
        "click",
        "click here",
        "this",
        "link",
        "this link",
        "more",
        "read more",
        "this page",
        "go",
    }
)


def pages(html: Path) -> list[Path]:
    """Every HTML page of the site (not the theme's assets)."""
    return sorted(p for p in html.rglob("*.html") if "_static" not in p.relative_to(html).parts)


@functools.cache
def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme or parts.netloc)  # http:, https:, mailto:, data:, //host


def resolve(page: Path, url: str) -> tuple[Path, str]:
    """The file a relative ``url`` on ``page`` points to, and its fragment."""
    parts = urlsplit(url)
    if not parts.path:
        return page, parts.fragment
    return Path(
        posixpath.normpath(posixpath.join(page.parent.as_posix(), unquote(parts.path)))
    ), parts.fragment


def ids(path: Path) -> set[str]:
    return {el["id"] for el in soup(path).find_all(id=True)} | {
        a["name"] for a in soup(path).find_all("a", attrs={"name": True})
    }


def main_content(path: Path):
    """furo's <article role="main">, or the whole page for a page without it."""
    return soup(path).find("article", attrs={"role": "main"}) or soup(path)


def provenance(html: Path) -> dict:
    return json.loads((html / "provenance.json").read_text())


def notebook_docs(html: Path) -> list[str]:
    return sorted(provenance(html)["notebooks"])


def links(path: Path) -> Iterator[tuple[str, str]]:
    """(tag, url) for every link and fetched asset on ``path``."""
    for tag in soup(path).find_all("a", href=True):
        yield "a", tag["href"]
    for name, attr in FETCHED:
        for tag in soup(path).find_all(name, attrs={attr: True}):
            yield name, tag[attr]


SCREENSHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")  # Debian's (make deps), never `playwright install`
# Flags for a closed network: no background fetches, no first-run work.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Resolves once the page's web fonts are in and two frames have passed: the tables
# script lays tables out again on the frame after the fonts arrive.
SETTLED = (
    "document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => "
    "requestAnimationFrame(r))))"
)


def visit(pg, url: str):  # pg: a Playwright page; returns its response
    """Open ``url`` and wait until it is laid out: its load event (styles, scripts,
    images), then :data:`SETTLED`. The pages fetch nothing after their load event
    (search results aside: those tests wait for the results); the browser asks for
    the favicon after it, and the next visit may cancel that request. So this is
    what "networkidle" waited for, without its half second of quiet after each page."""
    response = pg.goto(url, wait_until="load")
    pg.evaluate(SETTLED)
    return response


def settle(pg) -> None:  # pg: a Playwright page
    """After a click or a reload that loads a page: wait as :func:`visit` does."""
    pg.wait_for_load_state("load")
    pg.evaluate(SETTLED)


# Resolves once the element's CSS transitions and animations (a drawer sliding in) have ended.
TRANSITIONS_ENDED = "el => Promise.all(el.getAnimations({subtree: true}).map(a => a.finished))"
# True once Sphinx's search has shown all its results (its closing status line).
SEARCH_DONE = (
    "() => { const t = document.getElementById('search-results')?.textContent || '';"
    " return t.includes('Search finished') || t.includes('did not match any documents'); }"
)


def copy_with(pg, button) -> str:  # a Playwright page and a locator
    """Click a copy button and return what it put on the clipboard: the clipboard
    is emptied first and read until it holds text (30 s at most), not after a pause."""
    pg.evaluate("navigator.clipboard.writeText('')")
    button.click()
    deadline = time.monotonic() + 30
    while not (text := pg.evaluate("navigator.clipboard.readText()")):
        assert time.monotonic() < deadline, "the copy button put nothing on the clipboard in 30 s"
        pg.wait_for_timeout(50)
    return text


def shot(pg, name: str, *, full_page: bool = False) -> Path:  # pg: a Playwright page
    """A screenshot of the page, in _build/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=full_page)
    return path

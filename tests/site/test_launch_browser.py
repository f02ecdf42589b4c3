"""The launch row in Chromium (Playwright), on the launch fixture built with
``trtdocs_published_notebooks`` set (tests/roots/test-launch, the real site's theme
and CSS): its links are reached with the keyboard and show where the focus is, and
their text is readable in the light and the dark theme. Each check is a function
of a page, proven on a planted page first."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator

import pytest

from paths import ROOTS
from reader_site import SCREENSHOTS, visit
from sites import build
from trtdocs.notebooks import launch

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1280, "height": 900}
TEXT_CONTRAST = 4.5  # WCAG 2.1 AA, normal text (1.4.3)
RING_CONTRAST = 3.0  # WCAG 2.1 AA, a focus indicator against what is around it (1.4.11)

# The colours of an element and of what shows behind it, and their contrast.
COLOURS = """
const parse = (s) => {
  const m = s && s.match(/rgba?\\(([^)]+)\\)/);
  if (!m) return null;
  const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
  return [p[0] / 255, p[1] / 255, p[2] / 255, p.length > 3 ? p[3] : 1];
};
const lum = (c) => { const f = (v) => v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
                     return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const ratio = (a, b) => {
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const behind = (el) => {
  for (let n = el; n; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c && c[3] > 0.5) return c;
  }
  return [1, 1, 1, 1];  // nothing painted behind it: the canvas, white
};
"""

# Problems of the text of each link matched by the selector: not shown, or too faint.
READABLE = (
    "([selector, minimum]) => {"
    + COLOURS
    + """
  const out = [], links = [...document.querySelectorAll(selector)];
  if (!links.length) return [`no ${selector}`];
  for (const a of links) {
    const box = a.getBoundingClientRect();
    if (box.width < 1 || box.height < 1) out.push(`${a.textContent}: not shown`);
    const r = ratio(parse(getComputedStyle(a).color), behind(a));
    if (r < minimum) out.push(`${a.textContent}: contrast ${r.toFixed(2)}`);
  }
  return out;
}"""
)

# Problems of the focus indicator of the focused element.
FOCUS_RING = (
    "(minimum) => {"
    + COLOURS
    + """
  const a = document.activeElement, s = getComputedStyle(a);
  if (s.outlineStyle === 'none' || parseFloat(s.outlineWidth) < 1)
    return [`${a.textContent}: no focus ring`];
  const r = ratio(parse(s.outlineColor), behind(a));
  return r < minimum ? [`${a.textContent}: focus ring contrast ${r.toFixed(2)}`] : [];
}"""
)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def launch_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    result = build(
        ROOTS / "test-launch",
        tmp_path_factory.mktemp("launch-browser") / "_build",
        features=None,
        trtdocs_published_notebooks="someone/guide@notebooks",
        trtdocs_disable="cuda",
    )
    assert result.returncode == 0, result.log
    handler = functools.partial(_Quiet, directory=str(result.outdir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@contextlib.contextmanager
def _page(browser, scheme: str = "light") -> Iterator:
    context = browser.new_context(viewport=DESKTOP, color_scheme=scheme)
    try:
        yield context.new_page()
    finally:
        context.close()


def _tab_to(pg, selector: str, presses: int = 80) -> int:
    """Press Tab until ``selector`` has the focus; how many presses it took (0: never)."""
    for n in range(1, presses + 1):
        pg.keyboard.press("Tab")
        if pg.evaluate(f"document.activeElement.matches({selector!r})"):
            return n
    return 0


def test_the_checks_catch_planted_pages(browser) -> None:
    with _page(browser) as pg:
        pg.set_content(
            "<style>a:focus { outline: none }</style><p><a href='#' class='faint' "
            "style='color: #d0d0d0'>Open</a></p><p><a href='#' class='fine'>Fine</a></p>"
        )
        assert pg.evaluate(READABLE, ["a.faint", TEXT_CONTRAST])[0].startswith("Open: contrast")
        assert pg.evaluate(READABLE, ["a.fine", TEXT_CONTRAST]) == []
        assert pg.evaluate(READABLE, ["a.none", TEXT_CONTRAST]) == ["no a.none"]
        assert _tab_to(pg, "a.faint") == 1
        assert pg.evaluate(FOCUS_RING, RING_CONTRAST) == ["Open: no focus ring"]
        pg.set_content(
            "<style>a:focus-visible { outline: 2px solid #eeeeee }</style><a href='#'>Pale</a>"
        )
        assert _tab_to(pg, "a") == 1
        assert pg.evaluate(FOCUS_RING, RING_CONTRAST)[0].startswith("Pale: focus ring contrast")


def test_the_row_is_reached_with_the_keyboard_and_shows_the_focus(browser, launch_url) -> None:
    with _page(browser) as pg:
        visit(pg, launch_url + "notebooks/gpu.html")
        colab = f"p.{launch.CLASS} a.{launch.CLASS}-colab"
        assert _tab_to(pg, colab), "Tab never reaches Open in Colab"
        assert pg.evaluate(FOCUS_RING, RING_CONTRAST) == []
        pg.keyboard.press("Tab")
        assert pg.evaluate(f"document.activeElement.matches('a.{launch.CLASS}-source')")
        assert pg.evaluate(FOCUS_RING, RING_CONTRAST) == []
        # a link by its name, as a screen reader lists it
        assert pg.get_by_role("link", name=launch.OPEN).count() == 1
        assert pg.get_by_role("link", name=launch.SOURCE).count() == 1


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_row_is_readable_in_both_themes(browser, launch_url, scheme: str) -> None:
    with _page(browser, scheme) as pg:
        visit(pg, launch_url + "notebooks/cpu.html")
        dark = pg.evaluate(
            "(() => { const c = getComputedStyle(document.body).backgroundColor.match(/\\d+/g);"
            " return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255 < 0.3; })()"
        )
        assert dark == (scheme == "dark"), f"the page is not in the {scheme} theme"
        assert pg.evaluate(READABLE, [f"p.{launch.CLASS} a", TEXT_CONTRAST]) == []
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        row = pg.locator(f"details.trtdocs-status, p.{launch.CLASS}")
        row.last.screenshot(path=str(SCREENSHOTS / f"launch-row-{scheme}.png"))

"""Diagrams on a phone and in the dark (issue 28, reading 4): at 390 px every
diagram's text is drawn at 11 px or more (a diagram with a stacked second graph
shows that one there, and its wide one at 1280 px); each category keeps its own
colour of the theme (trtdocs.site.palette), in light and dark. Each check is
proven on a planted page first (fixtures: tests/site/conftest.py)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from reader_site import notebook_docs, shot, visit
from trtdocs.site import palette

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
MIN_TEXT_PX = 11

# The font size each shown diagram text is drawn at: its font size in the SVG's
# units times the SVG's scale on the screen.
SMALL_TEXT = """(minimum) => {
  const out = [];
  for (const text of document.querySelectorAll('article .trtdocs-diagram svg text')) {
    if (!text.getClientRects().length) continue;
    const px = parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a;
    if (px < minimum) out.push(`"${text.textContent}": ${px.toFixed(1)} px`);
  }
  return out;
}"""

# Per diagram: how many of its layouts show, and which.
SHOWN = """() => [...document.querySelectorAll('article div.trtdocs-diagram')].map(d =>
  [...d.querySelectorAll('a.trtdocs-diagram-open')].filter(a => a.getClientRects().length)
    .map(a => a.classList.contains('trtdocs-diagram-narrow') ? 'narrow' : 'wide'))"""

# Each shown shape with a palette fill: its light colour and the fill it is drawn with.
FILLS = """() => [...document.querySelectorAll(
    'article .trtdocs-diagram svg [style*="--trtdocs-fill-dark"]')]
  .filter(s => s.getClientRects().length)
  .map(s => [s.getAttribute('fill'), getComputedStyle(s).fill])"""


def _hex(colour: str) -> tuple[int, ...]:
    return tuple(int(colour.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4))


def _drawn(fill: str) -> tuple[int, ...]:
    """A computed fill, ``rgb(r, g, b)`` or ``color(srgb r g b)`` (a colour-mix), in 0-255."""
    values = [float(v) for v in re.findall(r"[\d.]+", fill.split("(", 1)[1])[:3]]
    return tuple(round(v * 255) if fill.startswith("color(") else round(v) for v in values)


def fill_problems(fills: list[list[str]], theme: str) -> list[str]:
    out = []
    for light, drawn in fills:
        want = palette.dark(light) if theme == "dark" else light
        if want is None or _drawn(drawn) != _hex(want):
            out.append(f"{light}: drawn {drawn}, not its {theme} colour {want}")
    return out


@contextlib.contextmanager
def _page(browser, viewport: dict, scheme: str = "light") -> Iterator:
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    try:
        yield context.new_page()
    finally:
        context.close()


def _with_diagrams(built_site: Path) -> list[str]:
    docs = ["index", *notebook_docs(built_site)]
    return [
        d
        for d in docs
        if "trtdocs-diagram" in (built_site / f"{d}.html").read_text(encoding="utf-8")
    ]


def test_the_checks_catch_a_planted_page(browser, site_url: str) -> None:
    tensorrt = palette.CATEGORIES["tensorrt"]
    with _page(browser, PHONE, "dark") as pg:
        visit(pg, site_url + "index.html")  # the site's stylesheet, then planted diagrams
        pg.evaluate(
            """([light, dark]) => { document.querySelector('article').innerHTML =
            `<div class="trtdocs-diagram trtdocs-diagram-two">
              <a class="trtdocs-diagram-open trtdocs-diagram-wide"><svg width="800" height="40"
                viewBox="0 0 800 40"><text y="20" font-size="10">wide</text></svg></a>
              <a class="trtdocs-diagram-open trtdocs-diagram-narrow"><svg width="300" height="40"
                viewBox="0 0 300 40"><rect width="9" height="9" fill="${light}"
                style="--trtdocs-fill: ${light}; --trtdocs-fill-dark: ${dark}"/>
                <text y="20" font-size="12">narrow</text><text y="30" font-size="6">tiny</text>
              </svg></a></div>`; }""",
            [tensorrt.light, "#777777"],
        )
        assert pg.evaluate(SHOWN) == [["narrow"]]
        assert [p.split(":")[0] for p in pg.evaluate(SMALL_TEXT, MIN_TEXT_PX)] == ['"tiny"']
        assert fill_problems(pg.evaluate(FILLS), "dark") == [
            f"{tensorrt.light}: drawn rgb(119, 119, 119), not its dark colour {tensorrt.dark}"
        ]
        pg.set_viewport_size(DESKTOP)
        assert pg.evaluate(SHOWN) == [["wide"]]


def test_diagram_text_is_legible_at_390_px(browser, built_site: Path, site_url: str) -> None:
    docs = _with_diagrams(built_site)
    assert {"notebooks/overview", "notebooks/export-pte"} <= set(docs), docs
    problems, narrow = [], 0
    with _page(browser, PHONE) as pg:
        for doc in docs:
            visit(pg, site_url + f"{doc}.html")
            shown = pg.evaluate(SHOWN)
            narrow += sum(s == ["narrow"] for s in shown)
            problems += [f"{doc}: a diagram shows {s}" for s in shown if len(s) != 1]
            problems += [f"{doc} (390 px): {p}" for p in pg.evaluate(SMALL_TEXT, MIN_TEXT_PX)]
        visit(pg, site_url + "notebooks/overview.html")
        pg.locator("div.trtdocs-diagram").first.scroll_into_view_if_needed()
        shot(pg, "diagram-overview-390")
    with _page(browser, DESKTOP) as pg:
        visit(pg, site_url + "notebooks/overview.html")
        wide = pg.evaluate(SHOWN)
    assert narrow >= 2, f"{narrow} diagrams show a narrow layout at 390 px"
    assert wide == [["wide"]], wide
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_categories_keep_their_colours_in_each_theme(
    browser, built_site: Path, site_url: str, scheme: str
) -> None:
    problems, shapes = [], 0
    with _page(browser, DESKTOP, scheme) as pg:
        for doc in _with_diagrams(built_site):
            visit(pg, site_url + f"{doc}.html")
            fills = pg.evaluate(FILLS)
            shapes += len(fills)
            problems += [f"{doc}: {p}" for p in fill_problems(fills, scheme)]
        pg.locator("div.trtdocs-diagram").first.scroll_into_view_if_needed()
        shot(pg, f"diagram-categories-{scheme}")
    assert shapes >= 10, f"only {shapes} palette shapes"
    assert not problems, "\n".join(problems)

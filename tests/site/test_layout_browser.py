"""Issue 20's measurable points, in Chromium (Playwright, /usr/bin/chromium):
the first code of each task page on the first screen at 1280x900; no table
column off-screen at 1280 or 390 px (a wide table is blocks, each cell under
its label) and no title word broken on a phone; code in tables is code (no
curly quote, no name broken across lines); no ``%%`` or ``drift:`` line in what
a copy button copies; diagrams legible (text contrast in dark and light, text
size at 1280 px); maintainer pages last in search, snippets that start with the
page's text, errors found by name. Each check is a function of a page, proven
on a planted page before it runs on the site. Screenshots go to
_build/screenshots/."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from reader_site import SEARCH_DONE, copy_with, notebook_docs, pages, shot, visit
from trtdocs.notebooks import banner

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# Pages that teach a task: they open with the code a reader copies. The overview
# explains, troubleshooting is a reference table, the landing page's quick start counts.
NOT_TASKS = frozenset({"notebooks/overview", "notebooks/troubleshooting"})
MAINTAINER_DOCS = frozenset(
    {"docs/building", "docs/build-report"}
)  # conf.py's trtdocs_maintainer_docs
BANNER_WORDS = (*banner.TITLES.values(), *banner.EARLIER.values())  # the status's titles

# -- the checks: JavaScript run on a page, each returning its problems --------------------------

FIRST_CODE = """() => {
  const code = document.querySelector('article div.cell div.cell_input, article div.highlight');
  return code ? code.getBoundingClientRect().top + window.scrollY : null;
}"""

COLUMNS_OFF_SCREEN = """() => {
  const width = document.documentElement.clientWidth, out = [];
  for (const table of document.querySelectorAll('article table')) {
    // furo's wrapper: it scrolls a table too wide for the column
    const wrapper = table.closest('.table-wrapper');
    if (wrapper && wrapper.scrollWidth > wrapper.clientWidth + 1)
      out.push(`${table.className}: scrolls sideways `
               + `(${wrapper.scrollWidth} > ${wrapper.clientWidth} px)`);
    for (const cell of table.querySelectorAll('th, td')) {
      const box = cell.getBoundingClientRect();
      if (box.width > 1 && (box.right > width + 1 || box.left < -1)) {
        out.push(`${table.className}: "${cell.textContent.trim().slice(0, 40)}"`
                 + ` at ${Math.round(box.left)}..${Math.round(box.right)} px,`
                 + ` off a ${width} px screen`);
        break;
      }
    }
  }
  return out;
}"""

STACK_LABELS = """() => {
  const out = [];
  for (const table of document.querySelectorAll('article table.trtdocs-stacked')) {
    for (const cell of table.querySelectorAll('tbody > tr > td:not(:first-child)[data-label]')) {
      if (!cell.getClientRects().length) continue;  // an empty cell, hidden
      const label = getComputedStyle(cell, '::before').content;
      if (!label || label === 'none' || label === 'normal') {
        out.push(`${table.className}: the label "${cell.dataset.label}" is not shown`);
        break;
      }
    }
  }
  return out;
}"""

BROKEN_HEADING_WORDS = """() => {
  const out = [];
  for (const heading of document.querySelectorAll('article h1, article h2')) {
    const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('a.headerlink')) continue;
      // a word, or a piece of one up to a hyphen or dot (where a title may break:
      // "Torch-", "torch_tensorrt.")
      for (const m of node.textContent.matchAll(/[^\\s.-]+[.-]?/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width > 0)
                                                          .map(r => Math.round(r.top)));
        if (lines.size > 1)
          out.push(`${heading.tagName}: "${m[0]}" broken across ${lines.size} lines`);
      }
    }
  }
  return out;
}"""

CODE_IN_TABLES = """() => {
  const out = [];
  for (const table of document.querySelectorAll('article table')) {
    for (const code of table.querySelectorAll('code')) {
      const text = code.textContent;
      if (/[\\u201c\\u201d\\u2018\\u2019]/.test(text)) out.push(`curly quote in code: ${text}`);
      for (const word of code.querySelectorAll('span.pre'))
        if (word.getClientRects().length > 1)
          out.push(`name broken across lines: ${word.textContent}`);
    }
    // code written as text (a quote after "="): smart quotes turned it to prose
    if (/=\\s*[\\u201c\\u201d\\u2018\\u2019]/.test(table.textContent))
      out.push('code as prose: a curly quote after "="');
  }
  return out;
}"""

COPIED_MACHINERY = """() => {
  const out = [];
  for (const pre of document.querySelectorAll('article div.highlight pre')) {
    // what sphinx-copybutton copies: the block minus copybutton_exclude
    const copy = pre.cloneNode(true);
    copy.querySelectorAll('.linenos, .gp, .go').forEach(e => e.remove());
    for (const line of copy.textContent.split('\\n'))
      if (/^\\s*%%/.test(line) || /\\bdrift:/.test(line)) out.push(line.trim());
  }
  return out;
}"""

DIAGRAM_CONTRAST = """(minimum) => {
  const parse = (s) => {
    let m = s && s.match(/rgba?\\(([^)]+)\\)/);
    if (m) { const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
             return [p[0] / 255, p[1] / 255, p[2] / 255, p.length > 3 ? p[3] : 1]; }
    m = s && s.match(/color\\(srgb ([^)]+)\\)/);
    if (m) { const p = m[1].split(/[\\s\\/]+/).filter(Boolean).map(Number);
             return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
    return null;
  };
  const lum = (c) => { const f = (v) => v <= 0.04045 ? v / 12.92
                                                    : Math.pow((v + 0.055) / 1.055, 2.4);
                       return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  let page = parse(getComputedStyle(document.body).backgroundColor);
  if (!page || page[3] === 0)
    page = parse(getComputedStyle(document.documentElement).backgroundColor) || [1, 1, 1, 1];
  const out = [];
  for (const text of document.querySelectorAll('article svg text')) {
    const fg = parse(getComputedStyle(text).fill);
    let bg = page;
    const node = text.closest('g.node');
    const shape = node && node.querySelector('polygon, path, ellipse, rect');
    const fill = shape && parse(getComputedStyle(shape).fill);
    if (fill && fill[3] > 0.5) bg = fill;
    const r = fg ? ratio(fg, bg) : 0;
    if (r < minimum) out.push(`"${text.textContent}": contrast ${r.toFixed(2)}`);
  }
  return out;
}"""

# The smallest a diagram's text may be drawn at 1280
# px (its box height, in CSS px): about a 9 px font.
MIN_DIAGRAM_TEXT = 11
DIAGRAM_TEXT_SIZE = """(minimum) => {
  const out = [];
  for (const text of document.querySelectorAll('article .trtdocs-diagram svg text')) {
    const height = text.getBoundingClientRect().height;
    if (height && height < minimum) out.push(`"${text.textContent}": ${height.toFixed(1)} px high`);
  }
  return out;
}"""


@contextlib.contextmanager
def _page(browser, viewport: dict, scheme: str = "light") -> Iterator:
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def desktop(browser) -> Iterator:
    with _page(browser, DESKTOP) as pg:
        yield pg


@pytest.fixture
def phone(browser) -> Iterator:
    with _page(browser, PHONE) as pg:
        yield pg


@pytest.fixture
def dark(browser) -> Iterator:
    with _page(browser, DESKTOP, "dark") as pg:
        yield pg


def _guide(built_site: Path) -> list[str]:
    return ["index", *notebook_docs(built_site)]


# -- each check catches a planted page -------------------------------------------------------------


def test_the_checks_catch_planted_pages(phone) -> None:
    pg = phone
    pg.set_content(
        "<article><p style='height:1200px'>Long text.</p><div class='highlight'><pre>x</pre></div>"
        "<div class='table-wrapper' style='overflow-x:auto'><table><tr>"
        + "<td style='white-space:nowrap'>a wide column of words</td>"
        * 6
        + "</tr></table></div>"
        "<table><tr><td style='width:60px'><code><span class='pre' "
        "style='white-space:normal;word-break:break-all'>backend_config_of_the_program</span> "
        "format=\u201dexecutorch\u201d</code></td></tr></table><div "
        "class='highlight'><pre>%%writefile main.cpp\nint x;\n# drift: "
        "fragment</pre></div></article>"
    )
    assert pg.evaluate(FIRST_CODE) > PHONE["height"]
    assert any("off a 390 px screen" in p for p in pg.evaluate(COLUMNS_OFF_SCREEN))
    assert pg.evaluate(STACK_LABELS) == []  # no stacked table yet
    pg.add_script_tag(
        content="document.querySelector('article').insertAdjacentHTML('beforeend', "
        '\'<table class="trtdocs-stack trtdocs-stacked"><tr><td data-label="Symptom">x</td>'
        '<td data-label="Fix">y</td></tr></table>\')'
    )
    assert pg.evaluate(STACK_LABELS) == [
        'trtdocs-stack trtdocs-stacked: the label "Fix" is not shown'
    ]
    pg.add_style_tag(
        content="table.trtdocs-stacked td:not(:first-child)::before { content: attr(data-label) }"
    )
    assert pg.evaluate(STACK_LABELS) == []
    found = pg.evaluate(CODE_IN_TABLES)
    assert any(p.startswith("curly quote") for p in found) and any(
        p.startswith("name broken") for p in found
    )
    assert pg.evaluate(COPIED_MACHINERY) == ["%%writefile main.cpp", "# drift: fragment"]
    pg.evaluate(
        "document.querySelector('article').insertAdjacentHTML('afterbegin', '<h1 style=\"font-size:"
        "80px; overflow-wrap:anywhere\">Troubleshooting <code>x</code></h1>')"
    )
    assert pg.evaluate(BROKEN_HEADING_WORDS) == [
        'H1: "Troubleshooting" broken across 3 lines'
    ]  # 80 px letters
    pg.set_content(
        "<body style='background:#131416'><article><svg><g class='node'><text fill='black'>engine"
        "</text></g><text fill='#111'>label</text></svg></article></body>"
    )
    assert len(pg.evaluate(DIAGRAM_CONTRAST, 4.5)) == 2
    pg.set_content(
        "<article><div class='trtdocs-diagram'><svg width='300' height='60'><text y='20' "
        "font-size='6'>tiny</text><text y='50' font-size='14'>large</text></svg></div></article>"
    )
    assert [p.split(":")[0] for p in pg.evaluate(DIAGRAM_TEXT_SIZE, MIN_DIAGRAM_TEXT)] == ['"tiny"']
    # and a page that keeps every rule passes each check
    pg.set_content(
        "<body style='background:#131416'><article><div class='highlight'><pre>import "
        "torch</pre></div><div class='table-wrapper' style='overflow-x:auto'><table><tr>"
        + "<td>a column</td>"
        * 3
        + "</tr></table></div><table><tr><td><code><span class='pre'"
        " style='white-space:nowrap'>backend_config</span> <span "
        "class='pre'>format=\"executorch\"</span></code></td></tr></table><div "
        "class='highlight'><pre>int main() {}</pre></div><svg><g class='node'><polygon "
        "fill='#1d3b2a' points='0,0 9,0 9,9'/><text fill='#e6edf3'>engine</text></g><text "
        "fill='#e6edf3'>label</text></svg></article></body>"
    )
    assert pg.evaluate(FIRST_CODE) < PHONE["height"]
    assert pg.evaluate(COLUMNS_OFF_SCREEN) == [] and pg.evaluate(CODE_IN_TABLES) == []
    assert pg.evaluate(COPIED_MACHINERY) == [] and pg.evaluate(DIAGRAM_CONTRAST, 4.5) == []


# -- the site ------------------------------------------------------------------------------------


def test_the_first_code_of_each_task_page_is_on_the_first_screen(
    desktop, built_site: Path, site_url: str
) -> None:
    late = []
    for doc in _guide(built_site):
        if doc in NOT_TASKS:
            continue
        visit(desktop, site_url + f"{doc}.html")
        top = desktop.evaluate(FIRST_CODE)
        # at least three lines of it show: its top is 60 px above the fold
        if top is None or top > DESKTOP["height"] - 60:
            late.append(f"{doc}: first code at {top} px")
    visit(desktop, site_url + "notebooks/run-python.html")
    shot(desktop, "first-screen-run-python")
    assert not late, "\n".join(late)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_no_table_column_or_title_word_is_off_screen(
    browser, viewport: dict, built_site: Path, site_url: str
) -> None:
    problems = []
    with _page(browser, viewport) as pg:
        for path in pages(built_site):
            rel = path.relative_to(built_site).as_posix()
            visit(pg, site_url + rel)
            problems += [
                f"{rel}: {p}" for p in pg.evaluate(COLUMNS_OFF_SCREEN) + pg.evaluate(STACK_LABELS)
            ]
            if rel.removesuffix(".html") in _guide(
                built_site
            ):  # the API reference's module names are longer
                problems += [f"{rel}: {p}" for p in pg.evaluate(BROKEN_HEADING_WORDS)]
            if viewport is PHONE:  # on a phone every wide table is blocks (trtdocs-tables.js ran)
                problems += [
                    f"{rel}: {c} is a table on a phone"
                    for c in pg.evaluate(
                        "[...document.querySelectorAll('article "
                        "table.trtdocs-stack:not(.trtdocs-stacked)')].map(t => t.className)"
                    )
                ]
        width = viewport["width"]
        visit(pg, site_url + "notebooks/troubleshooting.html#error-operator-missing")
        shot(pg, f"errors-{width}")
        visit(pg, site_url + "docs/support-matrix.html")
        pg.locator("table.trtdocs-support-matrix").scroll_into_view_if_needed()
        shot(pg, f"matrix-{width}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_code_in_tables_is_code(browser, viewport: dict, built_site: Path, site_url: str) -> None:
    problems = []
    with _page(browser, viewport) as pg:
        for path in pages(built_site):
            rel = path.relative_to(built_site).as_posix()
            visit(pg, site_url + rel)
            problems += [f"{rel}: {p}" for p in pg.evaluate(CODE_IN_TABLES)]
    assert not problems, "\n".join(problems)


def test_copy_buttons_copy_no_machinery(desktop, built_site: Path, site_url: str) -> None:
    problems = []
    for doc in _guide(built_site):
        visit(desktop, site_url + f"{doc}.html")
        problems += [f"{doc}: {line}" for line in desktop.evaluate(COPIED_MACHINERY)]
    assert not problems, "\n".join(problems)
    # and a real copy of a file cell gives the file
    origin = site_url.rstrip("/")
    desktop.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    visit(desktop, site_url + "notebooks/run-cpp.html")
    block = desktop.locator(".trtdocs-cell-file").first
    assert block.locator(".code-block-caption").inner_text().strip().startswith("main.cpp")
    block.locator("div.highlight").hover()
    copied = copy_with(desktop, block.locator("button.copybtn"))
    assert copied.startswith("#include") and "%%" not in copied, copied[:80]
    shot(desktop, "file-cell-caption")


def test_diagrams_are_legible_in_dark_mode(dark, browser, built_site: Path, site_url: str) -> None:
    with_diagrams = [
        p for p in pages(built_site) if "trtdocs-diagram" in p.read_text(encoding="utf-8")
    ]
    assert with_diagrams
    problems = []
    for path in with_diagrams:
        rel = path.relative_to(built_site).as_posix()
        visit(dark, site_url + rel)
        assert (
            dark.evaluate(
                "document.querySelectorAll('article object[type=\"image/svg+xml\"]').length"
            )
            == 0
        ), rel
        problems += [f"{rel} (dark): {p}" for p in dark.evaluate(DIAGRAM_CONTRAST, 4.5)]
    with _page(browser, DESKTOP, "light") as light:
        for path in with_diagrams:
            rel = path.relative_to(built_site).as_posix()
            visit(light, site_url + rel)
            problems += [f"{rel} (light): {p}" for p in light.evaluate(DIAGRAM_CONTRAST, 4.5)]
            # a guide page's diagram reads at 1280 px; on a phone a tap opens it full size (below)
            if rel.removesuffix(".html") in _guide(built_site):
                problems += [
                    f"{rel} (1280 px): {p}"
                    for p in light.evaluate(DIAGRAM_TEXT_SIZE, MIN_DIAGRAM_TEXT)
                ]
    visit(dark, site_url + "notebooks/cuda-backend.html")
    dark.locator("div.trtdocs-diagram").first.scroll_into_view_if_needed()
    shot(dark, "diagram-dark")
    assert not problems, "\n".join(problems)
    # a tap opens it full size: the link is the diagram's own SVG file
    href = dark.locator("div.trtdocs-diagram a.trtdocs-diagram-open").first.get_attribute("href")
    response = dark.goto(site_url + "notebooks/" + href)
    assert response.ok and "svg" in response.headers["content-type"]


def _search(pg, site_url: str, query: str) -> list[tuple[str, str]]:
    """(docname#anchor, snippet) of each result, best first."""
    pg.goto(site_url + f"search.html?q={query}", wait_until="networkidle")
    pg.wait_for_function(SEARCH_DONE, timeout=30_000)  # every result shown, not the first few
    results = []
    for li in pg.locator("#search-results ul.search li").all():
        href = li.locator("a").first.get_attribute("href")
        parts = urlsplit(href)
        doc = parts.path.removesuffix(".html").lstrip("./")
        snippet = li.locator("p.context").inner_text() if li.locator("p.context").count() else ""
        results.append((doc + (f"#{parts.fragment}" if parts.fragment else ""), snippet))
    return results


def test_search_ranks_maintainer_pages_last_and_snippets_start_with_text(
    desktop, site_url: str
) -> None:
    results = _search(desktop, site_url, "cache")
    docs = [d.split("#")[0] for d, _ in results]
    assert any(d in MAINTAINER_DOCS for d in docs) and any(
        d.startswith("notebooks/") for d in docs
    ), docs
    last_guide = max(i for i, d in enumerate(docs) if d not in MAINTAINER_DOCS)
    first_maintainer = min(i for i, d in enumerate(docs) if d in MAINTAINER_DOCS)
    assert first_maintainer > last_guide, docs
    shot(desktop, "search-cache")
    for query in ("executorch", "program"):
        for doc, snippet in _search(desktop, site_url, query):
            # the status is in the footer: no excerpt holds its words (excerpts are the article's)
            assert not any(w in snippet for w in BANNER_WORDS), f"{doc}: {snippet[:80]}"


def test_an_error_is_found_by_name(desktop, site_url: str) -> None:
    results = _search(desktop, site_url, "OperatorMissing")
    assert any(d == "notebooks/troubleshooting#error-operator-missing" for d, _ in results), results


def test_the_copy_button_shows_on_a_touch_screen_without_a_hover(
    browser, desktop, site_url: str
) -> None:
    """sphinx-copybutton shows its button on hover; a touch screen has none."""
    opacity = "() => getComputedStyle(document.querySelector('button.copybtn')).opacity"
    touch = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        pg = touch.new_page()
        pg.goto(site_url + "notebooks/export-pte.html")
        assert pg.evaluate("() => matchMedia('(hover: none)').matches")
        assert pg.evaluate(opacity) == "1"
    finally:
        touch.close()
    desktop.goto(site_url + "notebooks/export-pte.html")
    assert desktop.evaluate(opacity) == "0"  # a mouse shows it on hover, as before

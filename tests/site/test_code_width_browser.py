"""Code and outputs fit the column at 1280 px (issue 28, reading 3): no code block
or cell output on the reader's path scrolls sideways; printed and error outputs
wrap (their code lines fit 88 columns: tools/format_cells.py). Each check is proven
on a planted page first (fixtures: tests/site/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reader_site import notebook_docs, shot, visit

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1280, "height": 900}
WRAPPED = ":is(.output.stream, .output.stderr, .output.traceback, .output.text_plain)"

# Every shown <pre> of the article wider than its box: what it is, and its longest line.
SIDEWAYS = """() => {
  const out = [];
  for (const pre of document.querySelectorAll('article pre')) {
    if (!pre.getClientRects().length || pre.scrollWidth <= pre.clientWidth + 1) continue;
    const longest = pre.textContent.split('\\n')
                       .reduce((a, b) => (b.length > a.length ? b : a), '').trim();
    const kind = pre.closest('.cell_output') ? 'an output' : 'code';
    out.push(`${kind} scrolls sideways (${pre.scrollWidth} > ${pre.clientWidth} px): `
             + longest.slice(0, 60));
  }
  return out;
}"""

# The outputs that must wrap, and those that do not.
UNWRAPPED = (
    "() => [...document.querySelectorAll('article .cell_output " + WRAPPED + " pre')]"
    ".filter(p => getComputedStyle(p).whiteSpace !== 'pre-wrap')"
    ".map(p => p.textContent.trim().slice(0, 60))"
)

# Whether a text is drawn inside its block's box, its last character included.
SHOWN_WHOLE = """([selector, text]) => {
  for (const pre of document.querySelectorAll(selector)) {
    const at = pre.textContent.indexOf(text);
    if (at < 0) continue;
    const walk = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    let n = 0;
    for (let node; (node = walk.nextNode());) {
      if (n + node.data.length > at + text.length - 1) {
        const range = document.createRange();
        const i = at + text.length - 1 - n;
        range.setStart(node, i); range.setEnd(node, i + 1);
        const box = pre.getBoundingClientRect(), ch = range.getBoundingClientRect();
        return ch.right <= box.right - parseFloat(getComputedStyle(pre).paddingRight) + 1;
      }
      n += node.data.length;
    }
  }
  return null;
}"""


def _guide(built_site: Path) -> list[str]:
    return ["index", *notebook_docs(built_site)]


def test_the_checks_catch_a_planted_page(page, site_url: str) -> None:
    visit(page, site_url + "index.html")  # the site's CSS, then planted content
    long = "x = " + "1 + " * 60 + "1"
    page.evaluate(
        """(long) => { document.querySelector('article').innerHTML =
        `<div class="highlight"><pre>${long}</pre></div>
         <div class="cell_output"><div class="output stream"><pre>${long}</pre></div>
         <div class="output other"><pre style="white-space: pre">${long}</pre></div></div>`; }""",
        long,
    )
    found = page.evaluate(SIDEWAYS)
    assert [f.split(" scrolls")[0] for f in found] == ["code", "an output"], found
    assert page.evaluate(SHOWN_WHOLE, ["article .highlight pre", long]) is False
    assert page.evaluate(SHOWN_WHOLE, ["article .output.stream pre", long]) is True
    page.evaluate("document.querySelector('.output.stream pre').style.whiteSpace = 'pre'")
    assert page.evaluate(UNWRAPPED) == [long[:60]]


def test_no_code_or_output_scrolls_sideways_at_1280(
    browser, built_site: Path, site_url: str
) -> None:
    context = browser.new_context(viewport=DESKTOP)
    pg = context.new_page()
    problems, blocks = [], 0
    for doc in _guide(built_site):
        visit(pg, site_url + f"{doc}.html")
        blocks += pg.locator("article pre").count()
        problems += [f"{doc}: {p}" for p in pg.evaluate(SIDEWAYS)]
        problems += [f"{doc}: an output does not wrap: {p}" for p in pg.evaluate(UNWRAPPED)]
    # what the issue saw clipped: the first cell's option, and the error run-python shows
    visit(pg, site_url + "notebooks/save-and-export.html")
    first = pg.evaluate(SHOWN_WHOLE, ["article .cell_input pre", "min_block_size=1"])
    visit(pg, site_url + "notebooks/run-python.html")
    error = pg.evaluate(
        SHOWN_WHOLE, ["article .cell_output pre", "before importing executorch.runtime."]
    )
    pg.locator(
        "article .cell_output:has-text('DelegateCompatibilityError')"
    ).first.scroll_into_view_if_needed()
    shot(pg, "run-python-error-1280")
    context.close()
    assert blocks >= 50, f"only {blocks} blocks on the guide's pages"
    assert first is True, f"save-and-export's min_block_size=1: {first}"
    assert error is True, f"run-python's DelegateCompatibilityError message: {error}"
    assert not problems, "\n".join(problems)

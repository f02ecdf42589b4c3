"""The support matrix on a phone (one card per feature, its releases side by side):
the releases' labels and values line up, and no value runs into the next column."""

from __future__ import annotations

import pytest

from reader_site import shot, visit

pytestmark = pytest.mark.browser

# For each card: the top of each release's value, and each release cell's box against
# the right edge of what it shows (a value wider than its column runs into the next).
CARDS = """t => [...t.querySelectorAll(':scope > tbody > tr')].map(tr => {
  const cells = [...tr.children].slice(1).filter(td => getComputedStyle(td).display !== 'none');
  const r = document.createRange();
  return {feature: tr.children[0].innerText.trim().slice(0, 40), cells: cells.map(td => {
    r.selectNodeContents(td.firstElementChild || td);
    const shown = [...r.getClientRects()].filter(b => b.width > 0);
    return {label: td.dataset.label, top: (td.firstElementChild || td).getBoundingClientRect().top,
            right: Math.max(...shown.map(b => b.right)), edge: td.getBoundingClientRect().right};
  })};
})"""


def matrix_card_problems(pg) -> list[str]:  # pg: a Playwright page
    problems = []
    for card in pg.locator("article table.trtdocs-support-matrix.trtdocs-stacked").first.evaluate(
        CARDS
    ):
        tops = [c["top"] for c in card["cells"]]
        if tops and max(tops) - min(tops) > 1:
            problems.append(
                f"{card['feature']}: the releases' values start at "
                + ", ".join(f"{c['label']} {c['top']:.0f}" for c in card["cells"])
            )
        problems += [
            f"{card['feature']}: {c['label']}'s value runs {c['right'] - c['edge']:.0f} px past "
            "its column"
            for c in card["cells"]
            if c["right"] > c["edge"] + 1
        ]
    return problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_matrix_cards_line_up_on_a_phone(browser, site_url: str, scheme: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    pg = context.new_page()
    visit(pg, site_url + "docs/support-matrix.html")
    assert pg.locator("article table.trtdocs-support-matrix.trtdocs-stacked").count() == 1, (
        "the matrix is not stacked"
    )
    pg.locator("article table.trtdocs-support-matrix tbody > tr").nth(
        1
    ).scroll_into_view_if_needed()
    shot(pg, f"support-matrix-cards-390-{scheme}")
    problems = matrix_card_problems(pg)
    context.close()
    assert not problems, "\n".join(problems)

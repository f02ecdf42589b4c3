"""The errors table (troubleshooting) as cards: wider than a phone, each card's
when, cause and fix sit side by side under its symptom, values on one line;
on a phone they stack."""

from __future__ import annotations

from itertools import pairwise

import pytest

from reader_site import shot, visit

pytestmark = pytest.mark.browser

# For each card: each shown cell's label, its box, and the top of its value.
CARDS = """() => [...document.querySelectorAll(
    'article table.trtdocs-data-errors.trtdocs-stacked > tbody > tr')]
  .map(tr => ({symptom: tr.children[0].innerText.trim().slice(0, 50),
               cells: [...tr.children].filter(td => getComputedStyle(td).display !== 'none')
                                      .map(td => {
                 const box = td.getBoundingClientRect();
                 return {label: td.dataset.label, left: box.left, right: box.right, top: box.top,
                         value: (td.firstElementChild || td).getBoundingClientRect().top};
               })}))"""
SIDE_BY_SIDE = ("When", "Cause", "Fix")


def _cards(browser, site_url: str, width: int) -> list[dict]:  # Playwright's browser
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    visit(pg, site_url + "notebooks/troubleshooting.html")
    cards = pg.evaluate(CARDS)
    pg.locator("#error-operator-missing").scroll_into_view_if_needed()
    shot(pg, f"errors-cards-{width}")
    context.close()
    assert len(cards) > 10, f"the errors table is not stacked at {width} px"
    return cards


def test_when_cause_and_fix_sit_side_by_side_at_1280(browser, site_url: str) -> None:
    problems = []
    for card in _cards(browser, site_url, 1280):
        cells = {c["label"]: c for c in card["cells"]}
        row = [cells[label] for label in SIDE_BY_SIDE]
        if max(c["value"] for c in row) - min(c["value"] for c in row) > 1:
            problems.append(
                f"{card['symptom']}: values start at " + ", ".join(f"{c['value']:.0f}" for c in row)
            )
        if any(a["right"] > b["left"] + 1 for a, b in pairwise(row)):
            problems.append(
                f"{card['symptom']}: when, cause and fix overlap or are not in that order"
            )
        symptom, feature = cells["Symptom"], cells.get("Feature")
        if (
            symptom["top"] >= row[0]["top"]
            or feature
            and feature["top"] < max(c["top"] for c in row) + 1
        ):
            problems.append(
                f"{card['symptom']}: the symptom is not above the three, or the feature not below"
            )
    assert not problems, "\n".join(problems)


def test_they_stack_on_a_phone(browser, site_url: str) -> None:
    problems = []
    for card in _cards(browser, site_url, 390):
        tops = [c["top"] for c in card["cells"]]
        if tops != sorted(tops) or len(set(tops)) != len(tops):
            problems.append(f"{card['symptom']}: cells are not one under another: {tops}")
    assert not problems, "\n".join(problems)

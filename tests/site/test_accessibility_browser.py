"""Accessibility (WCAG 2.1 A and AA) of the built site in the browser: axe-core's audit of
every page in both themes at 1280 px, and a keyboard walk (Tab) through the page kinds.
The checks are in tests/a11y.py; each is proven on a planted violation."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from a11y import FAILING, KNOWN, THEMES, Walk, audit, set_theme, tab_walk
from reader_site import pages, visit

pytestmark = pytest.mark.browser

# One page of each kind a keyboard user meets: the landing page (cards, tabs), a notebook
# page (code cells, copy buttons, downloads), an API page, the support matrix (a wide table),
# and the search page.
KEYBOARD_PAGES = (
    "index.html",
    "notebooks/export-pte.html",
    "docs/api/torch_tensorrt.html",
    "docs/support-matrix.html",
    "search.html",
)


def _one_page(browser, width: int, height: int, scheme: str):
    """One page of a new browser context, closed after the module's tests."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def desk(browser):
    """One page at 1280 px on a light system, reused by every test here."""
    yield from _one_page(browser, 1280, 900, "light")


def test_every_page_passes_axe_in_both_themes(desk, built_site: Path, site_url: str) -> None:
    """No critical or serious WCAG 2.1 A/AA violation on any page, light or dark (those
    a11y.KNOWN names are reported apart, while they last)."""
    failing, known, start = [], Counter(), time.monotonic()
    for path in pages(built_site):
        rel = path.relative_to(built_site).as_posix()
        visit(desk, site_url + rel)
        for theme in THEMES:
            set_theme(desk, theme)
            for v in audit(desk, rel, theme):
                if v.impact in FAILING and v.known:
                    known[v.known] += 1
                elif v.impact in FAILING:
                    failing.append(v)
    print(
        f"axe-core on {len(pages(built_site))} pages x {len(THEMES)} themes in"
        f" {time.monotonic() - start:.0f} s; known: {dict(known) or 'none'}"
    )
    by_rule = Counter(f"{v.rule} ({v.impact}, {v.theme})" for v in failing)
    summary = ", ".join(f"{rule}: {n}" for rule, n in by_rule.most_common())
    assert not failing, f"{len(failing)} violating nodes ({summary}):\n" + "\n".join(
        map(str, failing)
    )
    gone = [
        f"{rule} in {where}: {KNOWN[rule, where]}"
        for rule, where in KNOWN
        if not known[rule, where]
    ]
    assert not gone, "fixed: remove from a11y.KNOWN:\n" + "\n".join(gone)


def test_the_audit_reports_a_planted_violation(desk, site_url: str) -> None:
    """An image with no text alternative, planted in a page, is reported with its rule,
    page, theme and selector."""
    visit(desk, site_url + "index.html")
    desk.evaluate(
        "() => { const img = document.createElement('img'); img.id = 'planted';"
        " img.src = '_static/favicon.svg';"
        " document.querySelector('article[role=main]').append(img); }"
    )
    set_theme(desk, "dark")
    found = [v for v in audit(desk, "index.html", "dark") if v.impact in FAILING]
    assert [str(v) for v in found if v.rule == "image-alt"] == [
        "index.html [dark] image-alt (critical): #planted: Images must have alternative text"
    ], found


@pytest.fixture(scope="module")
def walks(desk, site_url: str) -> dict[str, Walk]:
    """A Tab walk through each of KEYBOARD_PAGES, taken once."""
    out = {}
    for rel in KEYBOARD_PAGES:
        visit(desk, site_url + rel)
        out[rel] = tab_walk(desk)
        assert len(out[rel].reached) >= 10, f"{rel}: Tab reached {len(out[rel].reached)} controls"
    return out


def test_every_control_is_reached_and_seen_by_keyboard(walks: dict[str, Walk]) -> None:
    """Tab reaches every control a page draws, and each shows that it has the focus: an
    outline or shadow it does not have unfocused, not faded out, and on the screen."""
    problems = []
    for rel, walk in walks.items():
        problems += [f"{rel}: Tab never reaches {what}" for what in walk.unreached()]
        problems += [f"{rel}: no visible focus: {what}" for what in walk.without_focus_ring()]
        problems += [f"{rel}: focus off the screen: {what}" for what in walk.offscreen()]
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def pocket(browser):
    """One page at 390 px, where furo's navigation and contents are drawers."""
    yield from _one_page(browser, 390, 844, "dark")


PHONE_PAGE = "notebooks/run-python.html"


def test_on_a_phone_the_focus_stays_on_the_screen_and_the_drawers_open(
    pocket, site_url: str
) -> None:
    """At 390 px Tab never lands in a closed drawer, and the keyboard opens the navigation
    (Enter on its toggle moves the focus into it; Escape closes it and gives the focus back)."""
    visit(pocket, site_url + PHONE_PAGE)
    walk = tab_walk(pocket)
    assert not walk.offscreen(), walk.offscreen()
    assert not walk.unreached(), walk.unreached()
    assert not walk.without_focus_ring(), walk.without_focus_ring()
    toggle = pocket.locator("label.nav-overlay-icon")
    assert toggle.get_attribute("aria-expanded") == "false"
    toggle.focus()
    pocket.keyboard.press("Enter")
    inside = pocket.wait_for_function(
        "() => document.activeElement.closest('.sidebar-drawer') !== null"
    )
    assert inside and toggle.get_attribute("aria-expanded") == "true"
    pocket.wait_for_function(
        "() => document.querySelector('.sidebar-drawer').getBoundingClientRect().left >= 0"
    )
    pocket.keyboard.press("Tab")
    assert pocket.evaluate("() => document.activeElement.closest('.sidebar-drawer') !== null")
    pocket.keyboard.press("Escape")
    assert pocket.evaluate("() => document.activeElement.matches('label.nav-overlay-icon')")
    pocket.wait_for_function("() => document.querySelector('.sidebar-drawer').inert")


def test_the_phone_check_catches_focus_in_a_closed_drawer(pocket, site_url: str) -> None:
    """Planted: the closed navigation drawer made focusable again; Tab lands off the screen."""
    visit(pocket, site_url + PHONE_PAGE)
    pocket.evaluate("() => { document.querySelector('.sidebar-drawer').inert = false; }")
    walk = tab_walk(pocket)
    assert any("sidebar" in w or "<a" in w for w in walk.offscreen()), walk.reached[:5]


def test_the_focus_follows_the_reading_order(walks: dict[str, Walk]) -> None:
    """The skip link first, then the sidebar, the page's controls, the article top to
    bottom, the page's foot and its contents list."""
    problems = []
    for rel, walk in walks.items():
        first = walk.reached[0]["what"]
        if not first.startswith("<a.skip-to-content"):
            problems.append(f"{rel}: the first control is {first}, not the skip link")
        problems += [f"{rel}: {what}" for what in walk.out_of_order()]
    assert not problems, "\n".join(problems)


# Planted on a real page: a link out of the tab order, a link whose focus is drawn as
# nothing, and a control that takes the focus before the skip link (a positive tabindex).
_PLANT = """() => {
  const article = document.querySelector('article[role=main]');
  article.insertAdjacentHTML('beforeend',
    '<p><a href="#x" id="unreachable" tabindex="-1">out of the order</a>'
    + ' <a href="#y" id="ringless" style="outline: none">no ring</a></p>');
  document.querySelector('.sidebar-drawer a[href]').setAttribute('tabindex', '1');
}"""


def test_the_keyboard_checks_catch_planted_faults(desk, site_url: str) -> None:
    visit(desk, site_url + "notebooks/export-pte.html")
    desk.evaluate(_PLANT)
    walk: Walk = tab_walk(desk)
    assert [w for w in walk.unreached() if "out of the order" in w], walk.unreached()
    assert [w for w in walk.without_focus_ring() if '"no ring"' in w], walk.without_focus_ring()
    assert walk.out_of_order(), "a positive tabindex in the sidebar went unnoticed"


_SCROLLERS = """() => [...document.querySelectorAll('article .highlight > pre')].map(pre => ({
  scrolls: pre.scrollWidth > pre.clientWidth + 1 || pre.scrollHeight > pre.clientHeight + 1,
  tabindex: pre.getAttribute('tabindex'), role: pre.getAttribute('role'),
  name: pre.getAttribute('aria-label'), text: pre.textContent.slice(0, 40)}))"""


def test_code_blocks_that_scroll_take_the_focus_on_a_phone(browser, site_url: str) -> None:
    """At 390 px: each code block that scrolls is a named tab stop (trtdocs-a11y.js), a
    block that fits is none, and axe finds no scrolling region a keyboard cannot reach.
    Planted: the tab stop taken off one block, which axe then reports."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    pg = context.new_page()
    visit(pg, site_url + "notebooks/export-pte.html")
    blocks = pg.evaluate(_SCROLLERS)
    scrolling = [b for b in blocks if b["scrolls"]]
    assert scrolling and len(scrolling) < len(blocks), blocks
    wrong = [
        b
        for b in blocks
        if (b["tabindex"], b["role"], bool(b["name"]))
        != (("0", "group", True) if b["scrolls"] else (None, None, False))
    ]
    rules = {v.rule for v in audit(pg, "notebooks/export-pte.html", "light")}
    pg.evaluate(  # a block without links (a link in it would be a way in)
        "[...document.querySelectorAll('pre[data-trtdocs-scrolls]')]"
        ".find(pre => !pre.querySelector('a')).removeAttribute('tabindex')"
    )
    planted = {v.rule for v in audit(pg, "notebooks/export-pte.html", "light")}
    context.close()
    assert not wrong, wrong
    assert "scrollable-region-focusable" not in rules
    assert "scrollable-region-focusable" in planted

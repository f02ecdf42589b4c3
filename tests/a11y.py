"""The accessibility checks of the browser tests (tests/site/test_accessibility_browser.py):
axe-core's audit of a page, and a keyboard walk through it.

axe-core is the npm package that package.json and package-lock.json pin; ``make deps``
installs it into node_modules/ (``npm ci``) and :func:`audit` injects its axe.min.js into
the page. The keyboard walk presses Tab through a page as a keyboard user does and
records, for each control it reaches, its focus ring and where it sits."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from paths import ROOT

AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.1, levels A and AA (axe-core's rule tags)
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
FAILING = ("critical", "serious")  # the impacts a test fails on
THEMES = ("light", "dark")  # furo's body[data-theme]


@functools.cache
def axe_source() -> str:
    if not AXE_JS.is_file():
        raise FileNotFoundError(f"{AXE_JS} is missing: run `make deps` (npm ci installs axe-core)")
    return AXE_JS.read_text(encoding="utf-8")


# `within`: the selectors of KNOWN that each violating element sits inside
_RUN = """async ([tags, known]) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags},
                                          resultTypes: ['violations'], elementRef: true});
  return result.violations.map(v => ({rule: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({node: n.target.flat().join(' '),
                              within: known.filter(k => n.element && n.element.closest(k))}))}));
}"""

# Violations another change removes, by (rule, the element they sit in): the audit reports
# them apart, and fails once none is left (the entry is then removed).
KNOWN: dict[tuple[str, str], str] = {}

# furo switches the theme by body[data-theme]; colours then pass through CSS transitions,
# and axe reads colours as they are drawn: wait for the transitions to end.
_THEME = """async theme => {
  document.body.dataset.theme = theme;
  await Promise.all(document.getAnimations().map(a => a.finished));
}"""


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    help: str
    page: str
    theme: str
    node: str  # axe's CSS selector of the element
    within: tuple[str, ...] = ()  # the KNOWN selectors the element sits inside

    @property
    def known(self) -> tuple[str, str] | None:
        """The entry of :data:`KNOWN` this violation is, if any."""
        return next(((self.rule, k) for k in self.within if (self.rule, k) in KNOWN), None)

    def __str__(self) -> str:
        return f"{self.page} [{self.theme}] {self.rule} ({self.impact}): {self.node}: {self.help}"


def set_theme(pg: Any, theme: str) -> None:  # pg: a Playwright page
    pg.evaluate(_THEME, theme)


def audit(pg: Any, page: str, theme: str) -> list[Violation]:
    """axe-core's WCAG 2.1 A and AA violations on the page as it is shown, one per node."""
    if not pg.evaluate("typeof axe !== 'undefined'"):
        pg.add_script_tag(content=axe_source())
    return [
        Violation(v["rule"], v["impact"], v["help"], page, theme, n["node"], tuple(n["within"]))
        for v in pg.evaluate(_RUN, [list(WCAG_TAGS), sorted({k for _, k in KNOWN})])
        for n in v["nodes"]
    ]


# The page's parts in reading order (furo's layout): a control of a later part never comes
# before one of an earlier part in the focus order.
REGIONS = (
    ("skip link", ".skip-to-content"),
    ("phone header", "header.mobile-header"),
    ("sidebar", ".sidebar-drawer"),
    ("back to top", ".back-to-top"),
    ("page icons", ".content-icon-container"),
    ("article", "article[role=main]"),
    ("page footer", "footer"),
    ("contents", ".toc-drawer"),
)

# Installs window.__a11y and returns every control the page has (numbered in data-a11y),
# with its focus ring as it is drawn unfocused. A control is what a keyboard can operate:
# what is focusable by default or by a tabindex. `expected`: one the walk must reach: drawn,
# not disabled, and a native control (a link, a button, a field) or given tabindex >= 0;
# radio buttons of one group are one control (Tab reaches the group, arrows move in it).
_CONTROLS = """regions => {
  const NATIVE = 'a[href], area[href], button, input:not([type="hidden"]), select, '
    + 'textarea, summary, iframe';
  const SELECTOR = NATIVE + ', [tabindex], [contenteditable="true"], [contenteditable=""]';
  const clear = c => !c || c === 'transparent' || /rgba\\(.*, 0\\)$/.test(c);
  const ringOf = (el, pseudo) => {
    const s = getComputedStyle(el, pseudo);
    const outline = s.outlineStyle === 'none' || parseFloat(s.outlineWidth) === 0
      || clear(s.outlineColor) ? 'none'
      : `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor} ${s.outlineOffset}`;
    return `outline ${outline}; box-shadow ${s.boxShadow}`;
  };
  // what draws a control's focus: the control, its ::before and ::after (sphinx-design's
  // card links ring the card with ::after), the labels of a visually hidden input
  const drawn = el => [el, ...(el.labels || [])];
  const ring = el => drawn(el).flatMap(e => [ringOf(e), ringOf(e, '::before'),
                                                ringOf(e, '::after')]).join(' / ');
  // shown: not faded out by its own or an ancestor's opacity (one of drawn(el) is enough)
  const shown = el => drawn(el).some(e => {
    for (let a = e; a; a = a.parentElement) if (getComputedStyle(a).opacity === '0') return false;
    return e.checkVisibility({visibilityProperty: true});
  });
  const describe = el => {
    const text = (el.getAttribute('aria-label') || el.textContent || el.value || '')
      .replace(/\\s+/g, ' ').trim().slice(0, 40);
    const cls = el.classList.length ? '.' + [...el.classList].join('.') : '';
    return `<${el.tagName.toLowerCase()}${cls}> "${text}"`;
  };
  const region = el => regions.findIndex(([, sel]) => el.closest(sel));
  // the block of the reading flow a control sits in: its ancestor that is a child of a
  // section (or the article); a grid of cards or a code block is one block
  const block = el => {
    let b = el;
    while (b.parentElement && !b.parentElement.matches('section, article')) b = b.parentElement;
    return b.parentElement ? b : el;
  };
  // on the screen: inside the window once the browser has scrolled to it (a control in a
  // closed drawer, slid off the side, is not)
  const onscreen = el => {
    const r = el.getBoundingClientRect();
    return r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight;
  };
  const info = el => ({i: el.dataset.a11y ?? null, what: describe(el), ring: ring(el),
                       shown: shown(el), onscreen: onscreen(el),
                       region: region(el), top: block(el).getBoundingClientRect().top + scrollY});
  window.__a11y = {info};
  const seen = new Set();
  return [...document.querySelectorAll(SELECTOR)].map((el, i) => {
    el.dataset.a11y = String(i);
    const group = el.type === 'radio' && el.name ? 'radio ' + el.name : null;
    const again = group !== null && seen.has(group);
    seen.add(group);
    // a native control is one whatever its tabindex (tabindex="-1" takes it from keyboards)
    const native = el.matches(NATIVE);
    const expected = (native || el.tabIndex >= 0) && !el.disabled && !el.closest('[inert]')
      && el.checkVisibility({visibilityProperty: true}) && !again;
    return {...info(el), expected, group};
  });
}"""

# After a Tab: the focused control, once its focus ring has drawn (transitions ended).
_FOCUSED = """async () => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const parts = [el, ...(el.labels || [])];
  await Promise.all(parts.flatMap(p => p.getAnimations()).map(a => a.finished));
  // the browser scrolls the focus into view (the window, or a scrolling sidebar),
  // smoothly where the page asks for it: a control not on the screen yet is looked at
  // again once it has stopped moving (three frames alike; at most a second)
  if (window.__a11y.info(el).onscreen) return window.__a11y.info(el);
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const where = () => { const r = el.getBoundingClientRect(); return `${r.left},${r.top}`; };
  for (let still = 0, at = where(), n = 0; still < 3 && n < 60; n++) {
    await frame();
    const now = where();
    still = now === at ? still + 1 : 0;
    at = now;
  }
  return window.__a11y.info(el);
}"""


@dataclass(frozen=True)
class Walk:
    """A Tab walk through a page: its controls, and those Tab reached, in order."""

    controls: list[dict]
    reached: list[dict]

    def offscreen(self) -> list[str]:
        """The controls that took the focus outside the window, where nothing shows it."""
        return [c["what"] for c in self.reached if not c.get("onscreen", True)]

    def unreached(self) -> list[str]:
        got = {c["i"] for c in self.reached}
        groups = {self.controls[int(c["i"])]["group"] for c in self.reached if c["i"] is not None}
        return [
            c["what"]
            for c in self.controls
            if c["expected"]
            and c["i"] not in got
            and (c["group"] is None or c["group"] not in groups)
        ]

    def without_focus_ring(self) -> list[str]:
        """Reached controls not seen focused: hidden (opacity 0) while focused, or drawn the
        same focused as unfocused (outline and box-shadow)."""
        return [
            f"{c['what']}: {'hidden while focused' if not c['shown'] else c['ring']}"
            for c in self.reached
            if not c["shown"]
            or (c["i"] is not None and c["ring"] == self.controls[int(c["i"])]["ring"])
        ]

    def out_of_order(self) -> list[str]:
        """Consecutive reached controls whose order breaks the reading order: a later part
        of the page (:data:`REGIONS`) before an earlier one, or, in the article, a block
        above the one before it."""
        out = []
        for a, b in zip(self.reached, self.reached[1:], strict=False):
            if b["region"] < a["region"]:
                out.append(
                    f"{b['what']} ({REGIONS[b['region']][0] if b['region'] >= 0 else 'elsewhere'})"
                    f" comes after {a['what']} ({REGIONS[a['region']][0]})"
                )
            elif a["region"] == b["region"] == REGIONS.index(("article", "article[role=main]")):
                if b["top"] < a["top"] - 1:
                    out.append(
                        f"{b['what']} (at y={b['top']:.0f}) comes after {a['what']}"
                        f" (at y={a['top']:.0f})"
                    )
        return out


def tab_walk(pg: Any) -> Walk:  # pg: a Playwright page, loaded, nothing focused
    """Press Tab until the focus comes back round (or 3 presses more than the page has
    controls), recording each control reached."""
    controls = pg.evaluate(_CONTROLS, [list(r) for r in REGIONS])
    reached: list[dict] = []
    for _ in range(len(controls) + 3):
        pg.keyboard.press("Tab")
        now = pg.evaluate(_FOCUSED)
        if now is None:
            if reached:
                break  # past the last control: the focus has left the page
            continue
        if reached and now["i"] == reached[0]["i"]:
            break
        reached.append(now)
    return Walk(controls, reached)

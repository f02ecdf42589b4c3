"""Code blocks in a real browser: how shell commands wrap, where copy buttons
are, and how names linked in code look (fixtures: tests/site/conftest.py)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from reader_site import copy_with, shot, visit

pytestmark = pytest.mark.browser

SHELL_PAGES = ("notebooks/install", "notebooks/run-cpp", "docs/building", "index")
SHELL_BLOCKS = (
    "article :is(div[class*='highlight-bash'], div[class*='highlight-console'], "
    "div[class*='highlight-shell'], div[class*='highlight-sh']) pre"
)

# Every character of a block with its line box (top), its left edge, and whether the
# lexer put it in a whitespace token (.w, where a command may wrap); the block's
# content box; and whether its rendered text is its text (what the copy button copies).
CHARS = """pre => {
  const r = document.createRange(), out = [];
  const walk = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    const ws = !!n.parentElement.closest('.w');
    for (let i = 0; i < n.data.length; i++) {
      r.setStart(n, i); r.setEnd(n, i + 1);
      const b = [...r.getClientRects()].find(b => b.width > 0);
      out.push([n.data[i], b ? b.top : null, b ? b.left : null, b ? b.right : null, ws]);
    }
  }
  const cs = getComputedStyle(pre), box = pre.getBoundingClientRect();
  const left = box.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
  const right = box.left + parseFloat(cs.borderLeftWidth) + pre.clientWidth
                - parseFloat(cs.paddingRight);
  return {chars: out, left, right,
          copied: pre.innerText === pre.textContent};
}"""


def _visual_lines(chars: list) -> list[list[list]]:
    """The command lines of a block, each as its visual lines (runs of characters on one line
    box)."""
    lines, current = [], [[]]
    for ch in chars:
        if ch[0] == "\n":
            lines.append(current)
            current = [[]]
            continue
        if ch[1] is None:
            continue
        if (
            current[-1] and ch[1] > current[-1][-1][1] + 4
        ):  # a lower line box: the line wrapped here
            current.append([])
        current[-1].append(ch)
    lines.append(current)
    return [[v for v in line if v] for line in lines if any(line)]


def shell_wrap_problems(page, label: str) -> list[str]:  # page: a Playwright page
    problems = []
    blocks = page.locator(SHELL_BLOCKS)
    for i in range(blocks.count()):
        got = blocks.nth(i).evaluate(CHARS)
        if not got["copied"]:
            problems.append(f"{label} block {i}: its rendered text differs from its text")
        for line in _visual_lines(got["chars"]):
            text = "".join(c[0] for v in line for c in v)
            width = line[0][0][3] - line[0][0][2]  # one character: the code font's ch
            for before, after in pairwise(line):
                if not before[-1][0].isspace() or after[0][0].isspace():
                    problems.append(
                        f"{label} block {i}: wrapped inside a token: "
                        f"{''.join(c[0] for c in before)[-20:]!r} | "
                        f"{''.join(c[0] for c in after)[:20]!r}"
                    )
                if after[0][2] < got["left"] + 3.5 * width:
                    problems.append(
                        f"{label} block {i}: a continuation of {text[:30]!r} is not indented "
                        f"({after[0][2] - got['left']:.0f} px)"
                    )
            for (
                visual
            ) in line:  # past the right edge only where no space of the lexer's was left to wrap at
                shown = [
                    c for c in visual if not c[0].isspace()
                ]  # a space at a wrap hangs past the edge
                inner = "".join("w" if c[4] else "x" for c in visual).strip("w")
                if shown and shown[-1][3] > got["right"] + 1 and "w" in inner:
                    problems.append(
                        f"{label} block {i}: runs past the edge though it could wrap: "
                        f"{''.join(c[0] for c in visual)[:40]!r}"
                    )
    return problems


@pytest.mark.parametrize("width", [390, 1280])
def test_long_commands_wrap_between_arguments(browser, site_url: str, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    pg = context.new_page()
    problems, blocks = [], 0
    for doc in SHELL_PAGES:
        visit(pg, site_url + f"{doc}.html")
        blocks += pg.locator(SHELL_BLOCKS).count()
        problems += shell_wrap_problems(pg, f"{doc} at {width} px")
        if doc == "notebooks/run-cpp":
            pre = pg.locator("#prebuilt-runner pre")
            pre.scroll_into_view_if_needed()
            shot(pg, f"shell-wrap-run-cpp-{width}")
            # the copy button gives the commands as written: wrapped lines are not split
            context.grant_permissions(
                ["clipboard-read", "clipboard-write"], origin=site_url.rstrip("/")
            )
            pre.hover()
            copied = copy_with(pg, pg.locator("#prebuilt-runner button.copybtn"))
            assert copied == pre.evaluate("p => p.textContent").rstrip("\n"), copied
            assert copied.count("\n") == 3 and copied.endswith("--num_runs=10"), copied
    context.close()
    assert blocks >= 10, f"only {blocks} shell blocks on {SHELL_PAGES}"
    assert not problems, "\n".join(problems)


# Copy buttons: on each code cell's input and each code block; none on a cell's output.
COPY_BUTTONS = """() => {
  const pres = sel => [...document.querySelectorAll(sel)];
  const has = pre => !!pre.closest('.highlight')?.querySelector(':scope > button.copybtn');
  const blocks = 'article div[class*="highlight-"]:not(.cell_output *) div.highlight pre';
  return {outputs: document.querySelectorAll('.cell_output button.copybtn').length,
          inputs: pres('.cell_input div.highlight pre').length,
          bare_inputs: pres('.cell_input div.highlight pre').filter(p => !has(p)).length,
          blocks: pres(blocks).length,
          bare_blocks: pres(blocks).filter(p => !has(p)).length};
}"""


def test_copy_buttons_on_code_not_on_outputs(page, site_url: str) -> None:
    seen = {"outputs": 0, "inputs": 0, "blocks": 0}
    problems = []
    for doc in (
        "notebooks/run-cpp",
        "notebooks/troubleshooting",
        "notebooks/gpu-resident-io",
        "docs/building",
    ):
        visit(page, site_url + f"{doc}.html")
        got = page.evaluate(COPY_BUTTONS)
        seen["outputs"] += page.locator(".cell_output").count()
        seen["inputs"] += got["inputs"]
        seen["blocks"] += got["blocks"]
        if got["outputs"]:
            problems.append(f"{doc}: {got['outputs']} copy buttons on cell outputs")
        if got["bare_inputs"] or got["bare_blocks"]:
            problems.append(
                f"{doc}: {got['bare_inputs']} code cells and {got['bare_blocks']} code blocks "
                "have no copy button"
            )
    assert all(seen.values()), f"nothing to check: {seen}"
    assert not problems, "\n".join(problems)


# Each name in code linked to the API reference: its underline, its colour against that of
# the same kind of token unlinked in the same block, and its contrast with the block.
CODE_LINKS = """() => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).slice(0, 3).map(v => Number(v) / 255);
  const lum = c => c.map(v => v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4))
                    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  return [...document.querySelectorAll('article .highlight a.trtdocs-api-link')].map(a => {
    const token = a.querySelector('span[class]') || a, block = a.closest('.highlight');
    const twin = [...block.querySelectorAll(`span.${token.classList[0]}`)]
                 .find(s => !s.closest('a'));
    const decorated = [a, ...a.querySelectorAll('*')]
                      .map(e => getComputedStyle(e).textDecorationLine).filter(d => d !== 'none');
    return {name: a.textContent, decorated, color: getComputedStyle(token).color,
            twin: twin ? getComputedStyle(twin).color : null,
            contrast: ratio(rgb(getComputedStyle(token).color),
                            rgb(getComputedStyle(block).backgroundColor))};
  });
}"""


@pytest.mark.parametrize("scheme", ["light", "dark", "switched-dark"])
def test_linked_names_in_code_look_like_code(browser, site_url: str, scheme: str) -> None:
    context = browser.new_context(
        viewport={"width": 1280, "height": 900},
        color_scheme="dark" if scheme == "dark" else "light",
    )
    pg = context.new_page()
    problems, links = [], 0
    for doc in ("notebooks/export-pte", "notebooks/troubleshooting"):
        visit(pg, site_url + f"{doc}.html")
        if scheme == "switched-dark":  # furo's theme switch, on a light system
            pg.evaluate("document.body.dataset.theme = 'dark'")
        for link in pg.evaluate(CODE_LINKS):
            links += 1
            if link["decorated"]:
                problems.append(f"{doc}: {link['name']!r} is drawn with {link['decorated']}")
            if link["twin"] and link["twin"] != link["color"]:
                problems.append(
                    f"{doc}: {link['name']!r} is {link['color']}, the same token unlinked "
                    f"{link['twin']}"
                )
            if link["contrast"] < 4.5:
                problems.append(
                    f"{doc}: {link['name']!r} has contrast {link['contrast']:.2f} with its block"
                )
        underlined = pg.evaluate(
            "[...document.querySelectorAll('article .highlight :is(.nn, .nc)')]"
            ".filter(e => getComputedStyle(e).textDecorationLine !== 'none')"
            ".map(e => e.textContent)"
        )
        problems += [f"{doc}: the name {name!r} in code is underlined" for name in underlined]
    first = pg.locator("article .highlight a.trtdocs-api-link").first
    first.scroll_into_view_if_needed()
    shot(pg, f"code-links-{scheme}")
    first.hover()  # pointing at one shows it is a link
    hovered = first.evaluate("a => getComputedStyle(a).textDecorationLine")
    context.close()
    assert links >= 5, f"only {links} linked names in code"
    assert "underline" in hovered, f"a hovered link in code is drawn with {hovered!r}"
    assert not problems, "\n".join(problems)

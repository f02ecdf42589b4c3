"""One reference page in Chromium (Debian's, driven by Playwright): at 1280 px
the right-hand contents opens from its icon, lists the page's entries and
takes the reader to one; the page stays a module's page, not the whole
reference. Screenshots go to _build/screenshots/."""

from __future__ import annotations

import functools
import http.server
import threading
from itertools import pairwise
from pathlib import Path

import pytest

from paths import ROOT as REPO
from reader_site import TRANSITIONS_ENDED, visit

pytestmark = [pytest.mark.browser, pytest.mark.build]
SCREENSHOTS = REPO / "_build" / "screenshots"
PAGE = "docs/api/torch_tensorrt.html"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def url(built_site: Path) -> str:
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(built_site))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{PAGE}"
    server.shutdown()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_contents_lists_the_entries_and_goes_to_one(browser, url, width):
    playwright = pytest.importorskip("playwright.sync_api")
    page = browser.new_page(viewport={"width": width, "height": 900 if width > 600 else 844})
    visit(page, url)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"api-torch_tensorrt-{width}.png"))
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 40_000, f"{PAGE} is {height} px high at {width} px"
    entries = page.locator(".toc-drawer a.reference")
    names = [entries.nth(i).inner_text() for i in range(entries.count())]
    assert {"compile()", "Input", "save()", "load()"} <= set(names), names
    drawer = page.locator(".toc-drawer")
    page.locator("label[for=__toc]:visible").first.click()
    drawer.evaluate(TRANSITIONS_ENDED)  # the drawer has slid in
    box = drawer.bounding_box()
    assert box["x"] + box["width"] <= width + 1 and box["x"] >= 0, box
    page.screenshot(path=str(SCREENSHOTS / f"api-torch_tensorrt-{width}-contents.png"))
    drawer.locator("a.reference", has_text="save()").first.click()
    assert page.url.endswith("#torch_tensorrt.save")
    playwright.expect(page.locator("[id='torch_tensorrt.save']")).to_be_in_viewport(timeout=5000)
    page.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_long_signature_shows_one_parameter_a_line(browser, url, width):
    """save()'s signature is over python_maximum_signature_line_length: its
    parameters are inline in the HTML (no <dl> without <dt>), and trtdocs.css
    starts each one, then the closing parenthesis, on a line of its own, all
    at one indent, past where the signature starts."""
    page = browser.new_page(viewport={"width": width, "height": 900 if width > 600 else 844})
    visit(page, url)
    sig = page.locator("[id='torch_tensorrt.save']")
    assert sig.locator("dl, dd").count() == 0
    # where each parameter's text, and the closing parenthesis, starts (a range
    # holds the text, not the line break that ::before adds)
    starts = sig.evaluate("""sig => [...sig.querySelectorAll(
        ':scope > em.sig-param, :scope > .sig-paren')].map(el => {
        const range = document.createRange(); range.selectNodeContents(el);
        const r = range.getClientRects()[0]; return [el.className, r.x, r.y]; })""")
    params, paren = [s for s in starts if s[0] == "sig-param"], starts[-1]
    name = sig.locator(".sig-prename").bounding_box()  # torch_tensorrt., where the signature starts
    assert len(params) >= 5 and paren[0] == "sig-paren", starts
    tops = [y for _, _, y in params] + [paren[2]]
    assert all(later > earlier for earlier, later in pairwise(tops)), tops  # a line each
    lefts = {round(x) for _, x, _ in params} | {round(paren[1])}
    assert len(lefts) == 1 and lefts.pop() > name["x"], (starts, name)
    page.close()

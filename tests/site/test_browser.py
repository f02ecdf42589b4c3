"""The built site in a real browser: Debian's chromium driven by Playwright,
the site served on 127.0.0.1 (fixtures: tests/site/conftest.py). Screenshots go
to _build/screenshots/."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from paths import ROOT
from reader_site import (
    SEARCH_DONE,
    copy_with,
    main_content,
    notebook_docs,
    pages,
    provenance,
    settle,
    shot,
    soup,
    visit,
)

pytestmark = pytest.mark.browser


def test_every_page_loads_without_errors(page, built_site: Path, site_url: str) -> None:
    problems: list[str] = []
    current = {"page": ""}
    page.on(
        "console",
        lambda m: m.type == "error" and problems.append(f"{current['page']}: console: {m.text}"),
    )
    page.on("pageerror", lambda e: problems.append(f"{current['page']}: script error: {e}"))
    # net::ERR_ABORTED is the browser dropping a request when the test opens the next
    # page: the favicon, which Chromium asks for after the load event that visit()
    # waits for. A missing file still answers 404 (below), and test_static_pages
    # checks that every <link> and asset on every page resolves to a file.
    page.on(
        "requestfailed",
        lambda r: (
            r.failure != "net::ERR_ABORTED"
            and problems.append(f"{current['page']}: request failed: {r.url} ({r.failure})")
        ),
    )
    page.on(
        "response",
        lambda r: (
            r.status >= 400 and problems.append(f"{current['page']}: HTTP {r.status}: {r.url}")
        ),
    )
    page.on(
        "request",
        lambda r: (
            urlsplit(r.url).hostname not in ("127.0.0.1", None)
            and urlsplit(r.url).scheme in ("http", "https", "ws", "wss")
            and problems.append(f"{current['page']}: network fetch at view time: {r.url}")
        ),
    )
    all_pages = pages(built_site)
    assert len(all_pages) >= 5, all_pages
    for path in all_pages:
        current["page"] = rel = path.relative_to(built_site).as_posix()
        response = visit(page, site_url + rel)
        assert response is not None and response.ok, f"{rel}: HTTP {response and response.status}"
        assert page.title().strip(), f"{rel}: no title"
        if rel == "search.html":  # furo's search page: a form, no heading, empty without a query
            assert page.locator("input.sidebar-search").first.is_visible(), f"{rel}: no search box"
        else:
            assert page.locator("article[role=main] h1").first.is_visible(), (
                f"{rel}: no visible title"
            )
    assert not problems, "\n".join(problems)


def test_screenshots_of_key_pages(page, built_site: Path, site_url: str) -> None:
    written = []
    for doc in ["index", *notebook_docs(built_site)]:
        visit(page, site_url + f"{doc}.html")
        written.append(shot(page, doc.replace("/", "-"), full_page=doc != "index"))
    visit(page, site_url + "404.html")
    written.append(shot(page, "404"))
    for path in written:
        assert path.stat().st_size > 10_000, f"{path} looks empty"


def test_status_banner_and_not_executed_marks_are_visible(
    page, built_site: Path, site_url: str
) -> None:
    for doc, entry in provenance(built_site)["notebooks"].items():
        visit(page, site_url + f"{doc}.html")
        banner = page.locator("footer .trtdocs-page-status .trtdocs-status")
        if entry["status"] == "no code cells":  # nothing runs: no status, no downloads
            assert page.locator(".trtdocs-status, .trtdocs-downloads-row").count() == 0, doc
            continue
        # out of the reading flow: in the footer, after the article's last word, one line
        assert page.locator("article .trtdocs-status").count() == 0, doc
        assert banner.count() == 1, f"{doc}: no status in the footer"
        banner.scroll_into_view_if_needed()
        assert banner.is_visible(), f"{doc}: status not visible"
        article = page.locator("article").bounding_box()
        assert banner.bounding_box()["y"] >= article["y"] + article["height"] - 1, doc
        summary = banner.locator("> summary")
        assert summary.count() == 1, f"{doc}: the status has no one-line summary"
        assert summary.bounding_box()["height"] < 40, f"{doc}: the status is over a line"
        assert summary.locator("a").count() == 0, f"{doc}: a link in the status's summary"
        summary.click()  # open the fold: what the page needs is under it
        text = banner.inner_text()
        assert (
            ("Runs on a CPU." in text)
            or ("Its code cells run on a CPU." in text)
            or ("Needs " in text)
        ), text
        marks = page.locator(
            "article .trtdocs-not-executed:not(.trtdocs-text-block)"
        )  # cells'; text blocks' below
        # of a page shown from a record: the cells that did not run where it was made
        skipped = len(entry["cells_not_executed"])
        assert marks.count() == skipped, (
            f"{doc}: {marks.count()} marks for {skipped} cells not executed"
        )
        where = (
            "where these outputs were recorded"
            if entry["status"] == "recorded"
            else "in this build"
        )
        for i in range(marks.count()):
            mark = marks.nth(i)
            assert mark.is_visible() and mark.inner_text().startswith(f"Not run {where}: ")
            # the mark sits right above the cell it is about, which shows no output
            cell = mark.locator("xpath=following-sibling::*[1]")
            assert "cell" in (cell.get_attribute("class") or "")
            assert cell.locator(".cell_output").count() == 0, (
                f"{doc}: a cell that did not run shows output"
            )
        # a block shown as text that needs a GPU or TensorRT: the same mark, right above the block
        for i in range((text_marks := page.locator("article details.trtdocs-text-block")).count()):
            mark = text_marks.nth(i)
            assert mark.is_visible() and mark.inner_text().startswith(
                "Shown as text; no build runs it. Running it needs "
            )
            shown = mark.locator("xpath=following-sibling::*[1]").get_attribute("class") or ""
            assert "highlight-" in shown or "literal-block-wrapper" in shown, f"{doc}: {shown}"
        if doc.endswith("export-pte"):
            shot(page, "not-executed-marks")
        if doc.endswith("gpu-resident-io"):  # C++ functions for an application, shown as text
            page.locator("article details.trtdocs-text-block").first.scroll_into_view_if_needed()
            shot(page, "text-block-marks")
        if doc.endswith("run-cpp"):  # its TensorRT steps are gated cells, each with a cell's mark
            page.locator(
                "#cpp-from-source .trtdocs-not-executed"
            ).first.scroll_into_view_if_needed()
            shot(page, "source-build-marks")


def test_feature_notes_are_visible(page, built_site: Path, site_url: str) -> None:
    # the notes in prose and tables; the support matrix's sources are folded by design (details)
    selector = ".trtdocs-feature, .trtdocs-version-note"
    with_notes = [p for p in pages(built_site) if main_content(p).select(selector)]
    assert with_notes, f"no page shows a generated feature note ({selector})"
    # each note: seen (drawn, with a box) and with text; one round trip a page
    seen = """s => [...document.querySelectorAll(`article :is(${s})`)].map(n => [
      n.checkVisibility({visibilityProperty: true, opacityProperty: true})
        && n.getClientRects().length > 0, n.innerText.trim() !== ''])"""
    for path in with_notes:
        visit(page, site_url + path.relative_to(built_site).as_posix())
        notes = page.evaluate(seen, selector)
        assert notes, f"{path.name}: the build wrote notes the browser does not find"
        for i, (visible, has_text) in enumerate(notes):
            assert visible, f"{path.name}: feature note {i} is hidden"
            assert has_text, f"{path.name}: feature note {i} is empty"


def test_search_finds_a_term_offline(page, site_url: str) -> None:
    page.goto(site_url + "search.html?q=XnnpackPartitioner", wait_until="networkidle")
    page.wait_for_function(SEARCH_DONE, timeout=30_000)  # every result shown, not the first few
    results = page.locator("#search-results ul.search li a")
    hrefs = [results.nth(i).get_attribute("href") for i in range(results.count())]
    assert any("notebooks/export-on-cpu.html" in h for h in hrefs), hrefs
    shot(page, "search")


def _background_luminance(pg) -> float:
    rgb = pg.evaluate("getComputedStyle(document.body).backgroundColor")
    r, g, b = (int(x) for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_dark_mode_toggle(page, site_url: str) -> None:
    visit(page, site_url + "notebooks/export-on-cpu.html")
    assert _background_luminance(page) > 0.8, "the light theme is not light"
    toggle = page.locator("button.theme-toggle:visible").first
    themes = []
    for _ in range(3):  # furo cycles auto -> dark -> light (or light -> dark -> auto)
        toggle.click()
        themes.append(page.evaluate("document.body.dataset.theme"))
        if themes[-1] == "dark":
            break
    assert themes[-1] == "dark", f"the toggle went through {themes}, never dark"
    assert _background_luminance(page) < 0.3, "dark theme selected but the page is not dark"
    shot(page, "export-on-cpu-dark")
    page.reload(wait_until="load")
    settle(page)
    assert page.evaluate("document.body.dataset.theme") == "dark", (
        "the choice does not survive a reload"
    )
    assert _background_luminance(page) < 0.3


def _copy(pg, block) -> str:
    block.hover()
    return copy_with(pg, block.locator("button.copybtn")).rstrip("\n")


def test_copy_button_copies_code_only(browser, fixture_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=fixture_url.rstrip("/"))
    pg = context.new_page()
    visit(pg, fixture_url + "docs/tabs.html")
    assert _copy(pg, pg.locator("div.highlight-pycon").first) == "x = 40 + 2\nprint(x)"
    assert (
        _copy(pg, pg.locator("div.highlight-console").first) == "python -m pip install executorch"
    )
    context.close()


def test_copy_button_on_a_notebook_cell(page, site_url: str) -> None:
    import jupytext

    visit(page, site_url + "notebooks/export-on-cpu.html")
    first = page.locator("article .cell .cell_input").first
    source = next(
        c.source
        for c in jupytext.read(ROOT / "notebooks" / "export-on-cpu.md").cells
        if c.cell_type == "code"
    )
    assert _copy(page, first).strip() == source.strip()


def test_tabs_switch(browser, fixture_url: str, built_site: Path, site_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    targets = [fixture_url + "docs/tabs.html"]
    targets += [
        site_url + p.relative_to(built_site).as_posix()
        for p in pages(built_site)
        if soup(p).select(".sd-tab-set")
    ]
    for url in targets:
        visit(pg, url)
        tab_set = pg.locator(".sd-tab-set").first
        labels = tab_set.locator("> label")
        contents = tab_set.locator("> .sd-tab-content")
        assert labels.count() >= 2, url
        assert contents.nth(0).is_visible() and not contents.nth(1).is_visible(), (
            f"{url}: first tab not shown alone"
        )
        labels.nth(1).click()
        assert contents.nth(1).is_visible() and not contents.nth(0).is_visible(), (
            f"{url}: second tab did not open"
        )
        if url.startswith(fixture_url):
            assert "int main()" in contents.nth(1).inner_text()
            shot(pg, "tabs-cpp")
        labels.nth(0).click()
        assert contents.nth(0).is_visible() and not contents.nth(1).is_visible()
    context.close()


def test_the_release_note_is_not_a_switcher(browser, fixture_url: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    visit(pg, fixture_url + "docs/tabs.html")
    nav = pg.locator(".sidebar-drawer .trtdocs-releases")
    assert nav.is_visible()
    assert nav.locator("li, select, [aria-current]").count() == 0
    assert (
        nav.locator(".trtdocs-release-current")
        .inner_text()
        .startswith("Documents Torch-TensorRT 2.14")
    )
    others = nav.locator(".trtdocs-release-others")
    assert "2.15 (not released)" in others.inner_text()
    shot(pg, "release-note")
    others.locator("a").click()
    settle(pg)
    assert pg.url == fixture_url + "docs/support-matrix.html#releases"
    row = pg.locator('[id="release-2.15"]')
    assert row.is_visible() and "pip install" in row.inner_text()
    context.close()


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def test_folded_reason_opens_on_click(page, built_site: Path, site_url: str) -> None:
    docs = [
        d
        for d, e in provenance(built_site)["notebooks"].items()
        if e["cells_not_executed"] and e["status"] != "recorded"
    ]
    if not docs:
        pytest.skip("every cell ran in this build")
    visit(page, site_url + f"{docs[0]}.html")
    mark = page.locator("article details.trtdocs-not-executed").first
    reason = mark.locator("> p").first
    assert not reason.is_visible(), "the reason is not folded"
    height = mark.bounding_box()["height"]
    assert height < 60, f"a closed mark is {height} px high: more than one line"
    mark.locator("> summary").click()
    assert reason.is_visible() and reason.inner_text().startswith("needs "), reason.inner_text()
    shot(page, "mark-open")


def test_status_and_downloads_are_one_line_each_on_a_phone(
    browser, built_site: Path, site_url: str
) -> None:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    pg = context.new_page()
    for doc in notebook_docs(built_site):
        visit(pg, site_url + f"{doc}.html")
        status = pg.locator("footer .trtdocs-status > summary")
        if status.count() == 0:  # a page with no code cells
            continue
        assert status.bounding_box()["height"] <= 3 * 22, (
            f"{doc}: the status line is {status.bounding_box()['height']} px high at 390 px"
        )
        row = pg.locator("article .trtdocs-downloads-row")
        assert row.bounding_box()["height"] < 30, f"{doc}: the downloads take over a line"
        for link in ("trtdocs-download-ipynb", "trtdocs-download-md"):
            assert row.locator(f"a.{link}").is_visible(), f"{doc}: {link} not visible"
    context.close()


def test_md_link_downloads(page, built_site: Path, site_url: str) -> None:
    doc = notebook_docs(built_site)[0]
    visit(page, site_url + f"{doc}.html")
    link = page.locator("article .trtdocs-downloads-row a.trtdocs-download-md")
    assert link.get_attribute("download") == f"{doc.rsplit('/', 1)[-1]}.md"
    with page.expect_download() as info:
        link.click()
    download = info.value
    assert download.suggested_filename == f"{doc.rsplit('/', 1)[-1]}.md"
    # the file the site serves: the page's source with
    # its MyST rendered (test_reader_static checks it)
    assert Path(download.path()).read_bytes() == (built_site / f"{doc}.md").read_bytes()


def test_no_table_hides_a_column(page, built_site: Path, site_url: str) -> None:
    wide = []
    with_tables = [p for p in pages(built_site) if main_content(p).find("table")]
    assert with_tables, "no page has a table"
    for path in with_tables:
        rel = path.relative_to(built_site).as_posix()
        visit(page, site_url + rel)
        tables = page.locator("article table")
        for i in range(tables.count()):
            sizes = tables.nth(i).evaluate(
                "t => [t.scrollWidth, (t.closest('.table-wrapper') || t.parentElement).clientWidth]"
            )
            if sizes[0] > sizes[1]:
                wide.append(f"{rel}: table {i} is {sizes[0]} px in {sizes[1]} px")
    assert not wide, "tables wider than their column at 1280 px:\n" + "\n".join(wide)


def test_404_at_a_deep_path(page, site_url: str) -> None:
    response = visit(page, site_url + "notebooks/no/such/deep/page.html")
    assert response is not None and response.status == 404
    assert page.locator("article h1").inner_text() == "Page not found"
    # styled: furo's stylesheet applied (its sidebar is laid out, the search box is styled)
    assert page.locator(".sidebar-drawer").is_visible(), "the 404 page is not styled"
    assert page.evaluate("[...document.styleSheets].some(s => s.href && s.href.includes('furo'))")
    shot(page, "404-deep")
    page.locator("article a", has_text="guide's first page").click()
    settle(page)
    assert page.url == site_url + "index.html"
    assert page.locator("article h1").first.is_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_screenshots_at_both_widths(browser, site_url: str, scheme: str, viewport: dict) -> None:
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    pg = context.new_page()
    written = []
    for doc in (
        "index",
        "notebooks/export-pte",
        "notebooks/troubleshooting",
        "docs/support-matrix",
        "docs/build-report",
        "notebooks/runtime-options",
    ):
        visit(pg, site_url + f"{doc}.html")
        written.append(shot(pg, f"{doc.replace('/', '-')}-{viewport['width']}-{scheme}"))
    for path in written:
        assert path.stat().st_size > 10_000, f"{path} looks empty"
    context.close()

"""The built site read as a static host would serve it: links, assets, the
404 page, accessibility, and each notebook page's status and downloads."""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest

from reader_site import (CSS_URL, FETCHED, VAGUE_LINK_TEXT, ids, is_external, links, main_content,
                         notebook_docs, pages, provenance, resolve, soup)
from trtdocs.features import load as load_features
from trtdocs.releases import releases_of

pytestmark = pytest.mark.build
FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parent.parent


def test_internal_links_and_assets_resolve(built_site: Path) -> None:
    broken = []
    for page in pages(built_site):
        for tag, url in links(page):
            if is_external(url) or url.startswith(("javascript:",)):
                continue
            target, fragment = resolve(page, url)
            where = f"{page.relative_to(built_site)}: <{tag}> {url}"
            if url.startswith("/"):
                continue  # test_links_are_relative reports it
            if not target.is_file():
                broken.append(f"{where}: no file {os.path.relpath(target, built_site)}")
            elif fragment and target.suffix == ".html" and fragment not in ids(target):
                broken.append(f"{where}: no id {fragment!r} in {target.name}")
    assert not broken, "broken internal links:\n" + "\n".join(broken)


def test_links_are_relative(built_site: Path) -> None:
    rooted = [f"{p.relative_to(built_site)}: {url}" for p in pages(built_site)
              for _, url in links(p) if url.startswith("/")]
    assert not rooted, "root-relative links break on a host serving the site under a path:\n" + "\n".join(rooted)


def test_nothing_is_fetched_from_the_network(built_site: Path) -> None:
    remote = []
    for page in pages(built_site):
        for name, attr in FETCHED:
            for tag in soup(page).find_all(name, attrs={attr: True}):
                if name == "link" and not set(tag.get("rel", [])) & {"stylesheet", "icon", "preload", "modulepreload", "manifest", "prefetch"}:
                    continue  # rel=canonical/next/prev are not fetched
                if is_external(tag[attr]) and not tag[attr].startswith("data:"):
                    remote.append(f"{page.relative_to(built_site)}: <{name} {attr}={tag[attr]}>")
        for tag in soup(page).find_all(style=True):
            remote += [f"{page.relative_to(built_site)}: style url {u}" for m in CSS_URL.finditer(tag["style"])
                       for u in m.groups() if u and is_external(u) and not u.startswith("data:")]
        for tag in soup(page).find_all("style"):
            remote += [f"{page.relative_to(built_site)}: <style> url {u}" for m in CSS_URL.finditer(tag.get_text())
                       for u in m.groups() if u and is_external(u) and not u.startswith("data:")]
    for css in sorted((built_site / "_static").rglob("*.css")):
        remote += [f"{css.relative_to(built_site)}: {u}" for m in CSS_URL.finditer(css.read_text(errors="replace"))
                   for u in m.groups() if u and is_external(u) and not u.startswith("data:")]
    assert not remote, "fetched from the network at view time:\n" + "\n".join(remote)


def test_404_page(built_site: Path) -> None:
    page = built_site / "404.html"
    assert page.is_file(), "no 404.html at the site root"
    hrefs = {a["href"] for a in main_content(page).find_all("a", href=True)}
    assert {"index.html", "search.html"} <= hrefs, hrefs
    assert main_content(page).find("h1").get_text(strip=True) == "Page not found"


def test_heading_levels_are_not_skipped(built_site: Path) -> None:
    bad = []
    for page in pages(built_site):
        levels = [int(h.name[1]) for h in main_content(page).find_all(re.compile(r"^h[1-6]$"))]
        if not levels:
            continue
        if levels[0] != 1 or levels.count(1) != 1:
            bad.append(f"{page.relative_to(built_site)}: headings {levels} (one h1, first)")
        bad += [f"{page.relative_to(built_site)}: h{b} follows h{a}" for a, b in zip(levels, levels[1:]) if b > a + 1]
    assert not bad, "\n".join(bad)


def test_images_have_alt_text(built_site: Path) -> None:
    missing = [f"{p.relative_to(built_site)}: <img src={img.get('src')}>" for p in pages(built_site)
               for img in soup(p).find_all("img")
               if not img.get("alt", "").strip() and img.get("aria-hidden") != "true"]
    assert not missing, "images without alt text:\n" + "\n".join(missing)


def test_link_text_says_where_it_goes(built_site: Path) -> None:
    vague = []
    for page in pages(built_site):
        for a in soup(page).find_all("a", href=True):
            text = " ".join(a.get_text(" ", strip=True).split()).lower().strip(".:!")
            label = a.get("aria-label") or a.get("title") or " ".join(i.get("alt", "") for i in a.find_all("img"))
            if text in VAGUE_LINK_TEXT or (not text and not label.strip()) or (text == "¶" and not label):
                vague.append(f"{page.relative_to(built_site)}: <a href={a['href']}>{a.get_text(strip=True)!r}")
    assert not vague, "links whose text does not say where they go:\n" + "\n".join(vague)


def test_every_notebook_page_states_what_it_needs(built_site: Path) -> None:
    docs = notebook_docs(built_site)
    assert docs, "provenance.json lists no notebooks"
    for doc in docs:
        article = main_content(built_site / f"{doc}.html")
        first_block = article.find("h1").find_next(lambda t: t.name in ("div", "p", "section") and t.get("class"))
        assert first_block is not None and "trtdocs-status" in first_block["class"], \
            f"{doc}: the status banner is not the first thing under the title"
        text = first_block.get_text(" ", strip=True)
        assert re.search(r"Runs on a CPU\.|Needs .+\.", text), f"{doc}: banner does not say what it needs: {text}"
        status = provenance(built_site)["notebooks"][doc]["status"]
        assert f"trtdocs-status-{status.replace(' ', '-')}" in first_block["class"]


def test_notebook_downloads(built_site: Path) -> None:
    entries = provenance(built_site)["notebooks"]
    for doc, entry in entries.items():
        page = built_site / f"{doc}.html"
        banner = main_content(page).find(class_="trtdocs-status")
        ipynb = banner.find("a", class_="trtdocs-download-ipynb")
        md = banner.find("a", class_="trtdocs-download-md")
        assert ipynb is not None and md is not None, f"{doc}: no download links in the banner"
        ipynb_path, _ = resolve(page, ipynb["href"])
        md_path, _ = resolve(page, md["href"])
        assert md_path.read_text() == (ROOT / f"{doc}.md").read_text(), f"{doc}.md is not the page's source"
        nb = nbformat.read(ipynb_path, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["trtdocs"]["status"] == entry["status"]
        assert "source_map" not in nb.metadata
        myst_only = [c.source[:40] for c in nb.cells if c.cell_type == "markdown" and
                     re.match(r"```\{(page-status|not-executed)\}", c.source)]
        assert not myst_only, f"{doc}.ipynb keeps the build's MyST-only cells: {myst_only}"
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert len(code) == entry["code_cells"]
        skipped = {s["cell"] for s in entry["cells_not_executed"]}
        for number, cell in enumerate(code, start=1):
            assert "skip-execution" not in cell.metadata.get("tags", []), f"{doc}.ipynb cell {number} keeps skip-execution"
            if number in skipped or entry["status"] == "not executed":
                assert not cell.outputs, f"{doc}.ipynb cell {number} did not run but has outputs"
            elif entry["status"] in ("executed", "partly executed"):
                assert cell.execution_count is not None, f"{doc}.ipynb cell {number} ran but has no execution count"
        notes = [c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("> **Not executed in this build**")]
        assert len(notes) == len(skipped), f"{doc}.ipynb: {len(notes)} notes for {len(skipped)} cells that did not run"
        assert ipynb.get_text() == f"{doc.rsplit('/', 1)[-1]}.ipynb"


def test_index_gives_the_reading_order(built_site: Path) -> None:
    index = built_site / "index.html"
    toc = [resolve(index, a["href"])[0] for a in main_content(index).select(".toctree-wrapper a.reference.internal")]
    listed = [str(p.relative_to(built_site).with_suffix("")) for p in toc]
    missing = [d for d in notebook_docs(built_site) if d not in listed]
    assert not missing, f"notebook pages missing from the index's reading order: {missing}"
    # furo's next/previous links follow the same order
    for here, there in zip(toc, toc[1:]):
        nxt = soup(here).select_one("a.next-page")
        assert nxt is not None and resolve(here, nxt["href"])[0] == there, f"{here.name}: next page is not {there.name}"


def test_release_switcher_matches_the_features_table(built_site: Path) -> None:
    releases = releases_of(load_features(ROOT / "docs" / "features.toml"))
    nav = soup(built_site / "index.html").select_one(".trtdocs-releases")
    items = nav.select("li")
    assert [li.get_text(" ", strip=True).split()[0] for li in items] == [r.label for r in releases]
    current = nav.select('[aria-current="true"]')
    assert [c.get_text(strip=True) for c in current] == [r.label for r in releases if r.documented]


def test_releases_follow_the_table_order() -> None:
    got = releases_of(load_features(ROOT / "docs" / "features.toml"))
    assert [(r.key, r.status, r.documented) for r in got] == [
        ("2.14", "released", True), ("2.15", "described", False), ("nightly", "nightly", False)]
    assert [r.label for r in got] == ["2.14", "2.15", "Nightly"]
    other = releases_of(load_features(ROOT / "docs" / "features.toml", "2.15"))
    assert [r.key for r in other if r.documented] == ["2.15"]

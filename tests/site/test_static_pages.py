"""The built site read as a static host would serve it: links, assets, the
404 page, accessibility, each notebook page's status, downloads and streams,
and the prose rules (tests/prose.py) on every page."""

from __future__ import annotations

import os
import re
from itertools import pairwise
from pathlib import Path

import jupytext
import nbformat
import pytest
from bs4 import BeautifulSoup
from myst_nb.core.read import read_myst_markdown_notebook

from paths import ROOT
from prose import prose_blocks, violations
from reader_site import (
    CSS_URL,
    FETCHED,
    VAGUE_LINK_TEXT,
    ids,
    is_external,
    links,
    main_content,
    notebook_docs,
    pages,
    provenance,
    resolve,
    soup,
)
from trtdocs.features.sphinx import release_note
from trtdocs.features.validate import load as load_features
from trtdocs.markdown import leftovers
from trtdocs.notebooks import setupcell
from trtdocs.notebooks.downloads import NOTE, NOTE_RECORDED
from trtdocs.output.lognoise import quiet
from trtdocs.output.streams import terminal_text

MAINTAINER_DOCS = ("docs/building", "docs/build-report")  # conf.py's trtdocs_maintainer_docs


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
    # 404.html is served at any depth: its links start at the site's root path
    # (notfound_urls_prefix)
    rooted = [
        f"{p.relative_to(built_site)}: {url}"
        for p in pages(built_site)
        if p.name != "404.html"
        for _, url in links(p)
        if url.startswith("/")
    ]
    assert not rooted, (
        "root-relative links break on a host serving the site under a path:\n" + "\n".join(rooted)
    )


def test_nothing_is_fetched_from_the_network(built_site: Path) -> None:
    remote = []
    for page in pages(built_site):
        for name, attr in FETCHED:
            for tag in soup(page).find_all(name, attrs={attr: True}):
                if name == "link" and not set(tag.get("rel", [])) & {
                    "stylesheet",
                    "icon",
                    "preload",
                    "modulepreload",
                    "manifest",
                    "prefetch",
                }:
                    continue  # rel=canonical/next/prev are not fetched
                if is_external(tag[attr]) and not tag[attr].startswith("data:"):
                    remote.append(f"{page.relative_to(built_site)}: <{name} {attr}={tag[attr]}>")
        for tag in soup(page).find_all(style=True):
            remote += [
                f"{page.relative_to(built_site)}: style url {u}"
                for m in CSS_URL.finditer(tag["style"])
                for u in m.groups()
                if u and is_external(u) and not u.startswith("data:")
            ]
        for tag in soup(page).find_all("style"):
            remote += [
                f"{page.relative_to(built_site)}: <style> url {u}"
                for m in CSS_URL.finditer(tag.get_text())
                for u in m.groups()
                if u and is_external(u) and not u.startswith("data:")
            ]
    for css in sorted((built_site / "_static").rglob("*.css")):
        remote += [
            f"{css.relative_to(built_site)}: {u}"
            for m in CSS_URL.finditer(css.read_text(errors="replace"))
            for u in m.groups()
            if u and is_external(u) and not u.startswith("data:")
        ]
    assert not remote, "fetched from the network at view time:\n" + "\n".join(remote)


def test_404_page(built_site: Path) -> None:
    """Served for a missing address at any depth, so every link and asset is
    absolute from the site's root path, and each points at a real file."""
    page = built_site / "404.html"
    assert page.is_file(), "no 404.html at the site root"
    hrefs = {a["href"] for a in main_content(page).find_all("a", href=True)}
    assert {"/index.html", "/search.html"} <= hrefs, hrefs
    assert main_content(page).find("h1").get_text(strip=True) == "Page not found"
    local = [url for _, url in links(page) if not is_external(url) and not url.startswith("#")]
    assert local and all(u.startswith("/") for u in local), [
        u for u in local if not u.startswith("/")
    ]
    missing = [
        u for u in local if not (built_site / u.split("#")[0].split("?")[0].lstrip("/")).is_file()
    ]
    assert not missing, f"404.html points at files the site does not have: {missing}"


def _build_machine_paths(built_site: Path) -> list[str]:
    """The venv, this checkout, the build folder and IPython's cell files, as a
    traceback or a log would print them."""
    import sys

    home = str(Path.home())
    paths = {sys.prefix, str(ROOT), str(built_site.parent), "/tmp/ipykernel_"}
    paths |= {"~" + p[len(home) :] for p in list(paths) if p.startswith(home + "/")}
    return sorted(paths)


def test_no_build_machine_path_in_any_page(built_site: Path) -> None:
    found = []
    for page in sorted(
        [*built_site.rglob("*.html"), *built_site.rglob("*.ipynb"), built_site / "searchindex.js"]
    ):
        text = page.read_text(encoding="utf-8")
        found += [
            f"{page.relative_to(built_site)}: {p}"
            for p in _build_machine_paths(built_site)
            if p in text
        ]
    assert not found, (
        "paths of the build machine in the HTML, the search index or a download:\n"
        + "\n".join(found)
    )


def test_no_cpuinfo_log_lines(built_site: Path) -> None:
    noisy = [
        p.relative_to(built_site).as_posix()
        for p in pages(built_site)
        if "[cpuinfo_utils.cpp:" in main_content(p).get_text()
    ]
    assert not noisy, f"ExecuTorch's cpuinfo log lines on {noisy}"


def test_intended_errors_show_the_readers_frames(built_site: Path) -> None:
    """Each raises-exception cell ends with its exception line and keeps its own
    frames; library frames are one 'not shown' line."""
    seen = 0
    for page in pages(built_site):
        for block in main_content(page).select("div.output.traceback"):
            seen += 1
            lines = block.get_text().rstrip("\n").splitlines()
            where = f"{page.relative_to(built_site)}"
            assert any(line.startswith("Cell In[") for line in lines), (
                f"{where}: no frame of the cell"
            )
            assert not any(line.startswith("File ") for line in lines), (
                f"{where}: a library frame is shown"
            )
            assert re.match(r"^[\w.]+(Error|Exception)\b", lines[-1]), (
                f"{where}: ends with {lines[-1]!r}"
            )
            assert len(lines) < 40, f"{where}: {len(lines)} lines of traceback"
    assert seen, "no page shows an intended error"


def _soup(path: Path) -> BeautifulSoup:
    """The whole page (the footer too, where the status is)."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_md_download_has_a_download_attribute(built_site: Path) -> None:
    for doc, entry in provenance(built_site)["notebooks"].items():
        row = main_content(built_site / f"{doc}.html").find(class_="trtdocs-downloads-row")
        if entry["status"] == "no code cells":  # nothing to run: no downloads line
            assert row is None, doc
            continue
        md = row.select_one("a.trtdocs-download-md")
        assert md is not None, f"{doc}: the .md link is not on the downloads line"
        assert md.get("download") == f"{doc.rsplit('/', 1)[-1]}.md", md


def test_marks_fold_their_reason(built_site: Path) -> None:
    for doc in provenance(built_site)["notebooks"]:
        for mark in main_content(built_site / f"{doc}.html").select(".trtdocs-not-executed"):
            assert mark.name == "details", f"{doc}: a mark is not folded"
            line = mark.find("summary").get_text(strip=True)
            # a block shown as text: no build runs it, and what running it needs
            lead = (
                "Shown as text; no build runs it. Running it needs "
                if "trtdocs-text-block" in mark["class"]
                else "Not run in this build: "
            )
            assert line.startswith(lead) and line.endswith("."), line
            assert mark.find("p").get_text(strip=True), f"{doc}: a mark folds no reason"


def test_probe_diagnostic_appears_once(built_site: Path) -> None:
    """The probe's own words (import torch_tensorrt's error) are on the Build
    report's machine list; the page banners do not repeat them."""
    error = provenance(built_site)["environment"].get("torch_tensorrt_error")
    if not error:
        pytest.skip("torch_tensorrt imports on this build machine")
    report = main_content(built_site / "docs" / "build-report.html")
    assert error in report.select_one(".trtdocs-build-machine").get_text()
    assert error not in report.select_one("table").get_text()
    for doc in notebook_docs(built_site):
        banner = _soup(built_site / f"{doc}.html").find(class_="trtdocs-status")
        assert banner is None or error not in banner.get_text(), (
            f"{doc}: the status repeats the probe's diagnostic"
        )


def test_running_time_from_the_provenance(built_site: Path) -> None:
    for doc, entry in provenance(built_site)["notebooks"].items():
        shown = main_content(built_site / f"{doc}.html").select(".trtdocs-running-time")
        if entry["status"] == "not executed" or entry.get("duration_s") is None:
            assert not shown, doc
            continue
        assert len(shown) == 1, f"{doc}: {len(shown)} running times"
        m = re.search(r"(\d+) min (\d+\.\d) s", shown[0].get_text())
        assert m and abs(int(m[1]) * 60 + float(m[2]) - entry["duration_s"]) < 0.06, (
            shown[0].get_text(),
            entry,
        )


def test_the_release_note_links_to_the_release_table(built_site: Path) -> None:
    """The sidebar names the documented release as text and links to the table of the others (no
    switcher)."""
    nav = soup(built_site / "index.html").select_one(".trtdocs-releases")
    current = nav.select_one(".trtdocs-release-current")
    assert current.find("a") is None and "Torch-TensorRT 2.14.0" in current.get_text(
        " ", strip=True
    )
    assert not nav.select("li, select, [aria-current]"), (
        "the release note looks like a version switcher"
    )
    links = nav.select("a[href]")
    assert len(links) == 1
    target, fragment = resolve(built_site / "index.html", links[0]["href"])
    holder = soup(target).find(
        id=fragment
    )  # a block around the table: furo copies a table's own ids
    table = holder.find("table") if holder is not None else None
    assert table is not None, links[0]["href"]
    rows = {tr["id"]: tr.get_text(" ", strip=True) for tr in table.select("tbody tr[id]")}
    assert {"release-2.14", "release-2.15", "release-nightly"} <= rows.keys()
    assert all("pip install" in text for text in rows.values()), rows


def test_heading_levels_are_not_skipped(built_site: Path) -> None:
    bad = []
    for page in pages(built_site):
        levels = [int(h.name[1]) for h in main_content(page).find_all(re.compile(r"^h[1-6]$"))]
        if not levels:
            continue
        if levels[0] != 1 or levels.count(1) != 1:
            bad.append(f"{page.relative_to(built_site)}: headings {levels} (one h1, first)")
        bad += [
            f"{page.relative_to(built_site)}: h{b} follows h{a}"
            for a, b in pairwise(levels)
            if b > a + 1
        ]
    assert not bad, "\n".join(bad)


def test_images_have_alt_text(built_site: Path) -> None:
    missing = [
        f"{p.relative_to(built_site)}: <img src={img.get('src')}>"
        for p in pages(built_site)
        for img in soup(p).find_all("img")
        if not img.get("alt", "").strip() and img.get("aria-hidden") != "true"
    ]
    assert not missing, "images without alt text:\n" + "\n".join(missing)


def test_link_text_says_where_it_goes(built_site: Path) -> None:
    vague = []
    for page in pages(built_site):
        for a in soup(page).find_all("a", href=True):
            text = " ".join(a.get_text(" ", strip=True).split()).lower().strip(".:!")
            label = (
                a.get("aria-label")
                or a.get("title")
                or " ".join(i.get("alt", "") for i in a.find_all("img"))
            )
            if (
                text in VAGUE_LINK_TEXT
                or (not text and not label.strip())
                or (text == "¶" and not label)
            ):
                vague.append(
                    f"{page.relative_to(built_site)}: <a "
                    f"href={a['href']}>{a.get_text(strip=True)!r}"
                )
    assert not vague, "links whose text does not say where they go:\n" + "\n".join(vague)


def test_every_notebook_page_states_what_it_needs(built_site: Path) -> None:
    docs = notebook_docs(built_site)
    assert docs, "provenance.json lists no notebooks"
    for doc in docs:
        status = provenance(built_site)["notebooks"][doc]["status"]
        box = _soup(built_site / f"{doc}.html").select_one("footer details.trtdocs-status")
        if status == "no code cells":  # nothing of it runs: no status at all
            assert box is None, doc
            continue
        assert box is not None, f"{doc}: no status in the page's footer"
        text = box.get_text(" ", strip=True)
        assert re.search(r"(Runs|Its code cells run) on a CPU\.|Needs .+\.", text), (
            f"{doc}: the status does not say what it needs: {text}"
        )
        assert f"trtdocs-status-{status.replace(' ', '-')}" in box["class"]


def test_notebook_downloads(built_site: Path) -> None:
    entries = provenance(built_site)["notebooks"]
    for doc, entry in entries.items():
        page = built_site / f"{doc}.html"
        row = main_content(page).find(class_="trtdocs-downloads-row")
        if entry["status"] == "no code cells":  # no line links them; the files are there
            ipynb_path, md_path = page.with_suffix(".ipynb"), page.with_suffix(".md")
        else:
            ipynb = row.find("a", class_="trtdocs-download-ipynb")
            md = row.find("a", class_="trtdocs-download-md")
            assert ipynb is not None and md is not None, f"{doc}: no download links"
            ipynb_path, _ = resolve(page, ipynb["href"])
            md_path, _ = resolve(page, md["href"])
        # the page's source with its MyST rendered into Markdown: the same code cells, no directive
        assert _code_cells(md_path) == _code_cells(ROOT / f"{doc}.md"), (
            f"{doc}.md: not the page's code cells"
        )
        assert not leftovers.find(md_path.read_text(encoding="utf-8"), cells=True), (
            f"{doc}.md keeps MyST syntax"
        )
        # the page's myst-nb settings (run-cpp's execution_timeout) reach the reader's Jupyter
        page_nb = read_myst_markdown_notebook((ROOT / f"{doc}.md").read_text(encoding="utf-8"))
        md_nb = read_myst_markdown_notebook(md_path.read_text(encoding="utf-8"))
        assert md_nb.metadata.get("mystnb") == page_nb.metadata.get("mystnb"), (
            f"{doc}.md: front matter"
        )
        nb = nbformat.read(ipynb_path, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["trtdocs"]["status"] == entry["status"]
        assert "source_map" not in nb.metadata
        myst_only = [
            c.source[:40]
            for c in nb.cells
            if c.cell_type == "markdown"
            and re.match(r"```\{(page-status|not-executed)\}", c.source)
        ]
        assert not myst_only, f"{doc}.ipynb keeps the build's MyST-only cells: {myst_only}"
        assert setupcell.is_setup(nb.cells[0]), f"{doc}.ipynb: the first cell is not Colab's setup"
        code = [c for c in setupcell.page_cells(nb) if c.cell_type == "code"]
        assert len(code) == entry["code_cells"]
        skipped = {s["cell"] for s in entry["cells_not_executed"]}
        for number, cell in enumerate(code, start=1):
            assert "skip-execution" not in cell.metadata.get("tags", []), (
                f"{doc}.ipynb cell {number} keeps skip-execution"
            )
            if number in skipped or entry["status"] == "not executed":
                assert not cell.outputs, f"{doc}.ipynb cell {number} did not run but has outputs"
            elif entry["status"] in ("executed", "partly executed"):
                assert cell.execution_count is not None, (
                    f"{doc}.ipynb cell {number} ran but has no execution count"
                )
        note = NOTE_RECORDED if entry["status"] == "recorded" else NOTE
        notes = [c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith(note)]
        assert len(notes) == len(skipped), (
            f"{doc}.ipynb: {len(notes)} notes for {len(skipped)} cells that did not run"
        )
        if row is not None:
            assert ipynb.get_text() == "notebook (.ipynb)"
            assert ipynb["download"] == f"{doc.rsplit('/', 1)[-1]}.ipynb"


def test_index_gives_the_reading_order(built_site: Path) -> None:
    # The landing page's tables of contents are hidden (it opens with the quick
    # start); the sidebar shows them, in the order of index.md.
    index = built_site / "index.html"
    toc = [
        resolve(index, a["href"])[0]
        for a in soup(index).select(".sidebar-tree a.reference.internal")
    ]
    listed = [str(p.relative_to(built_site).with_suffix("")) for p in toc]
    missing = [d for d in notebook_docs(built_site) if d not in listed]
    assert not missing, f"notebook pages missing from the index's reading order: {missing}"
    # furo's next/previous links follow the same order, each audience on its own
    # (maintainer pages are out of the readers' chain: trtdocs.site.navigation)
    maintainers = {built_site / f"{d}.html" for d in MAINTAINER_DOCS}
    for group in ([p for p in toc if p not in maintainers], [p for p in toc if p in maintainers]):
        for here, there in pairwise(group):
            nxt = soup(here).select_one("a.next-page")
            assert nxt is not None and resolve(here, nxt["href"])[0] == there, (
                f"{here.name}: next page is not {there.name}"
            )
        assert soup(group[-1]).select_one("a.next-page") is None, (
            f"{group[-1].name} leads out of its audience"
        )


def test_release_note_matches_the_features_table(built_site: Path) -> None:
    note = release_note(load_features(ROOT / "docs" / "features.toml"))
    nav = soup(built_site / "index.html").select_one(".trtdocs-releases")
    text = " ".join(nav.get_text(" ", strip=True).split())
    assert f"Documents Torch-TensorRT {note['documented']}" in text
    # one link, to the release table, and no list that looks like a version switcher
    assert not nav.select("li") and [a["href"].split("#")[1] for a in nav.select("a")] == [
        "releases"
    ]


def test_release_note_names_the_other_lines() -> None:
    table = load_features(ROOT / "docs" / "features.toml")
    assert [(r.key, r.status) for r in table.releases.values()] == [
        ("2.14", "released"),
        ("2.15", "described"),
        ("nightly", "nightly"),
    ]
    note = release_note(table)
    assert (note["documented"], note["date"], note["anchor"]) == ("2.14.0", "2026-09", "releases")
    assert note["others"] == "2.15 (not released) and nightly builds"
    other = release_note(load_features(ROOT / "docs" / "features.toml", "2.15"))
    assert other["documented"] == "2.15.0" and other["others"].startswith("2.14 (released)")


def test_landing_page_links_out_and_has_cards(built_site: Path) -> None:
    index = main_content(built_site / "index.html")
    hrefs = {a["href"] for a in index.find_all("a", href=True)}
    assert {
        "https://pypi.org/project/torch-tensorrt/",
        "https://pypi.org/project/torch-tensorrt-executorch-runtime/",
    } <= hrefs, hrefs
    cards = index.select(".sd-card")
    targets = {
        resolve(built_site / "index.html", a["href"])[0].name
        for c in cards
        for a in c.select("a[href]")
    }
    assert {"run-python.html", "run-cpp.html", "performance.html"} <= targets, targets
    assert index.select(".sd-tab-set"), "no Python/C++ tabs on the landing page"


def _code_cells(path: Path) -> list[str]:
    return [c.source for c in jupytext.read(path).cells if c.cell_type == "code"]


def test_built_prose_follows_the_rules(built_site: Path) -> None:
    bad = [
        f"{page.relative_to(built_site)}: {v}"
        for page in pages(built_site)
        for v in violations(prose_blocks(page))
    ]
    assert not bad, "\n".join(bad)


def test_built_notes_are_not_said_twice_in_a_row(built_site: Path) -> None:
    repeated = []
    for page in pages(built_site):
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for note in soup.find_all("span", class_="trtdocs-feature"):
            between = note.next_sibling
            following = between.next_sibling if between is not None else None
            if (
                isinstance(between, str)
                and between.strip() in {",", ";", "and", "or", ", and", ", or"}
                and getattr(following, "name", None) == "span"
                and "trtdocs-feature" in following.get("class", ())
                and following.get_text(strip=True) == note.get_text(strip=True)
            ):
                repeated.append(
                    f"{page.relative_to(built_site)}: {note.get_text(strip=True)!r} twice"
                )
    assert not repeated, "\n".join(repeated)


KINDS = {"stdout": "stream", "stderr": "stderr"}  # nbformat stream name -> myst-nb's class


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line]


def test_site_shows_each_cells_streams_whole(built_site: Path) -> None:
    """What each code cell wrote, as its page shows it: the same lines as the
    cell's outputs in the page's .ipynb, joined as Jupyter joins them."""
    checked = 0
    for doc in notebook_docs(built_site):
        if provenance(built_site)["notebooks"][doc]["status"] == "not executed":
            continue
        nb = nbformat.read(built_site / f"{doc}.ipynb", as_version=4)
        code = [
            c
            for c in setupcell.page_cells(nb)
            if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])
        ]
        page = BeautifulSoup((built_site / f"{doc}.html").read_text(), "html.parser")
        shown = page.select("div.cell")
        assert len(shown) == len(code), (
            f"{doc}: {len(shown)} cells on the page, {len(code)} in its notebook"
        )
        for number, (cell, html) in enumerate(zip(code, shown, strict=True), start=1):
            tags = set(cell.metadata.get("tags", []))
            for name, css in KINDS.items():
                if tags & {"remove-output", f"remove-{name}"}:
                    continue
                wrote = "".join(
                    o.text for o in cell.outputs if o.output_type == "stream" and o.name == name
                )
                seen = "\n".join(b.get_text() for b in html.select(f"div.output.{css}"))
                # the page leaves out ExecuTorch's cpuinfo lines
                # (trtdocs.output.lognoise), the download keeps them
                expected = terminal_text(wrote)
                expected = quiet(expected) if name == "stderr" else expected
                assert _lines(seen) == _lines(expected), f"{doc} cell {number}: {name} differs"
                checked += bool(wrote)
    assert checked > 10, f"only {checked} stream outputs on the whole site"

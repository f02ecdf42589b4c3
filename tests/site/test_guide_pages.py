"""Issue 20 on the built site, read from its HTML: prose within its word budget,
one style of version note, linked sources in the matrix, the status banner
after the page's opening text and out of the search index, maintainer pages in
their own section, errors with their own anchors, file cells with captions."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from paths import ROOT
from reader_site import notebook_docs, soup
from trtdocs.notebooks import banner

pytestmark = pytest.mark.build
# tools/prose_words.py: the guide's pages together, and each page (COMMON.md contract 3)
TOTAL_WORDS, PAGE_WORDS = 12_000, 1_300
MAINTAINER_DOCS = ("docs/building", "docs/build-report")  # conf.py's trtdocs_maintainer_docs
BANNER_WORDS = (*banner.TITLES.values(), *banner.EARLIER.values())  # the status banner's titles


def _prose_words():
    """tools/prose_words.py, the count the budget is written in (COMMON.md contract 3)."""
    spec = importlib.util.spec_from_file_location("prose_words", ROOT / "tools" / "prose_words.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def over_budget(counts: dict[str, int]) -> list[str]:
    """What breaks the word budget: each page over :data:`PAGE_WORDS`, a total not under
    :data:`TOTAL_WORDS`."""
    problems = [
        f"{page}: {n} words (at most {PAGE_WORDS})"
        for page, n in sorted(counts.items())
        if n > PAGE_WORDS
    ]
    if sum(counts.values()) >= TOTAL_WORDS:
        problems.append(f"all pages: {sum(counts.values())} words (under {TOTAL_WORDS})")
    return problems


def _print_counts(counts: dict[str, int]) -> None:
    width = max(map(len, counts))
    for page, words in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{page:<{width}}  {words:>6}")
    print(f"{'total':<{width}}  {sum(counts.values()):>6}")


@pytest.mark.parametrize(
    "first, others, expected",
    [
        (1_300, 1_150, []),  # 1,300 + 9 x 1,150 = 11,650: within both budgets
        (1_301, 1_150, ["index.html: 1301 words (at most 1300)"]),
        (1_300, 1_200, ["all pages: 12100 words (under 12000)"]),
    ],
    ids=["within", "a-page-over", "total-over"],
)
def test_the_word_budget_catches_a_planted_site(
    tmp_path: Path, first: int, others: int, expected: list[str]
) -> None:
    def page(words: int) -> str:
        # code, outputs, the status banner and its launch row are not prose: 5,000 words of them
        # count for nothing
        return (
            "<html><body><article role='main'><details class='trtdocs-status'><summary>Executed "
            "in this build</summary></details>"
            "<p class='trtdocs-launch no-search'><a>Open in Colab</a> · <a>View source</a></p>"
            + f"<p>{'word ' * words}</p>"
            + f"<div class='highlight'><pre>{'x ' * 2_000}</pre></div>"
            + f"<div class='cell_output'>{'y ' * 3_000}</div></article></body></html>"
        )

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "index.html").write_text(page(first), encoding="utf-8")
    for i in range(9):
        (tmp_path / "notebooks" / f"page{i}.html").write_text(page(others), encoding="utf-8")
    counts = _prose_words().counts(tmp_path)
    assert counts["index.html"] == first
    assert over_budget(counts) == expected


def test_prose_word_counts(built_site: Path) -> None:
    counts = _prose_words().counts(built_site)
    _print_counts(counts)  # shown with pytest -s, and in the report of a failure
    assert len(counts) >= 10, counts
    problems = over_budget(counts)
    assert not problems, "\n".join(problems)


def version_note_problems(html: str) -> list[str]:
    """What breaks the one style of version note on a page's HTML."""
    article = BeautifulSoup(html, "html.parser").select_one("article[role=main]")
    for code in article.select("pre, code, div.highlight"):
        code.replace_with("CODE")
    text = " ".join(article.get_text(" ").split())
    # nothing about the documented release itself, no feature id, one box style
    found = [
        f"says {bad!r}"
        for bad in ("New in 2.14", "Since 2.14", "only in 2.14", "for feature ")
        if bad in text
    ]
    found += [
        f"an old-style note: {box.get('class')}"
        for box in article.select(".versionchanged, .trtdocs-feature-note")
    ]
    found += [
        f"a version note of another style: {box.get('class')}"
        for box in article.select(".trtdocs-version-note")
        if "note" not in box.get("class", [])
    ]
    if re.search(r"(?<![\w)\]])\(\s*\)", text):  # "works ()." where a note went; not "save()"
        found.append("empty parentheses where a note went")
    return found


def test_the_version_note_check_catches_planted_notes() -> None:
    good = (
        "<article role='main'><p>Call <code>save()</code>. Linux only.</p>"
        "<div class='admonition note trtdocs-version-note'><p>Not in 2.14.</p></div></article>"
    )
    assert version_note_problems(good) == []
    bad = (
        "<article role='main'><p>Saving works (New in 2.14; Linux only in 2.14) for feature "
        "pte-save. It loads ().</p><div class='versionchanged'>x</div><div "
        "class='trtdocs-version-note warning'>y</div></article>"
    )
    assert version_note_problems(bad) == [
        "says 'New in 2.14'",
        "says 'only in 2.14'",
        "says 'for feature '",
        "an old-style note: ['versionchanged']",
        "a version note of another style: ['trtdocs-version-note', 'warning']",
        "empty parentheses where a note went",
    ]


def test_one_style_of_version_note(built_site: Path) -> None:
    found = []
    for path in [built_site / "index.html", *sorted(built_site.glob("notebooks/*.html"))]:
        found += [
            f"{path.name}: {p}" for p in version_note_problems(path.read_text(encoding="utf-8"))
        ]
    assert not found, "\n".join(found)


def test_matrix_sources_link_to_what_they_cite(built_site: Path) -> None:
    page = soup(built_site / "docs" / "support-matrix.html")
    evidence = page.select("ul.trtdocs-feature-evidence")
    assert len(evidence) >= 30
    for lst in evidence:
        for item in lst.select("li"):
            text = item.get_text(" ", strip=True)
            links = [a["href"] for a in item.select("a.reference.external")]
            assert links or "No source shows it" in text, text
            assert all(h.startswith("https://") for h in links), links
            assert not re.search(r"#\d+\s+c\d+|\bPRD\b", text), text
    # no feature id shown as text in the feature list (ids are anchors only)
    terms = [dt.get_text(" ", strip=True) for dt in page.select("dl.trtdocs-feature-list > dt")]
    assert "pte-save" not in " ".join(terms) and terms[0].startswith("Save a compiled module")
    # the matrix at a glance: one mark per cell
    cells = page.select("table.trtdocs-support-matrix abbr.trtdocs-cell")
    assert cells and all(c.select_one(".trtdocs-cell-mark") for c in cells)


def test_banner_follows_the_opening_text_and_stays_out_of_search(built_site: Path) -> None:
    for doc in notebook_docs(built_site):
        section = soup(built_site / f"{doc}.html").select_one("article[role=main] section")
        children = [c for c in section.children if getattr(c, "name", None)]
        names = [c.name for c in children[:3]]
        banner = next(i for i, c in enumerate(children) if "trtdocs-status" in c.get("class", []))
        assert children[0].name == "h1" and (banner == 1 or names[1] == "p" and banner == 2), (
            doc,
            names,
        )
    # the banner's words (the build machine's CPU) are in no notebook page's search entry
    index = (built_site / "searchindex.js").read_text(encoding="utf-8")
    data = json.loads(index[index.index("(") + 1 : index.rindex(")")])
    ran = next(
        d
        for d, e in json.loads((built_site / "provenance.json").read_text())["notebooks"].items()
        if e["status"] != "no code cells"
    )  # a page with no code cells names no machine
    machine = soup(built_site / f"{ran}.html").select_one("details.trtdocs-status summary")
    cpu = (
        machine.get_text(" ", strip=True).split("\u00b7")[1].split()[0].lower()
    )  # "AMD EPYC CPU" -> "amd"
    for word in {cpu, "epyc", "xeon"}:
        docs = data["terms"].get(word, [])
        docs = [data["docnames"][i] for i in (docs if isinstance(docs, list) else [docs])]
        assert not [d for d in docs if d.startswith("notebooks/")], (word, docs)


def test_maintainer_pages_have_their_own_section_and_rank_last(built_site: Path) -> None:
    index = soup(built_site / "index.html")
    captions = [c.get_text(strip=True) for c in index.select(".sidebar-tree p.caption")]
    assert captions[-1] == "For maintainers of this site"
    scorer = (built_site / "_static" / "language_data.js").read_text(encoding="utf-8")
    assert "TRTDOCS_MAINTAINER_DOCS" in scorer and all(f'"{d}"' in scorer for d in MAINTAINER_DOCS)


def test_each_error_has_its_own_anchor_and_search_entry(built_site: Path) -> None:
    page = soup(built_site / "notebooks" / "troubleshooting.html")
    rows = page.select("table.trtdocs-data-errors tbody tr")
    ids = [r.get("id") for r in rows]
    assert len(rows) >= 20 and all(ids) and len(set(ids)) == len(ids)
    for row in rows:
        assert row.select_one("td a.headerlink")["href"] == f"#{row['id']}"
    index = (built_site / "searchindex.js").read_text(encoding="utf-8")
    data = json.loads(index[index.index("(") + 1 : index.rindex(")")])
    objects = {name for entries in data["objects"].values() for _, _, _, _, name in entries}
    assert "Error::OperatorMissing" in objects


def test_file_cells_show_as_their_files(built_site: Path) -> None:
    page = soup(built_site / "notebooks" / "run-cpp.html")
    files = page.select(".cell_input .trtdocs-cell-file")
    assert files, "no %%writefile cell shown as its file"
    captions = [
        f.select_one(".code-block-caption .caption-text").get_text(" ", strip=True) for f in files
    ]
    assert "main.cpp" in captions and "CMakeLists.txt" in captions
    for f in files + page.select(".cell_input .trtdocs-cell-shell"):
        code = f.select_one("pre").get_text()
        assert not code.lstrip().startswith("%%"), code[:60]

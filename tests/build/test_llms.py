"""The site as tools read it: a Markdown twin beside every page, llms.txt and
llms-full.txt in reading order, and objects.inv for intersphinx. Pure checks
with planted inputs, a fixture site with a planted unrendered role, and the
real site (``built_site``) read against its own HTML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from paths import ROOT as REPO
from sitebuild import log, sphinx_build
from sites import copy_root
from trtdocs.llms import check, index, twins

ENV = {"TRTDOCS_REPO": str(REPO)}


# -- pure: the check and the index ---------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "found"),
    [
        ("Text.\n\n```{note}\nA note.\n```\n", [(3, "```{note}")]),
        ("Intro.\n\n:::{tip}\nA tip.\n:::\n", [(3, ":::{tip}")]),
        ("See {doc}`export-pte` for more.\n", [(1, "{doc}`export-pte`")]),
        (
            "A list:\n\n- uses {py:func}`torch_tensorrt.save`\n",
            [(3, "{py:func}`torch_tensorrt.save`")],
        ),
    ],
)
def test_planted_markup_is_found_with_its_line(markdown, found):
    assert [(u.line, u.text) for u in check.unrendered(markdown)] == found


@pytest.mark.parametrize(
    "markdown",
    [
        # an example in a code block
        "````markdown\n```{note}\nText.\n```\nSee {doc}`index`.\n````\n",
        "The role `{doc}` takes a page name.\n",  # a code span
        "```python\nd = {x: 1}\n```\n",
        "A set {1, 2} and `code`.\n",  # braces before a code span, with a space
    ],
)
def test_examples_in_code_are_left_alone(markdown):
    assert check.unrendered(markdown) == []


def test_the_message_names_line_and_markup():
    [problem] = check.unrendered("# T\n\nsee {ref}`x`\n")
    assert problem.message() == "line 3: unrendered MyST markup '{ref}`x`'"


def _pages() -> list[index.Page]:
    return [
        index.Page("Start", "Home", "index.html.md", "# Home\n\nThe guide, in short. More text.\n"),
        index.Page(
            "Start",
            "First",
            "first.html.md",
            "# First\n\n> **Note**\n> a quote\n\nFirst page. Yes.\n",
        ),
        index.Page("Run it", "Run", "run.html.md", "# Run\n\n```text\nno prose\n```\n"),
    ]


def test_llms_txt_lists_pages_in_order_under_their_sections():
    text = index.llms_txt("Guide", "The guide, in short.", _pages())
    tokens = MarkdownIt("commonmark").parse(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == ["Guide", "Start", "Run it"]
    items = [line for line in text.splitlines() if line.startswith("- ")]
    assert items == [
        "- [Home](index.html.md): The guide, in short.",
        "- [First](first.html.md): First page.",  # the quote (a note) is passed over
        "- [Run](run.html.md)",
    ]  # no prose: no description
    assert f"[{index.LLMS_FULL_TXT}]({index.LLMS_FULL_TXT})" in text


def test_llms_full_txt_holds_every_twin_in_order():
    text = index.llms_full_txt("Guide", "Summary.", _pages())
    places = [text.index(f"<!-- {p.url} -->\n\n{p.twin.strip()}") for p in _pages()]
    assert places == sorted(places)


def test_twin_names_sit_beside_the_html():
    assert twins.twin_name("notebooks/export-pte.html") == "notebooks/export-pte.html.md"


# -- a fixture site ------------------------------------------------------------------


def _build(tmp_path: Path, extra: str = "") -> tuple[Path, str, int]:
    root = copy_root("llms", tmp_path)
    if extra:
        page = root / "first.md"
        page.write_text(page.read_text(encoding="utf-8") + extra, encoding="utf-8")
    result = sphinx_build(root, root / "_build", env=ENV)
    return root / "_build" / "html", log(result), result.returncode


@pytest.mark.build
def test_the_fixture_site_has_twins_and_an_index(tmp_path):
    html, text, rc = _build(tmp_path)
    assert rc == 0, text[-4000:]
    llms = (html / "llms.txt").read_text(encoding="utf-8")
    assert [
        line.split("(")[1].split(")")[0] for line in llms.splitlines() if line.startswith("- [")
    ] == ["index.html.md", "first.html.md", "run.html.md"]
    assert "## Start" in llms and "## Run it" in llms
    first = (html / "first.html.md").read_text(encoding="utf-8")
    assert "[Run it](run.html.md)" in first  # a link between pages goes to the other twin
    assert "A note MyST renders as a box." in first and "A tip written with a colon fence." in first
    assert "**Changed in 2.14**" in first and "A version note as a generic admonition." in first
    assert "```{note}" in first  # the example in the code block, as written
    assert re.search(
        r"^#+ fixture\.greet\(name: str\) → str\n\nSay hello to `name`\.", first, re.M
    ), first
    assert check.unrendered(first) == []
    run = (html / "run.html.md").read_text(encoding="utf-8")
    assert re.search(r"\*Output\*\n+```text\nhello from the fixture\n```", run), run
    assert re.search(r"\*Output\*\n+```text\n42\n```", run), run
    assert re.search(r"\*Output \(stderr\)\*\n+```text\nto stderr\n```", run), run
    head = BeautifulSoup((html / "run.html").read_text(encoding="utf-8"), "html.parser").head
    assert head.find("link", rel="alternate", type="text/markdown")["href"] == "run.html.md"
    full = (html / "llms-full.txt").read_text(encoding="utf-8")
    assert full.index("# The llms fixture") < full.index("# First page") < full.index("# Run it")


@pytest.mark.build
def test_a_planted_unrendered_role_fails_the_build(tmp_path):
    """Text that reads as a role once rendered (an escaped brace, as a data file's
    text inserted without parsing would be) fails, naming the page and twin line."""
    html, text, rc = _build(tmp_path, "\nPlanted: \\{doc}`index` stays as text.\n")
    assert rc != 0
    assert re.search(
        r"first\.md: ERROR: its Markdown twin holds line \d+: unrendered MyST markup "
        r"'\{doc\}`index`'",
        text,
    ), text[-3000:]


# -- the real site -------------------------------------------------------------------


def _guide_pages(built_site: Path) -> list[str]:
    """The pages of llms.txt, as their HTML files."""
    text = (built_site / index.LLMS_TXT).read_text(encoding="utf-8")
    return [
        m.group(1).removesuffix(twins.SUFFIX)
        for m in re.finditer(r"^- \[[^]]+\]\(([^)]+)\)", text, re.M)
    ]


def _toctree_order(built_site: Path) -> list[str]:
    """The pages the sidebar lists, in its order (the root toctree, depth first)."""
    nav = BeautifulSoup((built_site / "index.html").read_text(encoding="utf-8"), "html.parser")
    tree = nav.find(class_="sidebar-tree")
    hrefs = [a["href"].split("#")[0] for a in tree.find_all("a", class_="reference")]
    return ["index.html", *dict.fromkeys(h for h in hrefs if h and h != "#")]


@pytest.mark.build
def test_llms_txt_lists_every_guide_page_in_reading_order(built_site):
    pages = _guide_pages(built_site)
    assert pages == _toctree_order(built_site)
    assert "notebooks/export-pte.html" in pages and "docs/api/torch_tensorrt.html" in pages
    for page in pages:
        assert (built_site / twins.twin_name(page)).is_file(), page


def _twin_and_html(built_site: Path, page: str) -> tuple[str, BeautifulSoup]:
    twin = (built_site / twins.twin_name(page)).read_text(encoding="utf-8")
    return twin, BeautifulSoup((built_site / page).read_text(encoding="utf-8"), "html.parser")


def _words(text: str) -> str:
    return " ".join(re.sub(r"\x1b\[[0-9;]*m", "", text).split())


def _prose(twin: str) -> str:
    """A twin's text as words: no Markdown escapes, emphasis, code ticks or quote marks."""
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>|])", r"\1", twin)
    text = re.sub(r"(?m)^>[ ]?", "", text)
    return _words(text.replace("**", "").replace("`", ""))


def _fragments(element) -> list[str]:
    """The pieces of text an element shows, each long enough to say something."""
    return [_words(s) for s in element.stripped_strings if len(s) >= 12]


@pytest.mark.build
def test_each_twin_carries_its_pages_outputs_marks_notes_and_provenance(built_site):
    """Read against the page's own HTML: each executed output, each not-run
    mark with its reasons, the status banner with its provenance line, and
    each version note."""
    counts = {"outputs": 0, "folded": 0, "notes": 0}
    for page in _guide_pages(built_site):
        twin, html = _twin_and_html(built_site, page)
        assert check.unrendered(twin) == [], page
        raw, prose = _words(twin), _prose(twin)
        article = html.find("article")
        for out in article.select("div.cell_output pre"):
            assert _words(out.get_text()) in raw, (
                f"{page}: output not in its twin: {out.get_text()[:200]!r}"
            )
            counts["outputs"] += 1
        # the not-run marks, and the status in the footer
        for box in article.select("details") + html.select(".trtdocs-page-status details"):
            missing = [s for s in _fragments(box) if s not in prose]
            assert not missing, f"{page}: a mark or banner's text not in its twin: {missing}"
            counts["folded"] += 1
        for note in article.select(
            ".trtdocs-feature-note, .trtdocs-version-note, .versionmodified"
        ):
            missing = [s for s in _fragments(note) if s not in prose]
            assert not missing, f"{page}: a version note's text not in its twin: {missing}"
            counts["notes"] += 1
    assert counts["outputs"] > 20 and counts["folded"] > 10 and counts["notes"] > 0, counts


@pytest.mark.build
def test_the_inventory_lists_the_documented_entries_and_pages(built_site):
    """objects.inv, read as intersphinx reads it, holds the reference's entries
    (those docs/api/index.md names) and the guide's pages."""
    from sphinx.util.inventory import InventoryFile

    inventory = InventoryFile.loads(
        (built_site / "objects.inv").read_bytes(), uri="https://example.invalid/guide/"
    )
    data = inventory.data
    functions, classes, docs = data["py:function"], data["py:class"], data["std:doc"]
    assert functions["torch_tensorrt.save"].uri == (
        "https://example.invalid/guide/docs/api/torch_tensorrt.html#torch_tensorrt.save"
    )
    assert (
        "torch_tensorrt.compile" in functions
        and "executorch.exir.to_edge_transform_and_lower" in functions
    )
    assert "executorch.runtime.Runtime" in classes and "torch_tensorrt.Input" in classes
    assert "executorch.runtime.Method.execute" in data["py:method"]
    assert (
        docs["notebooks/export-pte"].uri
        == "https://example.invalid/guide/notebooks/export-pte.html"
    )
    section = (
        (REPO / "docs" / "api" / "index.md")
        .read_text(encoding="utf-8")
        .split("## Link to this guide")[1]
    )
    for role, name in re.findall(r":py:(func|class):`([\w.]+)`", section):
        assert name in data[f"py:{'function' if role == 'func' else 'class'}"], name


@pytest.mark.build
def test_llms_files_stand_when_nothing_they_are_made_from_changed(tmp_path):
    html, text, rc = _build(tmp_path)
    assert rc == 0, text[-4000:]
    llms = html / "llms.txt"
    made = llms.read_text(encoding="utf-8")
    # a file that is not the one last written (an older site copied back, say) is made again
    llms.write_text("planted\n", encoding="utf-8")
    result = sphinx_build(tmp_path / "llms", tmp_path / "llms" / "_build", env=ENV)
    assert result.returncode == 0, log(result)[-4000:]
    assert llms.read_text(encoding="utf-8") == made
    # nothing changed: the files stand as written
    stamp = llms.stat().st_mtime_ns
    result = sphinx_build(tmp_path / "llms", tmp_path / "llms" / "_build", env=ENV)
    assert result.returncode == 0, log(result)[-4000:]
    assert llms.stat().st_mtime_ns == stamp and llms.read_text(encoding="utf-8") == made

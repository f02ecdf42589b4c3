"""The site as tools read it: a Markdown twin beside every page, llms.txt and
llms-full.txt in reading order, and objects.inv for intersphinx. Pure checks
with planted inputs, a fixture site with a planted unrendered role, and the
real site (``built_site``) read against its own HTML."""

from __future__ import annotations

import contextlib
import functools
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import llms_txt
import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

import mdlinks
from paths import ROOT as REPO
from sitebuild import log, sphinx_build
from sites import copy_root
from trtdocs.features.validate import load as load_features
from trtdocs.llms import index
from trtdocs.llms.sphinx import TOOLS_CLASS
from trtdocs.markdown import doctree as twins
from trtdocs.markdown import leftovers, source

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
    assert [(u.line, u.text) for u in leftovers.find(markdown)] == found


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
    assert leftovers.find(markdown) == []


def test_the_message_names_line_and_markup():
    [problem] = leftovers.find("# T\n\nsee {ref}`x`\n")
    assert problem.message() == "line 3: unrendered MyST markup '{ref}`x`' (the role {ref})"


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


def test_llms_txt_with_a_base_url_is_absolute_and_keeps_optional_last():
    pages = [
        index.Page("Start", "Home", "https://h.example/g/index.html.md", "# Home\n\nHome.\n"),
        index.Page(
            index.OPTIONAL, "Build", "https://h.example/g/docs/b.html.md", "# B\n\nBuilds.\n"
        ),
    ]
    text = index.llms_txt("Guide", "Summary.", pages, "https://h.example/g/")
    hrefs = re.findall(r"\]\(([^)]+)\)", text)
    assert hrefs == [
        "https://h.example/g/llms-full.txt",
        "https://h.example/g/index.html.md",
        "https://h.example/g/docs/b.html.md",
    ]
    assert text.rstrip().endswith(
        "## Optional\n\n- [Build](https://h.example/g/docs/b.html.md): Builds."
    )


def test_a_summary_that_introduces_code_ends_in_a_full_stop():
    twin = (
        '<a id="x"></a>\n\n# Save\n\n`save()` writes a `.pte` in one call:\n\n```python\nx\n```\n'
    )
    assert index.description(twin) == "`save()` writes a `.pte` in one call."


TWIN = """# Page

See [Install](install.html.md), [its section](install.html.md#keep), [here](#top),
[the API](../docs/api/x.html.md#x.f) and [out](https://example.org/a.html).

| Error | Fix |
| --- | --- |
| <a id="e1"></a>`E1` | Read [Install](install.html.md#keep). |

![A picture](../_images/a.png)

Code keeps its text: `[x](install.html.md)`.

```markdown
[x](install.html.md)
```
"""


def test_a_twins_links_in_llms_full_txt_work_from_the_sites_root():
    out = index.rebase(TWIN, "notebooks/page.html.md")
    assert mdlinks.links(out) == [
        "notebooks/install.html.md",
        "notebooks/install.html.md#keep",
        "notebooks/page.html.md#top",
        "docs/api/x.html.md#x.f",
        "https://example.org/a.html",
        "notebooks/install.html.md#keep",
        "_images/a.png",
    ]
    assert "`[x](install.html.md)`" in out and "```markdown\n[x](install.html.md)\n```" in out
    absolute = index.rebase(TWIN, "notebooks/page.html.md", "https://h.example/g/")
    assert mdlinks.links(absolute)[:2] == [
        "https://h.example/g/notebooks/install.html.md",
        "https://h.example/g/notebooks/install.html.md#keep",
    ]
    # at the root, only a bare #fragment changes: it names its twin
    assert index.rebase(TWIN, "index.html.md") == TWIN.replace("](#top)", "](index.html.md#top)")


def test_twin_names_sit_beside_the_html():
    assert twins.twin_name("notebooks/export-pte.html") == "notebooks/export-pte.html.md"


# -- a fixture site ------------------------------------------------------------------


def _build(
    tmp_path: Path, extra: str = "", env: dict[str, str] | None = None
) -> tuple[Path, str, int]:
    root = copy_root("llms", tmp_path)
    if extra:
        page = root / "first.md"
        page.write_text(page.read_text(encoding="utf-8") + extra, encoding="utf-8")
    result = sphinx_build(root, root / "_build", env={**ENV, **(env or {})})
    return root / "_build" / "html", log(result), result.returncode


@pytest.mark.build
def test_the_fixture_site_has_twins_and_an_index(tmp_path):
    html, text, rc = _build(tmp_path)
    assert rc == 0, text[-4000:]
    llms = (html / "llms.txt").read_text(encoding="utf-8")
    assert [
        line.split("(")[1].split(")")[0] for line in llms.splitlines() if line.startswith("- [")
    ] == [
        "index.html.md",
        "first.html.md",
        "run.html.md",
        "guide/deeper.html.md",
        "maintain.html.md",
    ]
    assert "## Start" in llms and "## Run it" in llms and "## Optional" in llms
    first = (html / "first.html.md").read_text(encoding="utf-8")
    assert "[Run it](run.html.md)" in first  # a link between pages goes to the other twin
    assert "A note MyST renders as a box." in first and "A tip written with a colon fence." in first
    assert "**Changed in 2.14**" in first and "A version note as a generic admonition." in first
    assert "```{note}" in first  # the example in the code block, as written
    assert re.search(
        r"^#+ fixture\.greet\(name: str\) → str\n\nSay hello to `name`\.", first, re.M
    ), first
    assert leftovers.find(first) == []
    run = (html / "run.html.md").read_text(encoding="utf-8")
    assert re.search(r"\*Output\*\n+```text\nhello from the fixture\n```", run), run
    assert re.search(r"\*Output\*\n+```text\n42\n```", run), run
    assert re.search(r"\*Output \(stderr\)\*\n+```text\nto stderr\n```", run), run
    head = BeautifulSoup((html / "run.html").read_text(encoding="utf-8"), "html.parser").head
    assert head.find("link", rel="alternate", type="text/markdown")["href"] == "run.html.md"
    full = (html / "llms-full.txt").read_text(encoding="utf-8")
    assert full.index("# The llms fixture") < full.index("# First page") < full.index("# Run it")


@pytest.mark.build
def test_every_link_of_the_fixture_sites_markdown_works(tmp_path):
    """From each twin, and from llms-full.txt where every twin is rebased: each link's
    file is there and each #fragment lands (an API entry, a labelled section whose
    title has an apostrophe). Each page's foot links its twin and llms.txt."""
    html, text, rc = _build(tmp_path)
    assert rc == 0, text[-4000:]
    twins_ = sorted(html.rglob("*.html.md"))
    report = mdlinks.check(html, twins_)
    assert report.broken == []
    deeper = (html / "guide" / "deeper.html.md").read_text(encoding="utf-8")
    assert (
        "(../first.html.md#fixture.greet)" in deeper and "(../first.html.md#cache-value)" in deeper
    )
    assert report.fragments[0] >= 2
    full = mdlinks.check(html, [html / index.LLMS_FULL_TXT])
    assert full.broken == [] and len(full.working) == len(report.working)
    for page in ("first.html", "guide/deeper.html"):
        line = BeautifulSoup((html / page).read_text(encoding="utf-8"), "html.parser").find(
            class_=TOOLS_CLASS
        )
        hrefs = [a["href"] for a in line.find_all("a")]
        assert [(html / page).parent.joinpath(h).resolve() for h in hrefs] == [
            (html / twins.twin_name(page)).resolve(),
            (html / index.LLMS_TXT).resolve(),
        ]
    assert TOOLS_CLASS not in (html / "first.html.md").read_text(encoding="utf-8")


@pytest.mark.build
def test_a_twin_and_a_download_write_each_form_alike(tmp_path):
    """One meaning per directive: the tabs, the warning and the diagram of a page read
    the same in its twin (from the doctree) and rendered from its source (as a
    download is)."""
    html, text, rc = _build(tmp_path)
    assert rc == 0, text[-4000:]
    page = (REPO / "tests" / "roots" / "test-llms" / "guide" / "deeper.md").read_text(
        encoding="utf-8"
    )
    ctx = source.Context(
        features=load_features(REPO / "docs" / "features.toml"),
        data_dir=REPO / "docs" / "data",
        page="guide/deeper",
        suffix=".md",
        titles={},
        labels={},
        notebooks=frozenset(),
        extlinks={},
    )
    rendered = source.render(page[page.index("::::{tab-set}") :], ctx)
    twin = (html / "guide" / "deeper.html.md").read_text(encoding="utf-8")
    forms_ = rendered.split("\n\n")
    assert len(forms_) == 7, rendered  # 2 labels, 2 fences, the quote, the alt text, the source
    for form in forms_:
        assert form in twin, form


@contextlib.contextmanager
def _served(folder: Path, path: str) -> Iterator[tuple[str, list[str]]]:
    """``folder`` served over HTTP at ``path`` on this machine: its base URL, and the
    paths asked for."""
    asked: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def translate_path(self, url: str) -> str:
            asked.append(url)
            rest = url.split("?")[0].removeprefix(path)
            return str(folder / rest) if rest != url else str(folder / "missing")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}", asked
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.build
def test_the_reference_llms_txt_client_loads_every_document(tmp_path, monkeypatch):
    """llms-txt's ``create_ctx`` (what ``llms_txt2ctx`` prints) on the built
    llms.txt of a site served at its base URL: it fetches every twin, the
    Optional section's when asked, and the context holds each one's text."""
    for proxy in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
        monkeypatch.delenv(proxy.upper(), raising=False)
    monkeypatch.chdir(tmp_path)  # the client reads an nbdev project's files from the cwd's
    root = tmp_path / "llms"
    with _served(root / "_build" / "html", "/guide/") as (base, asked):
        html, text, rc = _build(tmp_path, env={"TRTDOCS_BASEURL": base})
        assert rc == 0, text[-4000:]
        llms = (html / index.LLMS_TXT).read_text(encoding="utf-8")
        parsed = llms_txt.parse_llms_file(llms)
        urls = [link["url"] for links in parsed.sections.values() for link in links]
        assert len(urls) == 5 and all(u.startswith(base) for u in urls), urls
        context = llms_txt.create_ctx(llms, optional=True)
        assert [p for p in asked if p.endswith(".html.md")] != []
        fetched = sorted(p for p in asked if p.endswith(".html.md"))
        assert fetched == sorted(u.removeprefix(base[: base.index("/guide/")]) for u in urls)
        assert context.count("<doc ") == len(urls)
        for url in urls:
            twin = (html / url.removeprefix(base)).read_text(encoding="utf-8")
            title = twin.split("\n", 1)[0]
            assert title in context, url
        asked.clear()
        llms_txt.create_ctx(llms)  # the tool's default leaves the Optional section out
        assert sorted(asked) == sorted(
            u.removeprefix(base[: base.index("/guide/")]) for u in urls if "maintain" not in u
        )
        full = mdlinks.check(html, [html / index.LLMS_FULL_TXT], base=base)
    assert full.broken == [] and full.working


@pytest.mark.build
def test_the_reference_client_fails_on_a_site_without_a_base_url(tmp_path, monkeypatch):
    """The check above, proven: the links of a build without a base URL are relative,
    and the client stops at the first."""
    monkeypatch.chdir(tmp_path)
    html, text, rc = _build(tmp_path)
    assert rc == 0, text[-4000:]
    with pytest.raises(httpx.UnsupportedProtocol):
        llms_txt.create_ctx((html / index.LLMS_TXT).read_text(encoding="utf-8"))


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
        assert leftovers.find(twin) == [], page
        raw, prose = _words(twin), _prose(twin)
        article = html.find("article")
        for out in article.select("div.cell_output pre"):
            assert _words(out.get_text()) in raw, (
                f"{page}: output not in its twin: {out.get_text()[:200]!r}"
            )
            counts["outputs"] += 1
        for box in article.select("details"):  # the status banner and the not-run marks
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


@pytest.mark.build
def test_every_link_of_the_sites_twins_and_llms_full_txt_works(built_site):
    """Read as a Markdown tool reads them: every link of every twin, and of
    llms-full.txt, names a file that is there, and every #fragment lands (API
    entries, sections whose title has an apostrophe, the troubleshooting table's
    rows, which hold no stray "¶" link)."""
    twins_ = sorted(built_site.rglob("*.html.md"))
    report = mdlinks.check(built_site, twins_)
    assert report.broken == [], report.broken[:10]
    landed, fragments = report.fragments
    assert landed == fragments > 300
    full = mdlinks.check(built_site, [built_site / index.LLMS_FULL_TXT])
    assert full.broken == [], full.broken[:10]
    assert len(full.working) == len(report.working)
    trouble = (built_site / "notebooks" / "troubleshooting.html.md").read_text(encoding="utf-8")
    assert "¶" not in trouble and '<a id="error-not-registered"></a>' in trouble
    api = (built_site / "docs" / "api" / "index.html.md").read_text(encoding="utf-8")
    spans = [
        t.content
        for block in MarkdownIt("commonmark").parse(api)
        for t in block.children or ()
        if t.type == "code_inline"
    ]
    assert "{py:func}`torch_tensorrt.save`" in spans


@pytest.mark.build
def test_each_page_links_its_twin_and_llms_txt(built_site):
    for page in _guide_pages(built_site):
        html = BeautifulSoup((built_site / page).read_text(encoding="utf-8"), "html.parser")
        line = html.find(class_=TOOLS_CLASS)
        assert line is not None and line.find_parent("article") is not None, page
        hrefs = [a["href"] for a in line.find_all("a")]
        assert [(built_site / page).parent.joinpath(h).resolve() for h in hrefs] == [
            (built_site / twins.twin_name(page)).resolve(),
            (built_site / index.LLMS_TXT).resolve(),
        ], page

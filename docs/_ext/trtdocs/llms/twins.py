"""A page's Markdown twin, from the page as the HTML builder resolved it.

The translation is sphinx-markdown-builder's (:class:`MarkdownTranslator`),
run on a copy of each resolved page, so the twin holds what the HTML page
holds: the executed outputs, the status banner with the outputs' provenance,
the marks on cells that did not run with their reasons, the version notes
and the "Used in" lists. :func:`plain` first rewrites what only this site
and its extensions make into nodes the translator knows:

* a folded block (banner, mark) becomes a quote: its summary in bold, then its body;
* a generic admonition (version notes, errata) becomes a quote with its title in bold;
* a cell's outputs get an "Output" line and a ``text`` fence, without ANSI colours;
* a graphviz diagram becomes its ``dot`` source;
* a download link becomes a link; a tab's label a paragraph in bold;
* internal links point at the other twins (``page.html#x`` -> ``page.html.md#x``);
* images point at the copies the HTML builder made in ``_images/``.

A node neither the translator nor :func:`plain` knows is read through: its
children are translated, so no text is dropped.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx_markdown_builder.translator import MarkdownTranslator

from ..output.folding import download_link, folded, folded_summary

if TYPE_CHECKING:
    from sphinx.builders import Builder

SUFFIX = ".md"  # a twin is its page's HTML file name with this appended (llmstxt.org)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CODE_LANGUAGES = {"ipython3": "python", "ipython": "python", "python3": "python", "myst-ansi": "text",
                   "ipythontb": "text", "none": "text", "default": "text"}
_OUTPUT_WORDS = {"stderr": "Output (stderr)", "traceback": "Output (error)"}


def twin_name(html_name: str) -> str:
    """``notebooks/export-pte.html`` -> ``notebooks/export-pte.html.md``."""
    return html_name + SUFFIX


def _quote(title: list[nodes.Node], body: list[nodes.Node], classes: list[str]) -> nodes.block_quote:
    quote = nodes.block_quote(classes=classes)
    if title:
        quote += nodes.paragraph("", "", nodes.strong("", "", *title))
    quote.extend(body)
    return quote


def _twin_uri(uri: str) -> str:
    """An internal link to a page, as a link to that page's twin."""
    path, hash_, fragment = uri.partition("#")
    if path.endswith(".html") and "://" not in path:
        path = twin_name(path)
    return path + hash_ + fragment


def plain(doctree: nodes.document, docname: str, images: dict[str, str], imagedir: str) -> None:
    """Rewrite ``doctree`` (a copy of the resolved page) into nodes the translator knows."""
    for box in list(doctree.findall(folded)):
        summary = box.next_node(folded_summary)
        title = list(summary.children) if summary is not None else []
        body = [child for child in box.children if child is not summary]
        box.replace_self(_quote(title, body, box["classes"]))
    for admonition in list(doctree.findall(nodes.admonition)):
        title = admonition.next_node(nodes.title)
        body = [child for child in admonition.children if child is not title]
        admonition.replace_self(_quote(list(title.children) if title is not None else [], body,
                                       admonition["classes"]))
    for link in list(doctree.findall(download_link)):
        link.replace_self(nodes.reference("", link.astext(), refuri=link["refuri"], internal=False))
    for container in list(doctree.findall(nodes.container)):
        if container.get("nb_element") == "cell_code_output":
            for block in container.findall(nodes.literal_block):
                kind = next((c for c in block["classes"] if c in _OUTPUT_WORDS), "")
                block.parent.insert(block.parent.index(block),
                                    nodes.paragraph("", "", nodes.emphasis(text=_OUTPUT_WORDS.get(kind, "Output"))))
    for block in doctree.findall(nodes.literal_block):
        text = _ANSI.sub("", block.astext())
        language = block.get("language", "")
        block.children = [nodes.Text(text)]
        block["language"] = _CODE_LANGUAGES.get(language, language)
    for node in list(doctree.findall(lambda n: type(n).__name__ == "graphviz")):
        node.replace_self(nodes.literal_block(node["code"], node["code"], language="dot"))
    for node in list(doctree.findall(lambda n: type(n).__name__ == "PassthroughTextElement")):
        node.replace_self(nodes.paragraph("", "", nodes.strong("", "", *node.children)))
    for caption in list(doctree.findall(nodes.caption)):
        caption.replace_self(nodes.paragraph("", "", nodes.emphasis("", "", *caption.children)))
    for ref in doctree.findall(nodes.reference):
        if ref.get("internal") and ref.get("refuri"):
            ref["refuri"] = _twin_uri(ref["refuri"])
    for image in doctree.findall(nodes.image):
        if image["uri"] in images:
            target = posixpath.join(imagedir, images[image["uri"]])
            image["uri"] = posixpath.relpath(target, posixpath.dirname(docname) or ".")


class TwinTranslator(MarkdownTranslator):
    """sphinx-markdown-builder's translator, reading through the nodes it does not know."""

    def unknown_visit(self, node: nodes.Node) -> None:
        pass  # its children are translated in its place

    def unknown_departure(self, node: nodes.Node) -> None:
        pass

    def visit_raw(self, node: nodes.raw) -> None:
        if "html" in node.get("format", "").split():
            self.add(node.astext(), prefix_eol=1, suffix_eol=1)  # Markdown keeps HTML as it is
        raise nodes.SkipNode


class TwinBuilder:
    """What the translator asks of its builder, for pages the HTML builder writes."""

    download_dir = "_downloads"

    def __init__(self, builder: Builder, docname: str) -> None:
        self.config, self.env = builder.config, builder.env
        self.current_doc_name = docname
        self.sec_numbers: dict[str, Any] = {}

    def get_target_uri(self, docname: str, typ: str | None = None) -> str:
        return twin_name(f"{docname}.html")


def markdown(doctree: nodes.document, docname: str, builder: Builder) -> str:
    """The twin of the resolved page ``doctree``; the doctree itself is left as it is."""
    copy = doctree.deepcopy()
    plain(copy, docname, dict(builder.images), builder.imagedir or "_images")
    translator = TwinTranslator(copy, TwinBuilder(builder, docname))
    copy.walkabout(translator)
    return translator.astext()

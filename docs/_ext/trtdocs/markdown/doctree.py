"""A page's Markdown twin, from the page as the HTML builder resolved it.

The translation is sphinx-markdown-builder's (:class:`MarkdownTranslator`),
run on a copy of each resolved page, so the twin holds what the HTML page
holds: the executed outputs, the status banner with the outputs' provenance,
the marks on cells that did not run with their reasons, the version notes
and the "Used in" lists. :func:`plain` first rewrites each node the site means
otherwise than the translator writes it: it looks the node up in
:mod:`.meanings` (:func:`meaning`) and makes it into its form, written as
:mod:`.forms` writes it for a download:

* a quote (a folded block: banner, mark; an admonition: a note, a version note,
  an erratum): its title in bold (a folded block's summary), then its body;
* a cell's outputs: each after an "Output" line, in a ``text`` fence, without
  ANSI colours;
* a diagram: its alt text and its ``dot`` source (its wide layout:
  :mod:`trtdocs.site.dotgraphs`); a tab's or a card's label in bold;
* a download link: a link.

Then it rewrites links: to pages, to the other twins (``page.html#x`` ->
``page.html.md#x``); to images, to the copies the HTML builder made in
``_images/``. The translator gives each API entry, each section whose id a
Markdown reader's heading slug would miss, and each anchored table row an
``<a id>``, so that every ``#fragment`` of a link lands. A node neither the
translator nor :mod:`.meanings` knows is read through: its children are
translated, so no text is dropped.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx_markdown_builder.contexts import IndentContext, SubContextParams
from sphinx_markdown_builder.translator import (
    MarkdownTranslator,
    pushing_context,
    pushing_status,
)

from ..output.folding import folded, folded_summary
from ..site.dotgraphs import wide
from . import forms, meanings
from .meanings import Form, Meaning

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.builders import Builder

SUFFIX = ".md"  # a twin is its page's HTML file name with this appended (llmstxt.org)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CODE_LANGUAGES = {
    "ipython3": "python",
    "ipython": "python",
    "python3": "python",
    "myst-ansi": "text",
    "ipythontb": "text",
    "none": "text",
    "default": "text",
}
_OUTPUT_WORDS = {"stderr": "Output (stderr)", "traceback": "Output (error)"}
HEADERLINK = "headerlink"  # the class of a row's or heading's "¶" link: HTML only


def twin_name(html_name: str) -> str:
    """``notebooks/export-pte.html`` -> ``notebooks/export-pte.html.md``."""
    return html_name + SUFFIX


def meaning(node: nodes.Node) -> Meaning | None:
    """What a node means in Markdown (:data:`.meanings.NODES`), by its kind."""
    if not isinstance(node, nodes.Element):
        return None
    key = meanings.node_key([c.__name__ for c in type(node).__mro__], node.get("nb_element", ""))
    return meanings.NODES[key] if key is not None else None


def _quote(
    title: list[nodes.Node], body: list[nodes.Node], classes: list[str]
) -> nodes.block_quote:
    """The quote form (:func:`.forms.quote`) as nodes: the title paragraph in bold
    (unless it has bold words of its own: the banner's status), then the body."""
    quote = nodes.block_quote(classes=classes)
    if title:
        bold = any(
            isinstance(n, nodes.strong) for node in title for n in node.findall(nodes.strong)
        )
        quote += (
            nodes.paragraph("", "", *title)
            if bold
            else nodes.paragraph("", "", nodes.strong("", "", *title))
        )
    quote.extend(body)
    return quote


def _as_quote(node: nodes.Element) -> None:
    if isinstance(node, folded_summary):
        return  # its folded block makes it the quote's title
    if isinstance(node, folded):
        summary = node.next_node(folded_summary)
        words = list(summary.children) if summary is not None else []
        body = [child for child in node.children if child is not summary]
        node.replace_self(_quote(words, body, node["classes"]))
        return
    title = next((c for c in node.children if isinstance(c, nodes.title)), None)
    body = [child for child in node.children if child is not title]
    words = (
        list(title.children)
        if title is not None
        else [nodes.Text(forms.admonition_title(type(node).__name__))]
    )
    node.replace_self(_quote(words, body, node["classes"]))


def _as_link(node: nodes.Element) -> None:
    node.replace_self(nodes.reference("", node.astext(), refuri=node["refuri"], internal=False))


def _outputs(node: nodes.Element) -> None:
    """Each output of a cell after its "Output" line."""
    for block in list(node.findall(nodes.literal_block)):  # a list: the loop inserts siblings
        kind = next((c for c in block["classes"] if c in _OUTPUT_WORDS), "")
        block.parent.insert(
            block.parent.index(block),
            nodes.paragraph("", "", nodes.emphasis(text=_OUTPUT_WORDS.get(kind, "Output"))),
        )


def _as_diagram(node: nodes.Element) -> None:
    """Its alt text and source (:func:`.forms.diagram`); a caption follows as the figure's."""
    figure = node.parent if isinstance(node.parent, nodes.figure) else None
    caption = figure.next_node(nodes.caption) if figure is not None else None
    alt = node.get("alt") or (caption.astext() if caption is not None else "") or "diagram"
    code = wide(node["code"])  # a second graph is the site's layout for phones
    node.replace_self(nodes.raw("", forms.diagram(alt, code), format="markdown"))


def _as_label(node: nodes.Element) -> None:
    node.replace_self(nodes.paragraph("", "", nodes.strong("", "", *node.children)))


def _as_nothing(node: nodes.Element) -> None:
    node.parent.remove(node)


# Each form a node takes that the translator does not write on its own.
_REWRITES: dict[Form, Callable[[nodes.Element], None]] = {
    Form.QUOTE: _as_quote,
    Form.LINK: _as_link,
    Form.CELL: _outputs,
    Form.DIAGRAM: _as_diagram,
    Form.LABELLED: _as_label,
    Form.NOTHING: _as_nothing,
}


def _twin_uri(uri: str) -> str:
    """An internal link to a page, as a link to that page's twin."""
    path, hash_, fragment = uri.partition("#")
    if path.endswith(".html") and "://" not in path:
        path = twin_name(path)
    return path + hash_ + fragment


def _attached(node: nodes.Node, doctree: nodes.document) -> bool:
    while node.parent is not None:
        node = node.parent
    return node is doctree


def _row_anchors(doctree: nodes.document) -> None:
    """A table row's id as an ``<a id>`` in its first cell, where the HTML has its "¶" link."""
    for link in [r for r in doctree.findall(nodes.reference) if HEADERLINK in r["classes"]]:
        link.parent.remove(link)
    for row in doctree.findall(nodes.row):
        para = next(row.findall(nodes.paragraph), None) if row["ids"] else None
        if para is not None:
            anchors = "".join(f'<a id="{i}"></a>' for i in row["ids"])
            para.insert(0, nodes.raw("", anchors, format="html"))


def plain(doctree: nodes.document, docname: str, images: dict[str, str], imagedir: str) -> None:
    """Rewrite ``doctree`` (a copy of the resolved page) into nodes the translator knows."""
    for node in list(doctree.findall(nodes.Element)):
        rewrite = _REWRITES.get(m.form) if (m := meaning(node)) is not None else None
        if rewrite is not None and _attached(node, doctree):
            rewrite(node)
    _row_anchors(doctree)
    for block in doctree.findall(nodes.literal_block):
        text = _ANSI.sub("", block.astext())
        language = block.get("language", "")
        block.children = [nodes.Text(text)]
        block["language"] = _CODE_LANGUAGES.get(language, language)
    # a toctree's caption: a title outside a section
    for caption_title in list(doctree.findall(nodes.title)):
        if not isinstance(caption_title.parent, (nodes.section, nodes.document)):
            caption_title.replace_self(
                nodes.paragraph("", "", nodes.strong("", "", *caption_title.children))
            )
    for caption in list(doctree.findall(nodes.caption)):
        caption.replace_self(nodes.paragraph("", "", nodes.emphasis("", "", *caption.children)))
    for ref in doctree.findall(nodes.reference):
        if ref.get("internal") and ref.get("refuri"):
            ref["refuri"] = _twin_uri(ref["refuri"])
    for image in doctree.findall(nodes.image):
        if image["uri"] in images:
            target = posixpath.join(imagedir, images[image["uri"]])
            image["uri"] = posixpath.relpath(target, posixpath.dirname(docname) or ".")


def slug(title: str) -> str:
    """The id a Markdown reader gives a heading (GitHub's rule, as markdown-it's
    anchors plugin and MyST compute it), before it makes a repeated one unique."""
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", title.strip().lower().replace(" ", "-"))


class TwinTranslator(MarkdownTranslator):
    """sphinx-markdown-builder's translator, reading through the nodes it does not
    know, with quotes that hold several paragraphs, fences and code spans that hold
    backticks, and the anchors a link's ``#fragment`` needs."""

    def __init__(self, document: nodes.document, builder: Any) -> None:
        super().__init__(document, builder)
        self._fences: list[str] = []
        self._slugs: set[str] = set()

    def unknown_visit(self, node: nodes.Node) -> None:
        pass  # its children are translated in its place

    def unknown_departure(self, node: nodes.Node) -> None:
        pass

    def _anchors(self, ids: list[str], besides: str = "") -> None:
        for anchor in ids:
            if anchor != besides:
                self._add_anchor(anchor)

    @pushing_status
    def visit_section(self, node: nodes.section) -> None:
        """Its ids a heading's slug does not give (a label; a title with an apostrophe)."""
        title = next((c for c in node.children if isinstance(c, nodes.title)), None)
        heading = slug(title.astext()) if title is not None else ""
        unique, n = heading, 0
        while unique in self._slugs:
            n += 1
            unique = f"{heading}-{n}"
        self._slugs.add(unique)
        self.ensure_eol(2)
        self._anchors(node["ids"], besides=unique)
        self._push_status(section_level=self.status.section_level + 1)

    @pushing_context
    def visit_desc_signature(self, node: nodes.Element) -> None:
        """An API entry's heading, after an anchor named for the entry."""
        self._anchors(node["ids"])
        super().visit_desc_signature(node)

    @pushing_context
    def visit_block_quote(self, node: nodes.block_quote) -> None:
        self._push_context(
            IndentContext("> ", empty=True, params=SubContextParams(2, 2))
        )  # one quote, apart

    def visit_literal(self, node: nodes.literal) -> None:
        self.add(forms.code_span(node.astext()))
        raise nodes.SkipNode

    def visit_literal_block(self, node: nodes.literal_block) -> None:
        self._push_status(escape_text=False, preserve_line_breaks=True)  # as the translator does
        fence = forms.backticks(node.astext())
        self._fences.append(fence)
        self.add(fence + node.get("language", ""), prefix_eol=1, suffix_eol=1)

    def depart_literal_block(self, node: nodes.literal_block) -> None:
        self.add(self._fences.pop(), prefix_eol=1, suffix_eol=2)
        self._pop_status()

    def visit_raw(self, node: nodes.raw) -> None:
        formats = node.get("format", "").split()
        if "markdown" in formats:
            self.add(node.astext(), prefix_eol=2, suffix_eol=2)  # a form's own text
        elif "html" in formats and isinstance(node.parent, nodes.TextElement):
            self.add(node.astext())  # in a line: an anchor in a table's cell
        elif "html" in formats:
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
    return forms.bare_quotes(translator.astext())

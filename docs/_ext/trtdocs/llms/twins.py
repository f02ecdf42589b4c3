"""A page's Markdown twin, from the page as the HTML builder resolved it.

The translation is sphinx-markdown-builder's (:class:`MarkdownTranslator`),
run on a copy of each resolved page, so the twin holds what the HTML page
holds: the executed outputs, the status banner with the outputs' provenance,
the marks on cells that did not run with their reasons, the version notes
and the "Used in" lists. :func:`plain` first rewrites what only this site
and its extensions make into nodes the translator knows:

* a folded block (banner, mark) becomes a quote: its summary in bold, then its body;
* an admonition (a note, a version note, an erratum) becomes a quote with its title in bold;
* a cell's outputs get an "Output" line and a ``text`` fence, without ANSI colours;
* a graphviz diagram becomes its ``dot`` source (its wide layout: :mod:`trtdocs.site.dotgraphs`);
* a node with a ``refuri`` that is not a reference (a download link) becomes a link; a tab's
  label a paragraph in bold;
* internal links point at the other twins (``page.html#x`` -> ``page.html.md#x``);
* images point at the copies the HTML builder made in ``_images/``.

A node neither the translator nor :func:`plain` knows is read through: its
children are translated, so no text is dropped.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx_markdown_builder.contexts import IndentContext, SubContextParams
from sphinx_markdown_builder.translator import MarkdownTranslator, pushing_context

from ..output.folding import folded, folded_summary
from ..site.dotgraphs import wide

if TYPE_CHECKING:
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


def twin_name(html_name: str) -> str:
    """``notebooks/export-pte.html`` -> ``notebooks/export-pte.html.md``."""
    return html_name + SUFFIX


def _quote(
    title: list[nodes.Node], body: list[nodes.Node], classes: list[str]
) -> nodes.block_quote:
    quote = nodes.block_quote(classes=classes)
    if title:  # in bold, unless it has its own bold words (the banner's status)
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


def _twin_uri(uri: str) -> str:
    """An internal link to a page, as a link to that page's twin."""
    path, hash_, fragment = uri.partition("#")
    if path.endswith(".html") and "://" not in path:
        path = twin_name(path)
    return path + hash_ + fragment


def _admonition(node: nodes.Node) -> bool:
    """A note, a tip, a titled admonition; not an API entry (Sphinx's ``desc`` is one too)."""
    return isinstance(node, nodes.Admonition) and not isinstance(node, addnodes.desc)


def _admonition_title(node: nodes.Element) -> str:
    """A note's or a tip's title, as the HTML theme shows it ("Note", "See also")."""
    return type(node).__name__.replace("seealso", "see also").capitalize()


def _other_link(node: nodes.Node) -> bool:
    """A node that links somewhere and is not a reference the translator knows."""
    return (
        isinstance(node, nodes.TextElement)
        and not isinstance(node, nodes.reference)
        and "refuri" in node
    )


def _elements(
    doctree: nodes.document, condition: Callable[[nodes.Node], bool]
) -> list[nodes.Element]:
    """The elements that meet ``condition``, as a list (the caller replaces them)."""
    return [n for n in doctree.findall(condition) if isinstance(n, nodes.Element)]


def plain(doctree: nodes.document, docname: str, images: dict[str, str], imagedir: str) -> None:
    """Rewrite ``doctree`` (a copy of the resolved page) into nodes the translator knows."""
    for box in list(doctree.findall(folded)):
        summary = box.next_node(folded_summary)
        words = list(summary.children) if summary is not None else []
        body = [child for child in box.children if child is not summary]
        box.replace_self(_quote(words, body, box["classes"]))
    for admonition in _elements(doctree, _admonition):
        title = next((c for c in admonition.children if isinstance(c, nodes.title)), None)
        body = [child for child in admonition.children if child is not title]
        words = (
            list(title.children)
            if title is not None
            else [nodes.Text(_admonition_title(admonition))]
        )
        admonition.replace_self(_quote(words, body, admonition["classes"]))
    # a download link, or another extension's link node
    for link in _elements(doctree, _other_link):
        link.replace_self(nodes.reference("", link.astext(), refuri=link["refuri"], internal=False))
    for container in list(doctree.findall(nodes.container)):
        if container.get("nb_element") == "cell_code_output":
            for block in list(
                container.findall(nodes.literal_block)
            ):  # a list: the loop inserts siblings
                kind = next((c for c in block["classes"] if c in _OUTPUT_WORDS), "")
                block.parent.insert(
                    block.parent.index(block),
                    nodes.paragraph("", "", nodes.emphasis(text=_OUTPUT_WORDS.get(kind, "Output"))),
                )
    for block in doctree.findall(nodes.literal_block):
        text = _ANSI.sub("", block.astext())
        language = block.get("language", "")
        block.children = [nodes.Text(text)]
        block["language"] = _CODE_LANGUAGES.get(language, language)
    for node in _elements(doctree, lambda n: type(n).__name__ == "graphviz"):
        code = wide(node["code"])  # the site's second graph is its layout for phones
        node.replace_self(nodes.literal_block(code, code, language="dot"))
    for node in _elements(doctree, lambda n: type(n).__name__ == "PassthroughTextElement"):
        node.replace_self(nodes.paragraph("", "", nodes.strong("", "", *node.children)))
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


def _fence(code: str) -> str:
    """A code fence longer than any run of backticks in ``code`` (CommonMark)."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


class TwinTranslator(MarkdownTranslator):
    """sphinx-markdown-builder's translator, reading through the nodes it does not
    know, with quotes that hold several paragraphs and fences that hold fences."""

    def __init__(self, document: nodes.document, builder: Any) -> None:
        super().__init__(document, builder)
        self._fences: list[str] = []

    def unknown_visit(self, node: nodes.Node) -> None:
        pass  # its children are translated in its place

    def unknown_departure(self, node: nodes.Node) -> None:
        pass

    @pushing_context
    def visit_block_quote(self, node: nodes.block_quote) -> None:
        self._push_context(
            IndentContext("> ", empty=True, params=SubContextParams(2, 2))
        )  # one quote, apart

    def visit_literal_block(self, node: nodes.literal_block) -> None:
        self._push_status(escape_text=False, preserve_line_breaks=True)  # as the translator does
        fence = _fence(node.astext())
        self._fences.append(fence)
        self.add(fence + node.get("language", ""), prefix_eol=1, suffix_eol=1)

    def depart_literal_block(self, node: nodes.literal_block) -> None:
        self.add(self._fences.pop(), prefix_eol=1, suffix_eol=2)
        self._pop_status()

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

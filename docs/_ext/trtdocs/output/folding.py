"""Folded blocks (HTML ``<details>``) and download links (``<a download>``):
the marks and banners show one line, with the rest a click away.

Builders other than HTML show a folded block's summary and body one after
the other, and a download link as its text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata
    from sphinx.writers.html5 import HTML5Translator


class folded(nodes.General, nodes.Element):
    """A ``<details>`` block; its first child is a :class:`folded_summary`."""


class folded_summary(nodes.General, nodes.TextElement):
    """The line a :class:`folded` block shows while it is closed."""


class page_links(nodes.paragraph):
    """A line of links about the page itself (its downloads, Colab): a paragraph in
    HTML. The Markdown twin leaves it out: the status at the page's end says what
    the downloads hold, and a tool's summary of the page is its own text."""


class download_link(nodes.Inline, nodes.TextElement):
    """A link the browser saves instead of showing (``refuri``, ``filename``)."""


def make(summary: Sequence[nodes.Node], body: Sequence[nodes.Node], classes: list[str]) -> folded:
    box = folded(classes=classes)
    box += folded_summary("", "", *summary)
    box.extend(body)
    return box


def _visit_folded(self: HTML5Translator, node: folded) -> None:
    self.body.append(self.starttag(node, "details"))


def _depart_folded(self: HTML5Translator, node: folded) -> None:
    self.body.append("</details>\n")


def _visit_summary(self: HTML5Translator, node: folded_summary) -> None:
    self.body.append(self.starttag(node, "summary", suffix=""))


def _depart_summary(self: HTML5Translator, node: folded_summary) -> None:
    self.body.append("</summary>\n")


def _visit_download(self: HTML5Translator, node: download_link) -> None:
    self.body.append(
        self.starttag(
            node,
            "a",
            suffix="",
            CLASS="reference download",
            href=node["refuri"],
            download=node["filename"],
        )
    )


def _depart_download(self: HTML5Translator, node: download_link) -> None:
    self.body.append("</a>")


def _visit_links(self: HTML5Translator, node: page_links) -> None:
    self.visit_paragraph(node)


def _depart_links(self: HTML5Translator, node: page_links) -> None:
    self.depart_paragraph(node)


def _pass(self: object, node: nodes.Node) -> None:
    pass


def setup(app: Sphinx) -> ExtensionMetadata:
    plain = (_pass, _pass)
    for node, html in (
        (folded, (_visit_folded, _depart_folded)),
        (folded_summary, (_visit_summary, _depart_summary)),
        (download_link, (_visit_download, _depart_download)),
        (page_links, (_visit_links, _depart_links)),
    ):
        app.add_node(node, html=html, latex=plain, text=plain, man=plain, texinfo=plain)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

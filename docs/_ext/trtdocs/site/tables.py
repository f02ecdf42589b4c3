"""Tables that read on a phone and on a desktop: one structure, laid out by CSS.

Every table with a header row and three columns or more (Markdown tables,
``{data-table}``, the support matrix) gets, on each body cell, its column's
title as a ``data-label`` attribute. On a phone, and at any width where its
columns do not fit the page's column, ``trtdocs-tables.js`` marks the table
and ``trtdocs.css`` turns it into one block per row (the first cell as the
block's heading, the others under their label, shown with ``::before``): no
column is off-screen. Where it fits, the table is a table. A label is not
text: it is not copied, searched or counted as prose. Tables marked
:data:`KEEP_TABLE` keep their layout at every width.

Code in a table is code: a literal keeps its straight quotes (docutils' smart
quotes skip literals) and breaks only between the words of a message or after
the punctuation that joins names (``.``, ``::``, ``(``, ``=``, ``,``, ``/``),
never inside a name: a ``<wbr>`` between two unbreakable spans.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from docutils import nodes
from sphinx.writers.html5 import HTML5Translator

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

STACK: Final = "trtdocs-stack"  # a table laid out as blocks on narrow screens
LABEL: Final = "trtdocs_label"  # an entry's attribute: its column's title (HTML: data-label)
EMPTY: Final = "trtdocs-cell-empty"  # a cell with nothing in it (hidden as a block)
KEEP_TABLE: Final = "trtdocs-keep-table"  # a table that keeps its layout at every width
MIN_COLUMNS: Final = 3
# A token of a literal longer than this gets break opportunities after joining punctuation.
LONG_TOKEN: Final = 16
# After "::" or one of . ( , = / [ when a name follows: where a long token may break.
_JOINS: Final = re.compile(r"""(?<=::)(?=[A-Za-z_])|(?<=[.(,=/\[])(?=[A-Za-z_'"])""")


def break_points(text: str) -> list[str]:
    """``text`` cut where a line may break inside a long token (spaces break on their own)."""
    pieces = [""]
    for word in re.split(r"(\s+)", text):
        parts = [p for p in _JOINS.split(word) if p] if len(word) > LONG_TOKEN else [word]
        pieces[-1] += parts[0] if parts else ""
        pieces += parts[1:]
    return [p for p in pieces if p]


class wbr(nodes.Inline, nodes.Element):
    """A line-break opportunity (``<wbr>``); no text, nothing in other builders."""


def with_breaks(literal: nodes.literal, cut: Callable[[str], list[str]]) -> None:
    """A ``<wbr>`` between the pieces ``cut`` makes of a plain literal's text (one
    piece: unchanged). Tables and API headings share it."""
    if len(literal.children) != 1 or not isinstance(literal[0], nodes.Text):
        return
    pieces = cut(literal.astext())
    if len(pieces) < 2:
        return
    literal.children = []
    for i, piece in enumerate(pieces):
        if i:
            literal += wbr()
        literal += nodes.Text(piece)


def lay_out(doctree: nodes.document) -> None:
    """Labels for the narrow-screen layout, and break points in table code (idempotent)."""
    for table in list(doctree.findall(nodes.table)):
        if table.get("trtdocs_laid_out"):
            continue
        table["trtdocs_laid_out"] = True
        _code(table)
        if KEEP_TABLE in table["classes"]:
            continue
        head = next(table.findall(nodes.thead), None)
        body = next(table.findall(nodes.tbody), None)
        if head is None or body is None or not head.children:
            continue
        titles = [entry.astext().strip() for entry in head.children[0].children]
        if len(titles) < MIN_COLUMNS:
            continue
        table["classes"].append(STACK)
        for row in body.children:
            entries = [e for e in row.children if isinstance(e, nodes.entry)]
            for title, entry in zip(titles, entries, strict=False):
                if not entry.astext().strip():
                    entry["classes"].append(EMPTY)
                if title:
                    entry[LABEL] = title


def _code(table: nodes.table) -> None:
    for literal in list(table.findall(nodes.literal)):
        with_breaks(literal, break_points)


def single_ids(doctree: nodes.document) -> None:
    """furo wraps each table (and math block) in a container that takes all of its
    attributes, ids included (``furo.WrapTableAndMathInAContainerTransform``): a captioned
    table's id would sit on two elements. The id stays on the table, where links land."""
    for wrapper in doctree.findall(nodes.container):
        wrapped = wrapper.children[0] if wrapper.children else None
        if {"table-wrapper", "math-wrapper"} & set(wrapper["classes"]) and isinstance(
            wrapped, nodes.Element
        ):
            wrapper["ids"] = [i for i in wrapper["ids"] if i not in wrapped["ids"]]


def _resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At doctree-resolved, last: tables other parts fill in then (the build report) are laid
    out too. furo's wrappers exist by then (a post-transform)."""
    if app.builder.format == "html":
        lay_out(doctree)
        single_ids(doctree)


def _visit_wbr(self: Any, node: wbr) -> None:
    self.body.append("<wbr>")


def _visit_entry(self: HTML5Translator, node: nodes.entry) -> None:
    """Sphinx's cell, with its column's title as ``data-label`` on the start tag."""
    HTML5Translator.visit_entry(self, node)
    if node.get(LABEL):
        start = self.body[-1]
        tag = start[1:3]  # "td" or "th"
        self.body[-1] = start.replace(
            f"<{tag}", f'<{tag} data-label="{html.escape(node[LABEL], quote=True)}"', 1
        )


def _pass(self: Any, node: nodes.Node) -> None:
    pass


def setup(app: Sphinx) -> ExtensionMetadata:
    plain = (_pass, _pass)
    app.add_node(wbr, html=(_visit_wbr, _pass), latex=plain, text=plain, man=plain, texinfo=plain)
    app.add_node(nodes.entry, override=True, html=(_visit_entry, HTML5Translator.depart_entry))
    app.connect("doctree-resolved", _resolved, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

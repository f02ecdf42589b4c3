"""The titles of the API reference's pages.

A page of the reference is titled with its package (``# `torch_tensorrt```),
and each module it documents has a section of its own. The section of the
package itself would repeat the page's title as the next heading: at
``doctree-read``, before the page's table of contents is taken, that section's
content joins the page's own, so a module's name is a heading once.

A dotted name in a heading breaks only after its dots (and, in a name with
no dot that is too long for a phone's line, after its underscores), never
inside a word: a ``<wbr>`` between unbreakable pieces, added at
``doctree-resolved`` so that the titles of the table of contents, the search
index and the Markdown twins keep the name as it is written.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docutils import nodes

from ..site.tables import with_breaks

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# A dotless name longer than this breaks after its underscores too.
LONG_NAME = 24
_AFTER_DOT = re.compile(r"(?<=\.)(?=\w)")
_AFTER_UNDERSCORE = re.compile(r"(?<=_)(?=[A-Za-z])")


def _module_of(section: nodes.section) -> str | None:
    """The module a section documents: the name its title holds as code, when
    the section holds that module's target (``py:module``)."""
    title = section.next_node(nodes.title)
    if title is None or title.parent is not section:
        return None
    name = title.astext().strip()
    ids: set[str] = set()
    for element in section.findall(nodes.Element):
        ids.update(element["ids"])
    return name if f"module-{name}" in ids else None


def merge_repeated_titles(doctree: nodes.document) -> None:
    """Each section titled like the section it is in, for the same module: its
    content joins the outer section (its ids too, so links to it still land)."""
    for section in list(doctree.findall(nodes.section)):
        outer = section.parent
        if not isinstance(outer, nodes.section) or section.parent is None:
            continue
        name = _module_of(section)
        outer_title = outer.next_node(nodes.title)
        if name is None or outer_title is None or outer_title.astext().strip() != name:
            continue
        at = outer.index(section)
        outer["ids"].extend(i for i in section["ids"] if i not in outer["ids"])
        outer[at : at + 1] = [c for c in section.children if not isinstance(c, nodes.title)]


def pieces(name: str) -> list[str]:
    """``name`` cut where a heading may break: after each dot; a long dotless name
    after its underscores."""
    if "." in name:
        return [p for p in _AFTER_DOT.split(name) if p]
    if len(name) > LONG_NAME:
        return [p for p in _AFTER_UNDERSCORE.split(name) if p]
    return [name]


def break_titles(doctree: nodes.document) -> None:
    """A ``<wbr>`` in each code name of a heading of a module's section."""
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is None or title.parent is not section or _module_of(section) is None:
            continue
        for literal in list(title.findall(nodes.literal)):
            with_breaks(literal, pieces)


def _read(app: Sphinx, doctree: nodes.document) -> None:
    merge_repeated_titles(doctree)


def _resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format == "html":
        break_titles(doctree)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.site.tables")  # the <wbr> node
    # before Sphinx's collectors (500) take the page's titles and table of contents
    app.connect("doctree-read", _read, priority=400)
    app.connect("doctree-resolved", _resolved)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

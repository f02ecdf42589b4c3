"""Doc fields whose description holds blocks.

Sphinx's doc fields (``:param x:``) write an item's name, type and description
as one paragraph (``sphinx.util.docfields``). A description of more than one
block, such as the literal block that shows a docstring as written or an
erratum's admonition (:mod:`.render`), then sits inside that paragraph. HTML
allows only phrasing content in a ``<p>``: a browser ends the paragraph at the
first block and the page is not valid HTML. :func:`unnest` splits such a
paragraph: the name, the type and the description's first paragraph stay one
paragraph, and the blocks after it follow it in the same item. Sphinx wraps a
description in an ``inline`` (``translatable``, which a later transform of its
own removes); a plain inline that holds a block is opened first.
"""

from __future__ import annotations

from collections.abc import Iterable

from docutils import nodes


def is_block(node: nodes.Node) -> bool:
    """A body element that HTML writes as a block (``target`` is both a body
    element and inline: it stays in the text)."""
    return isinstance(node, nodes.Body) and not isinstance(node, nodes.Inline)


def unnest(trees: Iterable[nodes.Node]) -> None:
    """Split every paragraph in ``trees`` that holds a block (see the module)."""
    for tree in trees:
        if not isinstance(tree, nodes.Element):
            continue
        # innermost first, so that a paragraph is split after the ones it holds
        for para in reversed(list(tree.findall(nodes.paragraph))):
            if any(is_block(child) for child in _opened(para)):
                para.replace_self(_split(para))


def _opened(para: nodes.paragraph) -> list[nodes.Node]:
    """The paragraph's children, each plain inline (no class, no id) that holds
    a block replaced by its own children."""
    out: list[nodes.Node] = []
    for child in para.children:
        plain = isinstance(child, nodes.inline) and not child["classes"] and not child["ids"]
        out += child.children if plain and any(is_block(c) for c in child.children) else [child]
    return out


def _split(para: nodes.paragraph) -> list[nodes.Node]:
    """The paragraph's text runs as paragraphs, its blocks between them; a
    paragraph right after the first run continues that run."""
    out: list[nodes.Node] = []
    run: list[nodes.Node] = []
    children = _opened(para)
    para.clear()
    for child in children:
        if not is_block(child):
            run.append(child)
            continue
        if isinstance(child, nodes.paragraph) and run and not out:
            run += (
                child.children
            )  # the field's name and type, then the description's first paragraph
            continue
        out += _paragraph(para, run)
        run = []
        out.append(child)
    return out + _paragraph(para, run)


def _paragraph(like: nodes.paragraph, children: list[nodes.Node]) -> list[nodes.paragraph]:
    """A paragraph of ``children`` with the classes of ``like`` (the first one
    made takes its ids), or none when they are only white space."""
    if all(isinstance(c, nodes.Text) and not c.strip() for c in children):
        return []
    para = nodes.paragraph("", "", *children, classes=list(like["classes"]), ids=like["ids"])
    like["ids"] = []
    para.source, para.line = like.source, like.line
    return [para]

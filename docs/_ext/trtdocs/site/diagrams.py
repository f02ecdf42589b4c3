"""Graphviz diagrams that follow the page's theme and open full size with a tap.

Sphinx embeds an SVG diagram with ``<object>``, a separate document: the page's
CSS cannot reach it, and Chromium paints it on an opaque white backdrop when
its colour scheme differs from the page's (a white box in dark mode). This
part renders ``sphinx.ext.graphviz``'s node (through Sphinx's own
``render_dot``) as inline SVG instead, through Sphinx's supported override of
a node's HTML visitor:

* the SVG's text, strokes and fills are styled by ``trtdocs.css`` from the
  theme's colours: text in the foreground colour, each filled shape in its
  category's colour of the theme (:mod:`.palette`; :func:`inline_svg` keeps
  each fill as a ``--trtdocs-fill`` custom property and a palette fill's dark
  colour as ``--trtdocs-fill-dark``); a fill outside the palette is mixed into
  the background in dark mode;
* code with a second graph (:mod:`.dotgraphs`) is drawn twice: the first
  layout for wide screens, the second for narrow ones; ``trtdocs.css`` shows
  one by the screen's width, so a phone's diagram text stays legible;
* the diagram scales to the column and links to its SVG file, which opens
  full size (a phone's tap, a desktop's click);
* its ids get a per-diagram prefix, so two diagrams on a page do not clash,
  and its ``alt`` becomes the SVG's accessible name.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, Final

from docutils import nodes
from sphinx.ext.graphviz import GraphvizError, graphviz, render_dot
from sphinx.util import logging

from . import dotgraphs, palette

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata
    from sphinx.writers.html5 import HTML5Translator

logger = logging.getLogger(__name__)

DIAGRAM_CLASS: Final = "trtdocs-diagram"
LAYOUTS: Final = ("wide", "narrow")  # a link's class trtdocs-diagram-<layout>, in code order
_PROLOGUE: Final = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.S)
_ID: Final = re.compile(r'\bid="([^"]+)"')
_REF: Final = re.compile(r'(href="#|url\(#)([^")]+)')
_FILL: Final = re.compile(
    r'<(polygon|path|ellipse|polyline|rect)\b([^>]*?)\bfill="(#[0-9a-fA-F]{6}|[a-z]+)"'
)
_SVG_OPEN: Final = re.compile(r"<svg\b([^>]*)>")


def inline_svg(svg: str, prefix: str, label: str) -> str:
    """Graphviz's SVG file made fit to sit in a page: no prologue, ids prefixed,
    each fill colour also a custom property (for the dark theme), an accessible name."""
    svg = _PROLOGUE.sub("", svg).strip()
    svg = _ID.sub(lambda m: f'id="{prefix}-{m[1]}"', svg)
    svg = _REF.sub(lambda m: f"{m[1]}{prefix}-{m[2]}", svg)

    def fill(m: re.Match[str]) -> str:
        tag, attrs, colour = m[1], m[2], m[3]
        if colour in ("none", "transparent"):
            return m[0]
        dark = palette.dark(colour)
        style = f"--trtdocs-fill: {colour}" + (f"; --trtdocs-fill-dark: {dark}" if dark else "")
        return f'<{tag}{attrs}style="{style}" fill="{colour}"'

    svg = _FILL.sub(fill, svg)
    name = html.escape(label, quote=True)
    return _SVG_OPEN.sub(lambda m: f'<svg{m[1]} role="img" aria-label="{name}">', svg, count=1)


def visit_graphviz(self: HTML5Translator, node: graphviz) -> None:
    """The diagram as inline SVG in a link to its file, once per layout; raises SkipNode."""
    code, options = node["code"], node["options"]
    try:
        layouts = dotgraphs.graphs(code)
    except dotgraphs.DotError as exc:
        logger.warning("dot code %r: %s", code, exc, location=node)
        raise nodes.SkipNode from exc
    label = node.get("alt") or "diagram"
    links = []
    for layout, graph in zip(LAYOUTS, layouts, strict=False):
        try:
            fname, outfn = render_dot(self, graph, options, "svg", "graphviz", node.get("filename"))
        except GraphvizError as exc:
            logger.warning("dot code %r: %s", graph, exc, location=node)
            raise nodes.SkipNode from exc
        if fname is None or outfn is None:
            self.body.append(self.encode(code))
            raise nodes.SkipNode
        prefix = "dia-" + hashlib.sha1(graph.encode()).hexdigest()[:8]
        svg = inline_svg(Path(outfn).read_text(encoding="utf-8"), prefix, label)
        src = html.escape(Path(fname).as_posix(), quote=True)
        links.append(
            f'<a class="trtdocs-diagram-open trtdocs-diagram-{layout}" href="{src}" '
            f'title="Open the diagram full size">{svg}</a>'
        )
    two = [f"{DIAGRAM_CLASS}-two"] if len(links) > 1 else []
    classes = " ".join(["graphviz", DIAGRAM_CLASS, *two, *node.get("classes", [])])
    self.body.append(f'<div class="{classes}">{"".join(links)}</div>\n')
    raise nodes.SkipNode


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("sphinx.ext.graphviz")
    app.add_node(graphviz, override=True, html=(visit_graphviz, None))
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

"""The page's status at its foot, out of the reading flow.

:mod:`.banner` fills :class:`page_status` with the one-line status of a
notebook page (whether it ran, the machine, the date; the rest folded). The
HTML writer leaves it out of the article: at ``html-page-context`` it is
rendered on its own into the page's footer, above the theme's own footer
(``templates/trtdocs-notebook-page.html`` extends whatever ``page.html`` the
site uses and adds to its ``footer`` block). So the status never sits between a
sentence and the code it introduces, and it is neither indexed for search (its
``no-search`` class) nor in a search result's excerpt, which Sphinx takes from
the article (``[role="main"]``). A page with no code cells has none.

Other writers (the Markdown twins, text) read through it, at the page's end.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.util.typing import ExtensionMetadata
    from sphinx.writers.html5 import HTML5Translator

TEMPLATES = Path(__file__).with_name("templates")
TEMPLATE = "trtdocs-notebook-page.html"  # page.html with the status in its footer
CONTEXT = "trtdocs_status"  # the template variable: the status, as HTML
CLASS = "trtdocs-page-status"  # the footer's wrapper of it


class page_status(nodes.General, nodes.Element):
    """The page's status; the HTML article leaves it out, the footer shows it."""


def _skip(self: HTML5Translator, node: page_status) -> None:
    raise nodes.SkipNode


def _pass(self: object, node: nodes.Node) -> None:
    pass


def footer(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> str | None:
    """At html-page-context: the page's status into the footer (the page's template
    becomes :data:`TEMPLATE`); nothing for a page without one."""
    if doctree is None or app.builder.format != "html" or templatename != "page.html":
        return None
    status = next(iter(doctree.findall(page_status)), None)
    if status is None:
        return None
    render = getattr(app.builder, "render_partial", None)
    if render is None:
        return None
    # a copy: the twins (trtdocs.llms) read the doctree after this
    parts = [render(child.deepcopy())["fragment"] for child in status.children]
    context[CONTEXT] = "".join(parts)
    return TEMPLATE


def _templates(app: Sphinx, conf: Config) -> None:
    """At config-inited: this part's templates, after the site's own."""
    if str(TEMPLATES) not in conf.templates_path:
        conf.templates_path = [*conf.templates_path, str(TEMPLATES)]


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_node(
        page_status,
        html=(_skip, _pass),
        latex=(_pass, _pass),
        text=(_pass, _pass),
        man=(_pass, _pass),
        texinfo=(_pass, _pass),
    )
    app.connect("config-inited", _templates)
    app.connect("html-page-context", footer)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

"""What the site serves to tools as well as to people: a Markdown twin of
every page (``page.html.md``, beside ``page.html``), and ``llms.txt`` and
``llms-full.txt`` at the site's root (https://llmstxt.org). Sphinx writes
``objects.inv``, the inventory other projects link to with intersphinx.

* :mod:`trtdocs.markdown.doctree` makes a page's twin, translated by
  sphinx-markdown-builder from the page the HTML builder resolved, and
  :mod:`trtdocs.markdown.leftovers` checks it holds no unrendered MyST;
* :mod:`.index`: ``llms.txt`` and ``llms-full.txt`` (pure);
* :mod:`.sphinx`: the build's events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


# Its modules that are Sphinx extensions, set up in this order.
PARTS = ("sphinx",)


def setup(app: Sphinx) -> ExtensionMetadata:
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

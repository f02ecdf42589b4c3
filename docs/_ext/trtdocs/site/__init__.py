"""The site as a reader uses it, at any width and in either theme.

* :mod:`.tables`: tables that become one block per row on a phone; code in
  tables that breaks only between names;
* :mod:`.diagrams`: Graphviz diagrams inline, in the theme's colours
  (:mod:`.palette`), with a stacked layout for phones (:mod:`.dotgraphs`),
  opening full size with a tap;
* :mod:`.navigation`: maintainer pages out of the readers' previous/next chain
  and ranked below the guide in search;
* :mod:`.ptediagram`: ``{pte-diagram}``, what a ``.pte`` the page wrote holds,
  drawn from the file (:mod:`.ptelayout`);
* :mod:`.sectionlabels`: a label for every guide section, for other projects' intersphinx.

The stylesheet they pair with is ``docs/_static/trtdocs.css``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# Each is a Sphinx extension of its own; this one sets them all up.
PARTS = ("tables", "diagrams", "navigation", "ptediagram", "sectionlabels")


def setup(app: Sphinx) -> ExtensionMetadata:
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

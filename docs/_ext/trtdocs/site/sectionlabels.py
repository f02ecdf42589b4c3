"""A label for every section of the guide, so that another project's Sphinx build can link to
any of them through intersphinx: ``:ref:`trt:run-cpp/what-it-links```.

The name is the page's file name and the section's heading anchor (the fragment of its URL),
so a reader who has the URL knows the label. The explicit ``(name)=`` targets on the pages stay
as they are; this adds one name per section beside them, at ``doctree-read``, as
``sphinx.ext.autosectionlabel`` does (the standard domain purges and merges them per page).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util import logging
from sphinx.util.nodes import clean_astext

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

GUIDE = "notebooks/"  # the guide's pages; the API and maintainer pages have their own targets


def label_of(docname: str, anchor: str) -> str:
    """The label of the section whose URL is ``<docname>.html#<anchor>``."""
    return nodes.fully_normalize_name(f"{docname.removeprefix(GUIDE)}/{anchor}")


def _label_sections(app: Sphinx, doctree: nodes.document) -> None:
    docname = app.env.current_document.docname
    if not docname.startswith(GUIDE):
        return
    domain = app.env.domains.standard_domain
    for section in doctree.findall(nodes.section):
        # myst's heading anchor (myst_heading_anchors) is the fragment a reader sees in the URL
        anchor = section.get("slug")
        if anchor not in section["ids"]:
            anchor = section["ids"][0]
        name = label_of(docname, anchor)
        if name in domain.labels and domain.labels[name][0] != docname:
            logger.warning(
                "section label %s is taken by %s",
                name,
                domain.labels[name][0],
                location=section,
                type="trtdocs",
                subtype="labels",
            )
            continue
        title = section[0]
        assert isinstance(title, nodes.title), f"a section without a title in {docname}"
        domain.anonlabels[name] = docname, anchor
        domain.labels[name] = docname, anchor, clean_astext(title)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("doctree-read", _label_sections)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

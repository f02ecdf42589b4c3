"""The launch row under each notebook page's status banner, beside its downloads:
"Open in Colab" (the page's published notebook, :mod:`.colab`) and "View source"
(the same file on GitHub), as PyTorch's tutorials put "Run in Google Colab" at
the top of every page.

The row is there only where ``trtdocs_published_notebooks`` names the repository
and branch the deploy publishes to; where it is unset, the build says so once
(at ``builder-inited``) and no page has the row. The row is out of the search
index (``no-search``), as the banner is; ``docs/_static/trtdocs.css`` styles it
(``p.trtdocs-launch``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.errors import ConfigError
from sphinx.util import logging

from .. import config, state
from ..features.sphinx import table
from ..colab import SETTING, Target, TargetError, published_path

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

CLASS = "trtdocs-launch"
OPEN, SOURCE = "Open in Colab", "View source"
UNSET = (
    f"{SETTING} is not set: notebook pages have no Open in Colab link "
    "(docs/building.md says what to set)"
)


def target(app: Sphinx) -> Target | None:
    """Where this build's notebooks are published; None: nowhere."""
    try:
        return Target.of(config.of(app.config).published_notebooks)
    except TargetError as exc:
        raise ConfigError(f"{SETTING}: {exc}") from None


def row(found: Target, path: str) -> nodes.paragraph:
    """The row's links to the notebook at ``path`` of the published branch."""
    para = nodes.paragraph(classes=[CLASS, "no-search"])
    para += nodes.reference(
        "",
        OPEN,
        refuri=found.colab_url(path),
        reftitle="Run this page's notebook in Google Colab, on a GPU runtime",
        classes=[f"{CLASS}-colab"],
    )
    para += nodes.Text(" · ")
    para += nodes.reference(
        "",
        SOURCE,
        refuri=found.github_url(path),
        reftitle="This page's notebook on GitHub, the file Colab opens",
        classes=[f"{CLASS}-source"],
    )
    return para


def _say_unset(app: Sphinx) -> None:
    """At builder-inited: the one line that says the pages have no launch row."""
    if target(app) is None:
        logger.info(UNSET)


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At doctree-resolved, after the banner (:func:`.banner.resolve`): the row after it."""
    plan = state.of(app.env).plans.get(docname)
    found = target(app)
    if plan is None or found is None:
        return
    launch = row(found, published_path(table(app).documented_release.key, docname))
    banner = next(
        (n for n in doctree.findall(nodes.Element) if "trtdocs-status" in n["classes"]), None
    )
    if banner is not None and banner.parent is not None:
        banner.parent.insert(banner.parent.index(banner) + 1, launch)
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is not None:  # a page without a banner: under its title
        section.insert(1, launch)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.config")
    app.setup_extension("trtdocs.state")
    app.setup_extension("trtdocs.features")
    app.connect("builder-inited", _say_unset)
    app.connect("doctree-resolved", resolve, priority=600)  # after the banner (500)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

"""The features table in a Sphinx build: loaded at ``builder-inited`` into the
build state, its notes and matrix registered, every feature checked to be
referenced by a page (or to say why not), and the sidebar's release switcher.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ConfigError
from sphinx.util import logging

from .. import config, state
from ..vocab import FEATURE_PREFIX, STATUSES
from .matrix import ROW_ID, SupportMatrix
from .model import FeaturesTable
from .nodes import FeatureNote, FeatureNoteParentheses, FeatureRole, InstallCommand, table_of
from .validate import FeaturesError, line_of, load

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)

SUPPORT_MATRIX = "docs/support-matrix"  # the page the release switcher links to, when it exists


def table(app: Sphinx) -> FeaturesTable:
    """This build's features table, read and checked on first use (``trtdocs_features_file``,
    worded for ``trtdocs_documented_release``)."""
    build = state.of(app.env)
    if build.features is None:
        settings = config.of(app.config)
        try:
            build.features = load(Path(app.confdir) / settings.features_file, settings.documented_release or None)
        except FeaturesError as exc:
            raise ConfigError(str(exc)) from None
    return build.features


def _load(app: Sphinx) -> None:
    """At builder-inited: a broken table stops the build before any page is read."""
    state.of(app.env).features = None  # the file may have changed since the last build
    table(app)


def references(env: BuildEnvironment) -> dict[str, set[str]]:
    """Feature id -> the documents that reference it (notes, roles, gating)."""
    build = state.of(env)
    refs: dict[str, set[str]] = {}
    for doc, ids in build.feature_refs.items():
        for fid in ids:
            refs.setdefault(fid, set()).add(doc)
    for doc, plan in build.plans.items():
        for req in (*plan.requires, *plan.cell_requires):
            if req.startswith(FEATURE_PREFIX):
                refs.setdefault(req[len(FEATURE_PREFIX):], set()).add(doc)
    return refs


def check_references(app: Sphinx, env: BuildEnvironment) -> None:
    """Every feature is referenced by a page, or says why not (table_only)."""
    features = table_of(env)
    refs = references(env)
    for f in features.features:
        where = f"{features.path}:{line_of(features.path, f.id)}"
        docs = sorted(refs.get(f.id, ()))
        if f.table_only and docs:
            logger.error("feature %r is marked table_only but %s reference it; remove table_only",
                         f.id, ", ".join(docs), location=where, type="trtdocs", subtype="features")
        elif not f.table_only and not docs:
            logger.warning("feature %r is referenced by no page: add a {feature-note} or {feature} "
                           "to the page that describes it, or give it table_only = \"<reason>\"",
                           f.id, location=where, type="trtdocs", subtype="features-unreferenced")


def switcher(features: FeaturesTable) -> list[dict[str, Any]]:
    """The release switcher's entries (docs/_templates/sidebar/releases.html),
    oldest first, nightly last."""
    return [{"label": r.label, "documented": r.key == features.documented,
             "anchor": ROW_ID.format(key=r.key), "status_words": STATUSES[r.status].words}
            for r in features.releases.values()]


def _page_context(app: Sphinx, pagename: str, templatename: str,
                  context: dict[str, Any], doctree: Any) -> None:
    context["trtdocs_releases"] = switcher(table(app))
    context["trtdocs_release_link"] = SUPPORT_MATRIX if SUPPORT_MATRIX in app.env.found_docs else None


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.config")
    app.setup_extension("trtdocs.state")
    app.connect("builder-inited", _load)
    app.connect("env-check-consistency", check_references)
    app.connect("html-page-context", _page_context)
    app.add_directive("feature-note", FeatureNote)
    app.add_role("feature", FeatureRole())
    app.add_transform(FeatureNoteParentheses)
    app.add_directive("support-matrix", SupportMatrix)
    app.add_directive("install-command", InstallCommand)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

"""The features table in a Sphinx build: loaded at ``builder-inited`` into the
build state, its notes and matrix registered, every feature checked to be
referenced by a page (or to say why not), every run source checked to name a
page with a cell gated on its feature, and the sidebar's release note (the
release this guide documents, and where to read about the others).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.errors import ConfigError
from sphinx.util import logging

from .. import config, state
from ..vocab import FEATURE_PREFIX, STATUSES
from .matrix import RELEASES_ID, SupportMatrix
from .model import FeaturesTable
from .nodes import (
    FeatureNote,
    FeatureNoteParentheses,
    FeatureReleaseRole,
    FeatureRole,
    InstallCommand,
    ReleaseRole,
    table_of,
)
from .validate import FeaturesError, line_of, load

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
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
            build.features = load(
                Path(app.confdir) / settings.features_file, settings.documented_release or None
            )
        except FeaturesError as exc:
            raise ConfigError(str(exc)) from None
    return build.features


def _version(app: Sphinx, conf: Config) -> None:
    """At config-inited: where conf.py sets no ``version``/``release``, they are the documented
    release's (objects.inv carries them, so another project's intersphinx knows what it links
    to). Set here, before the saved environment is compared with this build's config."""
    if conf.version and conf.release:
        return
    settings = config.of(conf)
    try:
        documented = load(
            Path(app.confdir) / settings.features_file, settings.documented_release or None
        ).documented_release
    except FeaturesError as exc:
        raise ConfigError(str(exc)) from None
    conf.version = conf.version or documented.key
    conf.release = conf.release or documented.version or documented.key


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
                refs.setdefault(req[len(FEATURE_PREFIX) :], set()).add(doc)
    return refs


def check_references(app: Sphinx, env: BuildEnvironment) -> None:
    """Every feature is referenced by a page, or says why not (table_only)."""
    features = table_of(env)
    refs = references(env)
    for f in features.features:
        where = f"{features.path}:{line_of(features.path, f.id)}"
        docs = sorted(refs.get(f.id, ()))
        if f.table_only and docs:
            logger.error(
                "feature %r is marked table_only but %s reference it; remove table_only",
                f.id,
                ", ".join(docs),
                location=where,
                type="trtdocs",
                subtype="features",
            )
        elif not f.table_only and not docs:
            logger.warning(
                "feature %r is referenced by no page: add a {feature-note} or {feature} "
                'to the page that describes it, or give it table_only = "<reason>"',
                f.id,
                location=where,
                type="trtdocs",
                subtype="features-unreferenced",
            )


def check_runs(app: Sphinx, env: BuildEnvironment) -> None:
    """A run source (``{ run = "<page>" }``) names a page of this build with a
    cell gated on its feature: that cell is the run (vocab.STATES' "yes")."""
    features = table_of(env)
    plans = state.of(env).plans
    for f in features.features:
        for key, cell in f.cells.items():
            for source in (s for s in cell.sources if s.kind == "run"):
                where = f"{features.path}:{line_of(features.path, f.id)}"
                plan = plans.get(source.value)
                gated = plan is not None and f"{FEATURE_PREFIX}{f.id}" in (
                    *plan.requires,
                    *plan.cell_requires,
                )
                if source.value not in env.found_docs:
                    problem = "names no page of this build"
                elif not gated:
                    problem = (
                        f"has no cell gated on {FEATURE_PREFIX}{f.id}, so no cell of it runs the "
                        "feature"
                    )
                else:
                    continue
                logger.error(
                    "feature %r, release %s: run source %r %s",
                    f.id,
                    key,
                    source.value,
                    problem,
                    location=where,
                    type="trtdocs",
                    subtype="features",
                )


def release_note(features: FeaturesTable) -> dict[str, Any]:
    """What the sidebar says (docs/_templates/sidebar/releases.html): the
    documented release, and the other lines in words; not a version switcher
    (one site documents one release)."""
    documented = features.documented_release
    others = [r for r in features.releases.values() if r.key != documented.key]
    words = [
        ("nightly builds" if r.is_nightly else f"{r.label} ({STATUSES[r.status].words})")
        for r in others
    ]
    return {
        "documented": documented.version or documented.label,
        "date": documented.date,
        "others": ", ".join(words[:-1])
        + (" and " if len(words) > 1 else "")
        + (words[-1] if words else ""),
        "anchor": RELEASES_ID,
    }


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    context["trtdocs_release"] = release_note(table(app))
    context["trtdocs_release_link"] = (
        SUPPORT_MATRIX if SUPPORT_MATRIX in app.env.found_docs else None
    )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.config")
    app.setup_extension("trtdocs.state")
    app.setup_extension("trtdocs.output.folding")  # the matrix folds each feature's sources
    app.connect("config-inited", _version)
    app.connect("builder-inited", _load)
    app.connect("env-check-consistency", check_references)
    app.connect("env-check-consistency", check_runs)
    app.connect("html-page-context", _page_context)
    app.add_directive("feature-note", FeatureNote)
    app.add_role("feature", FeatureRole())
    app.add_role("feature-release", FeatureReleaseRole())
    app.add_role("release", ReleaseRole())
    app.add_transform(FeatureNoteParentheses)
    app.add_directive("support-matrix", SupportMatrix)
    app.add_directive("install-command", InstallCommand)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

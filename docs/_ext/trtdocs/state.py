"""What the extension keeps during a build: one typed object, ``env.trtdocs``.

:class:`BuildState` has two halves:

* per document, kept with the pickled environment and purged and merged by
  docname in one place (:meth:`BuildState.purge`, :meth:`BuildState.merge`),
  so that incremental and parallel reads (``sphinx-build -j N``) see every
  page's contribution: the notebooks' plans, the features each page names,
  the pages made from every notebook's plan or from the installed API; and,
  kept across builds, what the whole build found (the installed API's key, the
  C++ blocks' captions);
* per build, made again by each build (at ``builder-inited``, or on first
  use) and never pickled: the features table, the gating's inputs, the
  installed API, the notebooks running, the drift guards' run and the log
  handler that notes the pages that warn. What belongs to one build lives here,
  never in a module-level registry keyed by the application.

Every sub-extension asks for it with ``app.setup_extension("trtdocs.state")``.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

    from .api.names import CellPage, UseSite
    from .api.site import ApiSite
    from .drift.child import GuardRun
    from .features.model import FeaturesTable
    from .notebooks.execute import Executor
    from .notebooks.plan import BuildContext, PagePlan

# Bump when what the environment keeps changes shape (PagePlan and friends), so
# that Sphinx discards an environment pickled by older code.
ENV_VERSION = 13


def _per_build() -> Any:
    return dataclasses.field(default=None, metadata={"per_build": True})


@dataclasses.dataclass(eq=False)
class BuildState:
    """``env.trtdocs``; :func:`of` gives it."""

    # -- per document (docname -> what it contributed)
    plans: dict[str, PagePlan] = dataclasses.field(
        default_factory=dict
    )  # the gating's plan of each notebook
    feature_refs: dict[str, set[str]] = dataclasses.field(
        default_factory=dict
    )  # feature ids a page names
    # pages made from every notebook's plan (build report, page needs): read again when any
    # notebook is read again
    report_docs: set[str] = dataclasses.field(default_factory=set)
    # pages that show a cell of a notebook ({include-cell}) and say where it ran: read again,
    # like the report pages, when any notebook is read again
    include_docs: set[str] = dataclasses.field(default_factory=set)
    # pages made from the installed API (the reference, checked literals, linked code)
    api_docs: set[str] = dataclasses.field(default_factory=set)
    # each notebook page's code cells, and the pages read since their names were last checked
    # (trtdocs.api.backrefs: checked once every page is read, on a site with the API reference)
    api_cells: dict[str, CellPage] = dataclasses.field(default_factory=dict)
    api_unchecked: set[str] = dataclasses.field(default_factory=set)
    # where each page's shown code cells use a name that links (trtdocs.api.backrefs,
    # trtdocs.api.names.UseSite)
    api_uses: dict[str, tuple[UseSite, ...]] = dataclasses.field(default_factory=dict)
    # pages that list those uses ("Used in"): written again when a page's uses change
    backref_docs: set[str] = dataclasses.field(default_factory=set)
    # -- across builds: the installed API's key when api_docs were last read
    api_key: str = ""
    # what the drift guard found of each C++ block, by page: ((code, class, sentence), ...)
    # (trtdocs.drift.captions, set at env-updated; the text blocks' marks read it too)
    cpp_captions: dict[str, tuple[tuple[str, str, str], ...]] = dataclasses.field(
        default_factory=dict
    )
    # how each install command resolved, by page: (the banner's lead, one sentence per command)
    # (trtdocs.drift.sphinx, set at env-updated)
    install_claims: dict[str, tuple[str, tuple[str, ...]]] = dataclasses.field(default_factory=dict)
    # -- per build, never pickled
    features: FeaturesTable | None = _per_build()  # trtdocs.features: loaded at builder-inited
    context: BuildContext | None = _per_build()  # trtdocs.notebooks: the gating's inputs
    api: ApiSite | None = _per_build()  # trtdocs.api: the installed API, loaded on first use
    api_uses_before: dict[str, tuple[UseSite, ...]] | None = (
        _per_build()
    )  # api_uses before this build read
    execution: Executor | None = _per_build()  # trtdocs.notebooks: the notebooks this build runs
    drift_run: GuardRun | None = _per_build()  # trtdocs.drift: the guards' run (drift/child.py)
    # trtdocs.failures: the log handler noting the pages that warn (failures._Watch)
    warn_watch: logging.Handler | None = _per_build()

    def purge(self, docname: str) -> None:
        self.plans.pop(docname, None)
        self.feature_refs.pop(docname, None)
        self.report_docs.discard(docname)
        self.include_docs.discard(docname)
        self.api_docs.discard(docname)
        self.api_cells.pop(docname, None)
        self.api_unchecked.discard(docname)
        self.api_uses.pop(docname, None)
        self.backref_docs.discard(docname)

    def merge(self, docnames: set[str], other: BuildState) -> None:
        """Take what ``other`` (a parallel reader's state) holds for ``docnames``."""
        for doc in docnames:
            if doc in other.plans:
                self.plans[doc] = other.plans[doc]
            if doc in other.feature_refs:
                self.feature_refs[doc] = other.feature_refs[doc]
            if doc in other.api_cells:
                self.api_cells[doc] = other.api_cells[doc]
            if doc in other.api_uses:
                self.api_uses[doc] = other.api_uses[doc]
        self.report_docs |= other.report_docs & docnames
        self.include_docs |= other.include_docs & docnames
        self.api_unchecked |= other.api_unchecked & docnames
        self.api_docs |= other.api_docs & docnames
        self.backref_docs |= other.backref_docs & docnames

    def __getstate__(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if not f.metadata.get("per_build")
        }

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]  # the defaults, then what was kept
        for name, value in data.items():
            setattr(self, name, value)


# The environment's attribute that holds it (Sphinx pickles the environment whole).
ATTRIBUTE = "trtdocs"


def of(env: BuildEnvironment) -> BuildState:
    """The build's state, made on first use."""
    found = getattr(env, ATTRIBUTE, None)
    if found is None:
        found = BuildState()
        setattr(env, ATTRIBUTE, found)
    return found


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    of(env).purge(docname)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    of(env).merge(docnames, of(other))


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {
        "version": "1.0",
        "env_version": ENV_VERSION,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }

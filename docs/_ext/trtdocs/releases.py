"""The release switcher in the sidebar: the releases of the features table
(docs/features.toml, as trtdocs.features validated it), with the one this
site documents marked."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

    from .features import FeaturesTable

SUPPORT_MATRIX = "docs/support-matrix"  # the page other releases link to, when it exists
# the id of a release's row in the matrix's release table (trtdocs.features.SupportMatrix)
ROW_ID = "release-{key}"
# status in the table -> what the reader is told
STATUS_WORDS = {"released": "released", "described": "described upstream, not released",
                "nightly": "nightly builds"}


@dataclasses.dataclass(frozen=True, slots=True)
class Release:
    key: str  # the key under [releases] in features.toml
    status: str  # its `status` value, or "" when absent
    documented: bool  # key == the table's top-level `documented`

    @property
    def label(self) -> str:
        return self.key if self.key[:1].isdigit() else self.key.capitalize()

    @property
    def anchor(self) -> str:
        return ROW_ID.format(key=self.key)

    @property
    def status_words(self) -> str:
        return STATUS_WORDS.get(self.status, self.status)


def releases_of(table: FeaturesTable) -> list[Release]:
    """The table's releases, oldest first, nightly last."""
    return [Release(r.key, r.status, r.key == table.documented) for r in table.releases]


def _page_context(app: Sphinx, pagename: str, templatename: str,
                  context: dict[str, Any], doctree: Any) -> None:
    context["trtdocs_releases"] = releases_of(app.trtdocs_features)
    context["trtdocs_release_link"] = SUPPORT_MATRIX if SUPPORT_MATRIX in app.env.found_docs else None


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("html-page-context", _page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

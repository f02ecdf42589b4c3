"""The release switcher in the sidebar: the releases of the features table
(docs/features.toml), with the one this site documents marked.

The table is read tolerantly: a missing file or a missing ``[releases]`` table
gives no switcher, never a build failure (the features extension validates
the table itself).
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

FEATURES_TABLE = "docs/features.toml"
SUPPORT_MATRIX = "docs/support-matrix"  # the page other releases link to, when it exists
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
    def status_words(self) -> str:
        return STATUS_WORDS.get(self.status, self.status)


def read_releases(path: Path) -> list[Release]:
    """The releases in table order; [] when the file or the table is absent."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    releases = data.get("releases")
    if not isinstance(releases, dict):
        return []
    documented = str(data.get("documented", ""))
    return [Release(str(key), str(value.get("status", "")) if isinstance(value, dict) else "",
                    str(key) == documented)
            for key, value in releases.items()]


def _page_context(app: Sphinx, pagename: str, templatename: str,
                  context: dict[str, Any], doctree: Any) -> None:
    context["trtdocs_releases"] = app.trtdocs_releases
    context["trtdocs_release_link"] = SUPPORT_MATRIX if SUPPORT_MATRIX in app.env.found_docs else None


def _load(app: Sphinx) -> None:
    app.trtdocs_releases = read_releases(Path(app.srcdir) / FEATURES_TABLE)


def setup(app: Sphinx) -> ExtensionMetadata:
    app.connect("builder-inited", _load)
    app.connect("html-page-context", _page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

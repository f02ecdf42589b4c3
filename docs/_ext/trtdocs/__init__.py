"""Sphinx extension of the Torch-TensorRT on ExecuTorch deployment guide.

Its parts, each a Sphinx extension that conf.py lists by name:

* ``trtdocs.notebooks``: executing and gating the notebooks: which cells run
  here, the marks and banners that say why the others did not, records,
  the build report, the downloads;
* ``trtdocs.output``: what readers see around outputs: streams, log noise,
  tracebacks, build-machine paths, ``%%writefile`` cells, folded blocks;
* ``trtdocs.features``: the features table (``docs/features.toml``): version
  notes, the support matrix, install commands, the release switcher;
* ``trtdocs.api``: the API reference from the installed wheels' sources, and
  links to it from prose literals and code cells;
* ``trtdocs.datatables``: the tables of ``docs/data/*.toml``;
* ``trtdocs.benchresults``: the build-speed table;
* ``trtdocs.failures``: errors hold on every build until their cause is gone;
* ``trtdocs.site``: the site at any width and in either theme: tables,
  diagrams, maintainer pages out of the readers' way;
* ``trtdocs.drift``: the drift guards, run in the build.

Shared by all: :mod:`.vocab` (the words, said once), :mod:`.config` (every
``trtdocs_*`` setting), :mod:`.state` (what a build keeps, ``env.trtdocs``).
Listing ``"trtdocs"`` alone sets up every part but the drift guards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

# Its parts that are Sphinx extensions (all but the drift guards), set up in this order.
PARTS = (
    "features",
    "notebooks",
    "output",
    "api",
    "datatables",
    "benchresults",
    "failures",
    "site",
)


def setup(app: Sphinx) -> ExtensionMetadata:
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

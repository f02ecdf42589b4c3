"""Executing and gating the notebooks: which cells run on this machine, why
the others do not, and what readers see about it.

The route of a cell's requirement, from ``:requires:`` to its mark:

* :mod:`.reader`: myst-nb's reader for each ``.md`` page: reads it, then
  :func:`.gating.gate` decides, cell by cell, with :mod:`.requirements`
  (capabilities, ``feature:<id>``, package requirements) against the probe
  (:mod:`.environment`) and what each cell reads (:mod:`.dataflow`);
* :mod:`.plan`: the decision as data: the page's :class:`~.plan.PagePlan`,
  each skipped cell's needs and reasons;
* :mod:`.parser`: once myst-nb rendered the page, :func:`.marks.place` lays
  the decision out: the banner's place, a mark before each skipped cell;
* :mod:`.banner`: the status banner and the running time, filled in at the end;
* :mod:`.textmarks`: a block shown as text takes the same ``:requires:`` on
  ``{code-block}`` and carries the same mark, with what the build checked of it.

Running them: :mod:`.jobs` starts, before Sphinx reads the pages, the
notebooks the cache lacks on :mod:`.execute`'s executor, several at once, all
in the build's run folder, pages that share files there in reading order
(:mod:`.handoffs`); each page's reader waits for its own.

Beside it: :mod:`.cachekey` (the execution cache's key), :mod:`.recorded`
(outputs recorded on a machine that met the requirements), :mod:`.provenance`
(provenance.json, the build report, records, strict mode), :mod:`.downloads`
(each page's .ipynb and .md), :mod:`.pageneeds` (``{page-needs}``),
:mod:`.execerrors` (a failed execution in this project's words), :mod:`.launch`
(the "Open in Colab" row, to the notebook :mod:`.colab` says the deploy publishes),
:mod:`.setupcell` (the download's first cell, which sets a Colab runtime up),
:mod:`.frontmatter`, :mod:`.cxxsdk` (ExecuTorch's C++ package).
:mod:`.sphinx` connects them to the build.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata


# Its modules that are Sphinx extensions, set up in this order.
PARTS = ("sphinx", "launch")


def setup(app: Sphinx) -> ExtensionMetadata:
    for part in PARTS:
        app.setup_extension(f"{__name__}.{part}")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

"""Each notebook page offers its notebook for download: the ``.ipynb`` with the
outputs this build produced (or the recorded ones), and the MyST source.

myst-nb writes the notebook it read to ``_build/jupyter_execute/<doc>.ipynb``;
in cache mode that copy has no outputs (the outputs live in the jupyter-cache),
so they are merged back from the cache here. The build's own marks are made
plain Markdown so that the file reads well in Jupyter: the page-status cell is
dropped, each ``not-executed`` mark becomes a quoted note, and the
``skip-execution`` tag the gating added is removed (on a machine that meets
the requirements, every cell runs).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
from docutils import nodes
from sphinx.util import logging

from . import buildpaths
from .folding import download_link
from .gating import MARK_DIRECTIVE, SKIP_TAG, STATUS_DIRECTIVE, PagePlan

if TYPE_CHECKING:
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)

# plan.status -> what the .ipynb link holds, in words
CONTENTS = {
    "executed": "with the outputs of this build",
    "partly executed": "with the outputs of the cells that ran in this build",
    "not executed": "as written, without outputs: it did not run in this build",
    "recorded": "with the outputs recorded on another machine",
}
_MARK = re.compile(r"\A```\{" + re.escape(MARK_DIRECTIVE) + r"\}\n:needs: (?P<needs>.*)\n\n(?P<reason>.*)\n```\Z", re.S)


def links(docname: str) -> list[nodes.Node]:
    """The banner's download links (the files sit next to the page); the
    browser saves them rather than showing JSON or Markdown text."""
    base = docname.rsplit("/", 1)[-1]
    return [download_link("", f"{base}.ipynb", refuri=f"{base}.ipynb", filename=f"{base}.ipynb",
                          classes=["trtdocs-download-ipynb"]),
            nodes.Text(" · "),
            download_link("", f"{base}.md", refuri=f"{base}.md", filename=f"{base}.md",
                          classes=["trtdocs-download-md"])]


def description(docname: str, plan: PagePlan) -> nodes.paragraph:
    """What the two downloads hold, in words."""
    base = docname.rsplit("/", 1)[-1]
    return nodes.paragraph(text=(
        f"Downloads: {base}.ipynb, the notebook {CONTENTS[plan.status]}; {base}.md, its MyST source "
        f"(opens as a notebook in JupyterLab with jupytext)."), classes=["trtdocs-downloads"])


def for_jupyter(nb: nbformat.NotebookNode, status: str) -> nbformat.NotebookNode:
    """A copy of the gated notebook without the build's MyST-only cells."""
    nb = nbformat.from_dict(nb)
    cells, untag = [], False
    for cell in nb.cells:
        source = cell.source.strip()
        if cell.cell_type == "markdown" and source.startswith(f"```{{{STATUS_DIRECTIVE}}}"):
            continue
        mark = _MARK.match(source) if cell.cell_type == "markdown" else None
        if mark:
            cell.source = (f"> **Not executed in this build** (needs: {mark['needs']}): "
                           f"{mark['reason'].strip()}")
            untag = True
        elif cell.cell_type == "code":
            tags = cell.metadata.get("tags", [])
            if untag and SKIP_TAG in tags:
                tags.remove(SKIP_TAG)
                if not tags:
                    del cell.metadata["tags"]
            cell.metadata.pop("trtdocs", None)
            untag = False
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("source_map", None)
    nb.metadata["trtdocs"] = {"status": status}
    return nb


def executed_notebook(app: Sphinx, docname: str, plan: PagePlan) -> nbformat.NotebookNode | None:
    """The notebook as this build rendered it, outputs included (from the
    jupyter-cache when myst-nb wrote it without them)."""
    config = app.env.mystnb_config
    path = Path(config.output_folder, f"{docname}.ipynb")
    if not path.is_file():
        return None
    nb = nbformat.read(path, as_version=4)
    has_outputs = any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    if not has_outputs and plan.status in ("executed", "partly executed"):
        from jupyter_cache import get_cache

        try:
            _, nb = get_cache(config.execution_cache_path).merge_match_into_notebook(nb)
        except KeyError:
            logger.warning(f"{docname}: ran in this build, but its outputs are neither in {path} "
                           f"nor in the jupyter-cache; the download has no outputs",
                           location=docname, type="trtdocs", subtype="downloads")
    return nb


def write(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object) -> None:
    """At html-page-context, for each notebook page Sphinx writes: its downloads,
    next to its HTML (a page that is not rewritten keeps the ones it has)."""
    plan = app.env.trtdocs_pages.get(pagename)
    if plan is None or app.builder.format != "html":
        return
    out = Path(app.outdir, pagename)
    out.parent.mkdir(parents=True, exist_ok=True)
    nb = executed_notebook(app, pagename, plan)
    if nb is None:
        if any(kind == "error" for _, _, kind in plan.problems):
            return  # the page failed to execute, and its error says why
        logger.warning(f"{pagename}: myst-nb wrote no notebook to {app.env.mystnb_config.output_folder}",
                       location=pagename, type="trtdocs", subtype="downloads")
        return
    download = for_jupyter(nb, plan.status)
    buildpaths.scrub_outputs(download, buildpaths.replacements(app))
    nbformat.write(download, out.with_name(out.name + ".ipynb"))
    shutil.copyfile(Path(app.srcdir, app.env.doc2path(pagename, base=False)),
                    out.with_name(out.name + ".md"))


def setup(app: Sphinx) -> None:
    app.connect("html-page-context", write)

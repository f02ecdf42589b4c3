"""Each notebook page offers its notebook for download: the ``.ipynb`` with the
outputs this build produced (or the recorded ones), and the MyST source.

myst-nb writes the notebook it read to ``_build/jupyter_execute/<doc>.ipynb``;
in cache mode that copy has no outputs (the outputs live in the jupyter-cache),
so they are merged back from the cache here. The gating's decisions become
plain Markdown so that the file reads well in Jupyter: a quoted note before
each cell that did not run (from the page's plan), and no ``skip-execution``
tag (on a machine that meets the requirements, every cell runs).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
from docutils import nodes
from sphinx.util import logging

from .. import state
from ..output import buildpaths
from ..output.folding import download_link
from .plan import SKIP_TAG, PagePlan
from .reader import stable_ids

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


def for_jupyter(nb: nbformat.NotebookNode, plan: PagePlan) -> nbformat.NotebookNode:
    """A copy of the gated notebook as a reader's Jupyter shows it: a note
    before each cell that did not run, and no build metadata."""
    nb = nbformat.from_dict(nb)
    notes: dict[int, nbformat.NotebookNode] = {}
    for s in plan.skipped if plan.record is None else ():
        needs = ", ".join(s.needs) or "dependency"
        notes[s.index] = nbformat.v4.new_markdown_cell(
            f"> **Not executed in this build** (needs: {needs}): {s.reason.strip()}")
        tags = nb.cells[s.index].metadata.get("tags", [])
        if SKIP_TAG in tags:
            tags.remove(SKIP_TAG)
            if not tags:
                del nb.cells[s.index].metadata["tags"]
    cells = []
    for index, cell in enumerate(nb.cells):
        if index in notes:
            cells.append(notes[index])
        if cell.cell_type == "code":
            cell.metadata.pop("trtdocs", None)
        cells.append(cell)
    nb.cells = cells
    stable_ids(nb)
    nb.metadata.pop("source_map", None)
    nb.metadata["trtdocs"] = {"status": plan.status}
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
    plan = state.of(app.env).plans.get(pagename)
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
    download = for_jupyter(nb, plan)
    buildpaths.scrub_outputs(download, buildpaths.replacements(app))
    nbformat.write(download, out.with_name(out.name + ".ipynb"))
    shutil.copyfile(Path(app.srcdir, app.env.doc2path(pagename, base=False)),
                    out.with_name(out.name + ".md"))


def setup(app: Sphinx) -> None:
    app.connect("html-page-context", write)

"""Where a cell shown on another page ran: the line under an ``{include-cell}``
block (:mod:`trtdocs.output.cellinclude`).

At ``doctree-resolved``, once every notebook's plan and execution data exist,
each placeholder becomes one line from the cell's own page: "A cell of
*Compile and save a .pte*. Not run in this build: needs a CUDA GPU with
TensorRT." for a cell its page marks, else what that page's status says of
a run, for the one cell ("executed in this build · machine · date", also where
the page ran in part). The landing page's quick start says where its
code runs as honestly as the page it comes from.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from myst_nb.core.read import read_myst_markdown_notebook

from .. import state
from ..output.cellinclude import included_from
from .banner import EARLIER, TITLES, page_entry, summary_words
from .marks import mark_line

if TYPE_CHECKING:
    from sphinx.application import Sphinx

CLASS = "trtdocs-included-from"


def cell_index(path: Path, tag: str) -> int | None:
    """The index among all cells (myst-nb's, as the gating counts) of the one
    cell of ``path`` tagged ``tag``."""
    nb = read_myst_markdown_notebook(path.read_text(encoding="utf-8"))
    found = [i for i, c in enumerate(nb.cells) if tag in c.metadata.get("tags", [])]
    return found[0] if len(found) == 1 else None


def resolve(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """At doctree-resolved: each placeholder as the line that says where its cell ran."""
    for node in list(doctree.findall(included_from)):
        source = node["source"]
        plan = state.of(app.env).plans.get(source)
        index = cell_index(Path(app.env.doc2path(source)), node["tag"]) if plan else None
        if plan is None or index is None:
            node.parent.remove(node)  # not a notebook this build gates
            continue
        para = nodes.paragraph(classes=[CLASS, "no-search"])
        para += nodes.Text("A cell of ")
        title = app.env.titles.get(source)
        para += nodes.reference(
            "",
            title.astext() if title is not None else source,
            internal=True,
            refuri=app.builder.get_relative_uri(docname, source),
        )
        skipped = next((s for s in plan.skipped if s.index == index), None)
        if skipped is not None:
            line = mark_line(skipped.needs, plan.needs, plan.record is not None)
            para += nodes.Text(f". {line}")
        else:
            entry = page_entry(app, source, plan)
            # the cell ran: what its page says of a run, for this one cell (a page that ran
            # in part ran this cell)
            ran = "executed" if entry["status"] == "partly executed" else entry["status"]
            titles = EARLIER if entry.get("earlier") and ran in EARLIER else TITLES
            words = summary_words(entry)
            para += nodes.Text(f": {titles[ran][:1].lower()}{titles[ran][1:]}{words}.")
        node.replace_self(para)

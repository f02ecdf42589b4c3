"""Each notebook page offers its notebook for download: the ``.ipynb`` with the
outputs this build produced (or the recorded ones), and the MyST source.

myst-nb writes the notebook it read to ``_build/jupyter_execute/<doc>.ipynb``;
in cache mode that copy has no outputs (the outputs live in the jupyter-cache),
so they are merged back from the cache here. The gating's decisions become
plain Markdown so that the file reads well in Jupyter: a quoted note before
each cell that did not run (from the page's plan), and no ``skip-execution``
tag (on a machine that meets the requirements, every cell runs).

Both downloads are self-contained: every MyST directive and role of their
Markdown is rendered into Markdown text (:mod:`trtdocs.markdown.source`: the install
commands, tables, version notes, links; a diagram as an attached image in the
``.ipynb``). A download that still holds MyST syntax fails the build, naming
the page and the line.
"""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import nbformat
import yaml
from docutils import nodes
from myst_nb.core.read import read_myst_markdown_notebook
from sphinx.util import logging

from .. import config, state
from ..markdown import leftovers, source
from ..output import buildpaths
from ..output.folding import download_link
from ..site.ptediagram import execution_folder
from . import kept, marks, requirements, setupcell
from .plan import SKIP_TAG, PagePlan
from .reader import stable_ids

if TYPE_CHECKING:
    from myst_nb.sphinx_ import SphinxEnvType
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)

# plan.status -> what the .ipynb link holds, in words
CONTENTS = {
    "executed": "with the outputs of this build",
    "partly executed": "with the outputs of the cells that ran in this build",
    "not executed": "as written, without outputs: it did not run in this build",
    "recorded": "with the outputs recorded on another machine",
    "no code cells": "as written: it has no code cells",
}
# the same, for a run this build found in its execution cache (banner.EARLIER)
CONTENTS_EARLIER = {
    "executed": "with these outputs",
    "partly executed": "with these outputs, of the cells that ran",
}
# the note before a cell that did not run: in this build, or where the record shown was made
NOTE = "> **Not executed in this build**"
NOTE_RECORDED = "> **Not executed where these outputs were recorded**"


def links(docname: str) -> list[nodes.Node]:
    """The banner's download links (the files sit next to the page); the
    browser saves them rather than showing JSON or Markdown text."""
    base = docname.rsplit("/", 1)[-1]
    return [
        download_link(
            "",
            f"{base}.ipynb",
            refuri=f"{base}.ipynb",
            filename=f"{base}.ipynb",
            classes=["trtdocs-download-ipynb"],
        ),
        nodes.Text(" · "),
        download_link(
            "",
            f"{base}.md",
            refuri=f"{base}.md",
            filename=f"{base}.md",
            classes=["trtdocs-download-md"],
        ),
    ]


def description(docname: str, plan: PagePlan, earlier: bool = False) -> nodes.paragraph:
    """What the two downloads hold, in words; ``earlier``: the outputs come from
    an earlier build's run (the banner says so)."""
    base = docname.rsplit("/", 1)[-1]
    contents = (
        CONTENTS_EARLIER[plan.status]
        if earlier and plan.status in CONTENTS_EARLIER
        else CONTENTS[plan.status]
    )
    return nodes.paragraph(
        text=(
            f"Downloads: {base}.ipynb, the notebook {contents}; {base}.md, its MyST source "
            f"(opens as a notebook in JupyterLab with jupytext)."
        ),
        classes=["trtdocs-downloads"],
    )


def for_jupyter(nb: nbformat.NotebookNode, plan: PagePlan) -> nbformat.NotebookNode:
    """A copy of the gated notebook as a reader's Jupyter shows it: a note
    before each cell that did not run, and no build metadata."""
    nb = nbformat.from_dict(nb)
    notes: dict[int, nbformat.NotebookNode] = {}
    note = NOTE_RECORDED if plan.record is not None else NOTE
    for s in plan.skipped:
        needs = ", ".join(s.needs) or "dependency"
        notes[s.index] = nbformat.v4.new_markdown_cell(
            f"{note} (needs: {needs}): {s.reason.strip()}"
        )
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
    jupyter-cache when myst-nb wrote it without them). A page whose part of
    them is gone was read again (:mod:`.kept`), so both are there."""
    config = cast("SphinxEnvType", app.env).mystnb_config  # myst-nb's settings, on the env
    path = kept.notebook_path(Path(config.output_folder), docname)
    if not path.is_file():
        return None
    nb = nbformat.read(path, as_version=4)
    mode = nb.metadata.get("mystnb", {}).get("execution_mode", app.config.nb_execution_mode)
    if mode == "cache" and plan.status in kept.FROM_CACHE and not kept.has_outputs(nb):
        from jupyter_cache import get_cache

        try:
            _, nb = get_cache(config.execution_cache_path).merge_match_into_notebook(nb)
        except KeyError:
            logger.warning(
                f"{docname}: the outputs it shows are neither in {path} nor in the jupyter-cache "
                f"{config.execution_cache_path}; the download has no outputs",
                location=docname,
                type="trtdocs",
                subtype="downloads",
            )
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
        folder = cast("SphinxEnvType", app.env).mystnb_config.output_folder
        logger.warning(
            f"{pagename}: myst-nb wrote no notebook to {folder}",
            location=pagename,
            type="trtdocs",
            subtype="downloads",
        )
        return
    lines = list(nb.metadata.get("source_map") or [])
    download = for_jupyter(nb, plan)
    buildpaths.scrub_outputs(download, buildpaths.replacements(app))
    _render_cells(app, pagename, download, ".ipynb", _cell_lines(download, lines))
    setupcell.prepare(download, plan, state.of(app.env).features)  # Colab's first cell
    nbformat.write(download, out.with_name(out.name + ".ipynb"))
    page = Path(app.srcdir, app.env.doc2path(pagename, base=False))
    text = _markdown_download(app, pagename, page)
    out.with_name(out.name + ".md").write_text(text, encoding="utf-8")


def _cell_lines(nb: nbformat.NotebookNode, source_map: list[int]) -> list[int]:
    """The page line where each cell of the download starts (1 for an added note)."""
    starts = iter(source_map)
    out = []
    for cell in nb.cells:
        added = cell.cell_type == "markdown" and cell.source.startswith((NOTE, NOTE_RECORDED))
        out.append(1 if added else next(starts, 0) + 1)
    return out


def context(app: Sphinx, pagename: str, suffix: str, diagram: Any = None) -> source.Context:
    """What :mod:`trtdocs.markdown.source` needs of this build to render one page's download."""
    env = app.env
    build = state.of(env)
    assert build.features is not None, "trtdocs.features is not set up"
    std = env.domains.standard_domain
    titled = std.labels  # labels of a section, figure or table: (docname, anchor, title)
    labels = {
        name: (doc, anchor, titled[name][2] if name in titled else "")
        for name, (doc, anchor) in std.anonlabels.items()
    }
    features = build.features

    def requires_mark(value: str) -> str:
        """The line of the mark over a block shown as text (:func:`.marks.text_line`)."""
        try:
            needs = requirements.parse(yaml.safe_load(value))
        except yaml.YAMLError as exc:
            raise ValueError(f"`:requires:` is not YAML: {exc}") from None
        words = {r: requirements.describe(r, features.requirement) for r in needs}
        return marks.text_line(needs, words)

    return source.Context(
        features=build.features,
        data_dir=Path(app.srcdir, config.of(app.config).data_dir),
        page=pagename,
        suffix=suffix,
        titles={doc: title.astext() for doc, title in env.titles.items()},
        labels=labels,
        notebooks=frozenset(build.plans),
        extlinks=dict(
            getattr(app.config, "extlinks", None) or {}
        ),  # none without sphinx.ext.extlinks
        baseurl=app.config.html_baseurl or "",
        diagram=diagram,
        folder=execution_folder(env, pagename),
        requires_mark=requires_mark,
    )


def _render_cells(
    app: Sphinx, pagename: str, nb: nbformat.NotebookNode, suffix: str, lines: list[int]
) -> None:
    """Each Markdown cell of ``nb`` rendered; a diagram becomes an attached image."""
    for cell, line in zip(nb.cells, lines, strict=True):
        if cell.cell_type != "markdown":
            continue
        attachments: dict[str, dict[str, str]] = {}
        try:
            cell.source = source.render(
                cell.source, context(app, pagename, suffix, _diagrams(app, attachments))
            )
        except source.DownloadError as exc:
            _report(pagename, line + exc.line - 1, str(exc))
            continue
        if attachments:
            cell["attachments"] = attachments
        for left in leftovers.find(cell.source):
            _report(pagename, line + left.line - 1, f"the {suffix} download keeps {left.what}")


def _markdown_download(app: Sphinx, pagename: str, page: Path) -> str:
    """The MyST text notebook with its Markdown rendered, as jupytext writes it."""
    nb = read_myst_markdown_notebook(page.read_text(encoding="utf-8"), add_source_map=True)
    lines = [line + 1 for line in nb.metadata.pop("source_map")]
    for cell, line in zip(nb.cells, lines, strict=True):
        if cell.cell_type != "markdown":
            continue
        try:
            cell.source = source.render(cell.source, context(app, pagename, ".md"))
        except source.DownloadError as exc:
            _report(pagename, line + exc.line - 1, str(exc))
    text = myst_text(nb)
    for left in leftovers.find(text, cells=True):
        _report(pagename, 1, f"the .md download keeps {left.what} (at its line {left.line})")
    return text


# The front matter a reader's Jupyter reads, besides jupytext's own and the kernel:
# myst-nb's execution settings (a page's longer `execution_timeout`). The project's
# keys (`requires`, `inputs`) tell this site's build what to gate and re-read: no
# reader's tool reads them, so the download leaves them out.
READER_METADATA = "mystnb"


def myst_text(nb: nbformat.NotebookNode) -> str:
    """``nb`` as a MyST text notebook (jupytext), with the front matter a reader needs."""
    import jupytext  # a build that writes a notebook page pays for it, not a no-op build

    return jupytext.writes(
        nb,
        fmt={
            "extension": ".md",
            "format_name": "myst",
            "notebook_metadata_filter": READER_METADATA,
        },
    )


def _diagrams(app: Sphinx, attachments: dict[str, dict[str, str]]) -> Any:
    """A diagram maker for one cell: Graphviz draws a PNG that the cell attaches."""

    def make(code: str, alt: str) -> str:
        dot = app.config.graphviz_dot if hasattr(app.config, "graphviz_dot") else "dot"
        png = subprocess.run(
            [dot, "-Tpng", "-Gdpi=144"], input=code.encode(), capture_output=True, check=True
        ).stdout
        name = f"diagram-{len(attachments) + 1}.png"
        attachments[name] = {"image/png": base64.b64encode(png).decode("ascii")}
        return f"![{alt}](attachment:{name})"

    return make


def _report(pagename: str, line: int, message: str) -> None:
    logger.error(message, location=(pagename, line), type="trtdocs", subtype="downloads")

"""A notebook that fails to execute reads as this project's error.

myst-nb raises on a failed execution (``nb_execution_raise_on_error``), and
nbclient's ``DeadKernelError`` escapes jupyter-cache altogether; either ends
the build in Sphinx's crash report. This module registers myst-nb's parser,
subclassed: it catches those failures, and the build reports, for the page,
the cell's line in the ``.md`` file, what happened and what to change. The
page keeps what was rendered and says, at its end, that it failed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from docutils import nodes
from myst_nb.core.execute.base import ExecutionError
from myst_nb.sphinx_ import Parser as MystNbParser
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from sphinx.util import logging

if TYPE_CHECKING:
    import nbformat
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # IPython colours its tracebacks
# Tags that keep a cell, or its output, off the page (myst-nb's vocabulary).
HIDING_TAGS = frozenset({"remove-cell", "remove-input", "remove-output", "hide-cell", "hide-output"})


def _failed_cell(error: BaseException, nb: nbformat.NotebookNode) -> tuple[int, Any] | None:
    """The cell that was running when execution stopped, with its index.

    nbclient's exceptions do not say which cell; the frame of
    ``NotebookClient.async_execute_cell`` in the traceback holds its index. The
    kernel's reply may never arrive, so ``execution_count`` alone cannot tell a
    cell that finished from one that was running; it is the fallback.
    """
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "async_execute_cell" and isinstance(frame.f_locals.get("cell_index"), int):
            index = frame.f_locals["cell_index"]
            if 0 <= index < len(nb.cells):
                return index, nb.cells[index]
        tb = tb.tb_next
    started = [(i, c) for i, c in enumerate(nb.cells)
               if c.cell_type == "code" and c.get("execution_count") is not None]
    return started[-1] if started else None


def _timeout(nb: nbformat.NotebookNode, app: Sphinx) -> tuple[Any, str]:
    """The timeout in effect and where it is set."""
    if "timeout" in nb.metadata.get("execution", {}):
        return nb.metadata["execution"]["timeout"], "`execution: timeout:` in this page's front matter"
    if "execution_timeout" in nb.metadata.get("mystnb", {}):
        return (nb.metadata["mystnb"]["execution_timeout"],
                "`mystnb: execution_timeout:` in this page's front matter")
    return app.config.nb_execution_timeout, "`nb_execution_timeout` in conf.py"


def describe(error: BaseException, nb: nbformat.NotebookNode, app: Sphinx) -> tuple[int, str]:
    """The line to report and the message: what happened, and what to change."""
    lines = list(nb.metadata.get("source_map", []))
    found = _failed_cell(error, nb)
    index, cell = found if found else (None, None)
    line = lines[index] if index is not None and index < len(lines) else 1
    number = (sum(1 for c in nb.cells[:index + 1] if c.cell_type == "code") if index is not None else None)
    where = f"the code cell at line {line} (cell {number})" if number else "a code cell"
    hidden = sorted(HIDING_TAGS & set(cell.metadata.get("tags", []))) if cell is not None else []
    note = (f" The cell is tagged {', '.join(f'`{t}`' for t in hidden)}, so the page does not show "
            f"it or its traceback." if hidden else "")
    if isinstance(error, DeadKernelError):
        return line, (f"the kernel died while {where} ran: the Python process ended (os._exit, "
                      f"a crash in native code, or out of memory) and no later cell ran.{note} "
                      f"Run the notebook in Jupyter to see how it ends, and change the cell so "
                      f"that the process survives it.")
    if isinstance(error, CellTimeoutError):
        value, setting = _timeout(nb, app)
        return line, (f"{where} ran longer than the execution timeout of {value} s, set by "
                      f"{setting}; the kernel was interrupted.{note} Make the cell faster, or "
                      f"raise the timeout for this page with `mystnb: execution_timeout: <seconds>` "
                      f"in its front matter (`nb_execution_timeout` in conf.py sets it for every page).")
    if isinstance(error, CellExecutionError):
        details = _ANSI.sub("", str(error)).strip()  # the cell's source and IPython's traceback
        return line, (f"{where} raised {error.ename}: {error.evalue}.{note} Fix the cell; if the "
                      f"error is what the page means to show, tag the cell `raises-exception`.\n"
                      f"{details}")
    return line, f"executing the notebook failed: {type(error).__name__}: {error}"


class Parser(MystNbParser):
    """myst-nb's notebook parser; a failed execution becomes a page error."""

    def parse(self, inputstring: str, document: nodes.document) -> None:
        from .gating import read_notebook

        try:
            super().parse(inputstring, document)
        except (ExecutionError, DeadKernelError) as exc:
            cause = exc.__cause__ if isinstance(exc, ExecutionError) and exc.__cause__ else exc
            env = read_notebook.app.env
            docname = env.docname
            nb = read_notebook.notebooks.pop(docname, None)
            line, message = describe(cause, nb, read_notebook.app) if nb is not None else (1, str(cause))
            plan = env.trtdocs_pages.get(docname)
            if plan is not None:  # reported, and fails the build, at build-finished
                plan.problems.append((line, message, "error"))
            else:
                logger.error(message, location=(docname, line), type="trtdocs", subtype="execution")
            # Execution stopped before myst rendered the page; its transforms
            # still read the settings the renderer sets when it finishes.
            document.attributes.pop("nb_renderer", None)  # myst-nb removes it when it finishes
            config = env.myst_config
            document.settings.myst_footnote_transition = config.footnote_transition
            document.settings.myst_footnote_sort = config.footnote_sort
            document.settings.myst_heading_anchors_html_ids = config.heading_anchors_html_ids
            title = next((t[2:].strip() for t in inputstring.splitlines() if t.startswith("# ")), docname)
            section = nodes.section(ids=[nodes.make_id(title) or "page"],
                                    names=[nodes.fully_normalize_name(title)])
            section += nodes.title(text=title)
            summary, _, details = message.partition("\n")
            box = nodes.error("", nodes.paragraph(
                text=f"This page failed to build: {env.doc2path(docname, False)}:{line}: {summary}"))
            if details:
                box += nodes.literal_block(details, details)
            section += box
            document += section
        else:
            read_notebook.notebooks.pop(read_notebook.app.env.docname, None)


def setup(app: Sphinx) -> None:
    app.add_source_parser(Parser, override=True)

"""A notebook that fails to execute, in this project's words: the cell's line
in the ``.md`` file, what happened and what to change (:func:`describe`).

myst-nb raises on a failed execution (``nb_execution_raise_on_error``), and
nbclient's ``DeadKernelError`` escapes jupyter-cache altogether; either would
end the build in Sphinx's crash report. :class:`.parser.Parser` catches them
and reports :func:`describe`'s message for the page.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

if TYPE_CHECKING:
    import nbformat
    from sphinx.config import Config
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # IPython colours its tracebacks
# Tags that keep a cell, or its output, off the page (myst-nb's vocabulary).
HIDING_TAGS = frozenset(
    {"remove-cell", "remove-input", "remove-output", "hide-cell", "hide-output"}
)


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
        if frame.f_code.co_name == "async_execute_cell" and isinstance(
            frame.f_locals.get("cell_index"), int
        ):
            index = frame.f_locals["cell_index"]
            if 0 <= index < len(nb.cells):
                return index, nb.cells[index]
        tb = tb.tb_next
    started = [
        (i, c)
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and c.get("execution_count") is not None
    ]
    return started[-1] if started else None


def _timeout(nb: nbformat.NotebookNode, config: Config) -> tuple[Any, str]:
    """The timeout in effect and where it is set."""
    if "timeout" in nb.metadata.get("execution", {}):
        return nb.metadata["execution"][
            "timeout"
        ], "`execution: timeout:` in this page's front matter"
    if "execution_timeout" in nb.metadata.get("mystnb", {}):
        return (
            nb.metadata["mystnb"]["execution_timeout"],
            "`mystnb: execution_timeout:` in this page's front matter",
        )
    return config.nb_execution_timeout, "`nb_execution_timeout` in conf.py"


def describe(error: BaseException, nb: nbformat.NotebookNode, config: Config) -> tuple[int, str]:
    """The line to report and the message: what happened, and what to change."""
    lines = list(nb.metadata.get("source_map", []))
    found = _failed_cell(error, nb)
    index, cell = found if found else (None, None)
    line = lines[index] if index is not None and index < len(lines) else 1
    number = (
        sum(1 for c in nb.cells[: index + 1] if c.cell_type == "code")
        if index is not None
        else None
    )
    where = f"the code cell at line {line} (cell {number})" if number else "a code cell"
    hidden = sorted(HIDING_TAGS & set(cell.metadata.get("tags", []))) if cell is not None else []
    note = (
        f" The cell is tagged {', '.join(f'`{t}`' for t in hidden)}, so the page does not show "
        f"it or its traceback."
        if hidden
        else ""
    )
    if isinstance(error, DeadKernelError):
        return line, (
            f"the kernel died while {where} ran: the Python process ended (os._exit, "
            f"a crash in native code, or out of memory) and no later cell ran.{note} "
            f"Run the notebook in Jupyter to see how it ends, and change the cell so "
            f"that the process survives it."
        )
    if isinstance(error, CellTimeoutError):
        value, setting = _timeout(nb, config)
        return line, (
            f"{where} ran longer than the execution timeout of {value} s, set by "
            f"{setting}; the kernel was interrupted.{note} Make the cell faster, or "
            f"raise the timeout for this page with `mystnb: execution_timeout: <seconds>` "
            f"in its front matter (`nb_execution_timeout` in conf.py sets it for every page)."
        )
    if isinstance(error, CellExecutionError):
        details = _ANSI.sub("", str(error)).strip()  # the cell's source and IPython's traceback
        return line, (
            f"{where} raised {error.ename}: {error.evalue}.{note} Fix the cell; if the "
            f"error is what the page means to show, tag the cell `raises-exception`.\n"
            f"{details}"
        )
    return line, f"executing the notebook failed: {type(error).__name__}: {error}"

"""The notebook reader myst-nb calls for every ``.md`` page (registered as a
custom format by :mod:`.sphinx`): it reads the MyST text notebook, gates it
(:func:`.gating.gate`), keeps the plan in the build state, and waits for the
page's execution when :mod:`.jobs` started one (myst-nb then finds the outputs
in its cache; a failure becomes the page's error).

myst-nb passes a reader only the page's text. The page being read, and where
its plan goes, come from :data:`READING`, which :class:`.parser.Parser` sets
around each parse: no module-level object is shared between pages.
"""

from __future__ import annotations

import contextvars
import dataclasses
from typing import TYPE_CHECKING

import nbformat
from myst_nb.core.execute.base import ExecutionError
from myst_nb.core.read import is_myst_markdown_notebook, read_myst_markdown_notebook
from sphinx.util import logging

from .. import state
from . import recorded
from .frontmatter import front_matter_problem
from .gating import gate

if TYPE_CHECKING:
    from sphinx.environment import BuildEnvironment

    from .execute import Outcome
    from .plan import BuildContext, PagePlan

logger = logging.getLogger(__name__)

# What nb_custom_formats names (conf.py sets nothing: trtdocs.notebooks registers it).
READER = "trtdocs.notebooks.reader.read_notebook"


@dataclasses.dataclass(slots=True)
class Reading:
    """The page being parsed in this process."""

    env: BuildEnvironment
    docname: str
    notebook: nbformat.NotebookNode | None = None  # as gated and handed to myst-nb for execution


READING: contextvars.ContextVar[Reading] = contextvars.ContextVar("trtdocs_reading")


def read_notebook(text: str) -> nbformat.NotebookNode:
    """myst-nb's custom-format reader: the gated notebook of the page being read."""
    try:
        reading = READING.get()
    except LookupError:
        raise RuntimeError(
            "trtdocs.notebooks reads notebooks only through its parser "
            "(trtdocs.notebooks.parser.Parser)"
        ) from None
    if (bad := front_matter_problem(text)) is not None:
        return _broken_front_matter(reading.docname, text, *bad)
    build = state.of(reading.env)
    assert build.context is not None and build.features is not None, (
        "trtdocs.notebooks is not set up"
    )
    nb, plan = gated(text, build.context, reading.docname)
    if plan is None:
        return nb  # a plain Markdown page
    build.plans[reading.docname] = plan
    # Read the page again when what decided its gating changes.
    reading.env.note_dependency(str(build.features.path))
    if plan.record_seen:
        reading.env.note_dependency(
            str(recorded.record_path(build.context.record_dir, reading.docname))
        )
    reading.notebook = nb
    if (
        build.execution is not None
        and (outcome := build.execution.outcome(reading.docname)) is not None
    ):
        log_outcome(reading.docname, outcome)
        if outcome.error is not None:  # the parser reports it as the page's error
            raise ExecutionError(str(reading.env.doc2path(reading.docname))) from outcome.error
    return nb


def gated(
    text: str, context: BuildContext, docname: str
) -> tuple[nbformat.NotebookNode, PagePlan | None]:
    """The notebook of a page with valid front matter as myst-nb reads, gates and
    executes it, and the gating's plan (None for a plain Markdown page). The
    same text gives the same notebook: the execution cache's key."""
    nb = read_myst_markdown_notebook(text, add_source_map=True)
    if not is_myst_markdown_notebook(text):
        # A plain Markdown page: render it, execute nothing.
        nb.metadata["mystnb"] = {"execution_mode": "off"}
        return nb, None
    plan = gate(nb, context, docname)
    stable_ids(nb)
    return nb, plan


def log_outcome(docname: str, outcome: Outcome) -> None:
    """myst-nb's words for an execution that ran to its end, which the benchmark
    reads (a failure is the page's error instead)."""
    if outcome.error is None:
        logger.info("Executed notebook in %.2f seconds", outcome.seconds, location=docname)


def _broken_front_matter(docname: str, text: str, line: int, message: str) -> nbformat.NotebookNode:
    """Report the page, at the file line; render only the error, execute nothing."""
    logger.error(message, location=(docname, line), type="trtdocs", subtype="front-matter")
    title = next((t for t in text.splitlines() if t.startswith("# ")), f"# {docname}")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            f"{title}\n\n```{{error}}\nThis page failed to build: its front matter is broken "
            f"(line {line}): {message}\n```\n"
        )
    ]
    nb.metadata["mystnb"] = {"execution_mode": "off"}
    stable_ids(nb)
    return nb


def stable_ids(nb: nbformat.NotebookNode) -> None:
    """Cell ids from the cells' places: nbformat draws random ones, and two
    builds of one checkout must write the same notebooks."""
    for number, cell in enumerate(nb.cells, start=1):
        cell["id"] = f"cell-{number}"

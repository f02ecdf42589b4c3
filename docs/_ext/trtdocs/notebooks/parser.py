"""myst-nb's notebook parser, as this site reads a notebook page.

Around myst-nb's own parse, :class:`Parser` names the page for the reader
(:data:`.reader.READING`), which gates the notebook; when the page is
rendered, it lays the gating's decisions out on it (:func:`.marks.place`: the
page's banner and a mark before each cell that did not run). A notebook that
fails to execute becomes this project's error for the page
(:func:`.execerrors.describe`): the page keeps what was rendered and says that
it failed.
"""

from __future__ import annotations

from typing import cast

from docutils import nodes
from myst_nb.core.execute.base import ExecutionError
from myst_nb.sphinx_ import Parser as MystNbParser
from myst_nb.sphinx_ import SphinxEnvType
from nbclient.exceptions import DeadKernelError
from sphinx.util import logging

from .. import state
from . import buildlog, downloads, marks
from .execerrors import describe
from .reader import READING, Reading

logger = logging.getLogger(__name__)


class Parser(MystNbParser):
    """myst-nb's notebook parser; gated pages get their marks, a failed execution
    becomes a page error."""

    def parse(self, inputstring: str, document: nodes.document) -> None:
        env = getattr(document.settings, "env", None) or self.env
        reading = Reading(env, env.docname)
        token = READING.set(reading)
        buildlog.quiet_page(document)
        try:
            super().parse(inputstring, document)
        except (ExecutionError, DeadKernelError) as exc:
            cause = exc.__cause__ if isinstance(exc, ExecutionError) and exc.__cause__ else exc
            self._failed(reading, cause, inputstring, document)
        else:
            plan = state.of(env).plans.get(reading.docname)
            if plan is not None and reading.notebook is not None:
                marks.place(document, plan, reading.docname, downloads.row(reading.docname))
        finally:
            READING.reset(token)

    def _failed(
        self, reading: Reading, cause: BaseException, inputstring: str, document: nodes.document
    ) -> None:
        env, docname, nb = reading.env, reading.docname, reading.notebook
        line, message = describe(cause, nb, env.config) if nb is not None else (1, str(cause))
        plan = state.of(env).plans.get(docname)
        if plan is not None:  # reported, and fails the build, at build-finished
            plan.problems.append((line, message, "error"))
        else:
            logger.error(message, location=(docname, line), type="trtdocs", subtype="execution")
        # Execution stopped before myst rendered the page; its transforms
        # still read the settings the renderer sets when it finishes.
        document.attributes.pop("nb_renderer", None)  # myst-nb removes it when it finishes
        config = cast(SphinxEnvType, env).myst_config  # myst's settings, on the env
        document.settings.myst_footnote_transition = config.footnote_transition
        document.settings.myst_footnote_sort = config.footnote_sort
        document.settings.myst_heading_anchors_html_ids = config.heading_anchors_html_ids
        title = next(
            (t[2:].strip() for t in inputstring.splitlines() if t.startswith("# ")), docname
        )
        section = nodes.section(
            ids=[nodes.make_id(title) or "page"], names=[nodes.fully_normalize_name(title)]
        )
        section += nodes.title(text=title)
        summary, _, details = message.partition("\n")
        box = nodes.error(
            "",
            nodes.paragraph(
                text=f"This page failed to build: {env.doc2path(docname, False)}:{line}: {summary}"
            ),
        )
        if details:
            box += nodes.literal_block(details, details)
        section += box
        document += section

"""The build's log about notebooks: one line a notebook that runs
("<page>: Executed notebook in N seconds", :func:`.reader.log_outcome`), and
the build's result.

myst and myst-nb log at INFO what a reader of the log has no use for: each
one's whole settings object when the builder starts (``myst v5.2.0:
MdParserConfig(...)``, ``myst-nb v1.4.0: NbParserConfig(...)``, with
``Using jupyter-cache at: ...``), and a page's cache record when myst-nb takes
its outputs from the cache (``Using cached notebook: ID=3``). The loggers of
the dumps are raised to WARNING; the page's logger drops that one line (it also
says "Executed notebook in", should myst-nb run a page itself). Warnings and
errors still show. The kernels the build starts log nothing either
(:func:`.execute._kernels`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from myst_nb.core.loggers import SphinxDocLogger
from sphinx.util import logging as sphinx_logging

if TYPE_CHECKING:
    from docutils import nodes

# The modules whose loggers log their package's settings at builder-inited.
CONFIG_DUMPS = (
    "myst_parser.sphinx_ext.main",  # create_myst_config: "myst v...: MdParserConfig(...)"
    "myst_nb.sphinx_ext",  # create_mystnb_config: "myst-nb v...: NbParserConfig(...)"
)


def quiet_config_dumps() -> None:
    """At setup(), before builder-inited: the settings dumps go."""
    for name in CONFIG_DUMPS:
        sphinx_logging.getLogger(name).logger.setLevel(logging.WARNING)


class _CacheRecordLine(logging.Filter):
    """Drops myst-nb's INFO line naming the cache record a page's outputs come from."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not str(record.msg).startswith(
            "Using cached notebook:"
        )


_CACHE_RECORD_LINE = _CacheRecordLine()


def quiet_page(document: nodes.document) -> None:
    """Before myst-nb parses the page: its per-page logger (myst-nb makes one a
    page, named after it) drops the cache record line."""
    SphinxDocLogger(document).logger.logger.addFilter(_CACHE_RECORD_LINE)  # adds it once

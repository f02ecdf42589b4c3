"""Errors hold until their cause is gone, on every build.

Sphinx reports a warning or an error only while it reads or writes the page
that causes it. With ``--keep-going`` the environment of a failed build is
saved, so the next incremental build reads nothing and passes. This module
watches Sphinx's log (a :class:`logging.Handler` on Sphinx's logger), notes
every page a warning or an error points at, and keeps that list beside the
environment (``<doctreedir>/trtdocs-warned.json``). At ``env-get-outdated``
those pages are read again, so their messages come back until the page, or
whatever it reads, is fixed. An error fails the build with or without ``-W``:
every part logs its errors and this module alone sets ``app.statuscode``.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx.util.logging import NAMESPACE, get_node_location, is_suppressed_warning

from . import state

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

WARNED_FILE = "trtdocs-warned.json"
_LINE_SUFFIX = re.compile(r"(:\d+)?:?$")


class _Watch(logging.Handler):
    """Notes the page of every warning and error this build logs."""

    def __init__(self, app: Sphinx) -> None:
        super().__init__(logging.WARNING)
        self.app = app
        self.docs: set[str] = set()
        self.errors = 0

    def emit(self, record: logging.LogRecord) -> None:
        if is_suppressed_warning(
            getattr(record, "type", ""),
            getattr(record, "subtype", ""),
            self.app.config.suppress_warnings,
        ):
            return
        if record.levelno >= logging.ERROR:
            self.errors += 1
        doc = self._docname(getattr(record, "location", None))
        if doc:
            self.docs.add(doc)

    def _docname(self, location: object) -> str | None:
        env = self.app.env
        if isinstance(location, tuple) and location:
            location = location[0]
        if isinstance(location, nodes.Node):
            location = get_node_location(location)  # "<source>:<line>", or None
        if isinstance(location, str) and location:
            if location in env.all_docs or location in env.found_docs:
                return location
            path = _LINE_SUFFIX.sub("", location)
            try:
                return env.path2doc(path)
            except (ValueError, OSError):
                return None
        try:
            return env.docname or None  # a message logged while a page is read
        except (AttributeError, KeyError):
            return None


def _warned_path(app: Sphinx) -> Path:
    return Path(app.doctreedir) / WARNED_FILE


def _previous(app: Sphinx) -> set[str]:
    try:
        return set(json.loads(_warned_path(app).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return set()


def _start(app: Sphinx) -> None:
    watch = _Watch(app)
    logging.getLogger(NAMESPACE).addHandler(watch)
    state.of(app.env).warn_watch = watch  # per build: a handler cannot live in the pickled env


def _outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """Read again every page that warned in the last build."""
    return sorted(
        d for d in _previous(app) & env.found_docs if d not in changed and d not in removed
    )


def _finish(app: Sphinx, exc: Exception | None) -> None:
    """Runs last at build-finished: keep the pages that warned, fail on errors. This is
    the one place a part fails the build: a part logs an error, and this sets the
    exit status."""
    build = state.of(app.env)
    watch, build.warn_watch = build.warn_watch, None
    if not isinstance(watch, _Watch):
        return
    logging.getLogger(NAMESPACE).removeHandler(watch)
    docs = watch.docs | (_previous(app) if exc is not None else set())
    path = _warned_path(app)
    if docs or path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(sorted(docs), indent=1) + "\n", encoding="utf-8")
    if watch.errors:
        app.statuscode = 1


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.state")
    app.connect("builder-inited", _start, priority=100)
    app.connect("env-get-outdated", _outdated)
    app.connect("build-finished", _finish, priority=990)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

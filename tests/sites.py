"""Builds of the fixture sites (``tests/roots/test-<name>``) in this process,
with sphinx.testing's :class:`~sphinx.testing.util.SphinxTestApp`, as strict as
``make html`` (``-W -n``).

Each :func:`build` is one ``sphinx-build`` run: a new application over the
given build folder, so a second call rebuilds incrementally from the pickled
environment, as a second ``make html`` does (the extension's per-build state,
made at ``builder-inited``, is made again). The environment variables a build
reads (``CI``, ``REQUIRE_ALL``, ...) are those a test names, for that build only;
the trtdocs settings go through ``confoverrides``.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import os
import re
import shutil
import traceback
from collections.abc import Iterator, Mapping
from io import StringIO
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from sphinx.errors import SphinxError
from sphinx.testing.util import SphinxTestApp

from paths import ROOT, ROOTS

# the settings a build reads from the environment: a test names those it wants
ENV_SETTINGS = frozenset(
    {
        "CI",
        "REQUIRE_ALL",
        "REQUIRE_OUTPUTS",
        "TRTDOCS_RECORD",
        "TRTDOCS_DISABLE",
        "TRTDOCS_NOTEBOOKS",
        "TRTDOCS_RECORD_OUT",
        "TRTDOCS_RECORD_MAX_AGE_DAYS",
        "TRTDOCS_BASEURL",
        "TRTDOCS_JOBS",
        "TRTDOCS_RESOLVE",
        "TRTDOCS_RESOLVE_CACHE",
        "TRTDOCS_PUBLISHED_NOTEBOOKS",
    }
)
REAL_TABLE = ROOT / "docs" / "features.toml"


def guide_parts() -> list[str]:
    """The trtdocs parts the guide's conf.py lists in ``extensions``, in its order."""
    tree = ast.parse((ROOT / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "extensions" for t in node.targets
        ):
            names = ast.literal_eval(node.value)
            return [name for name in names if name.startswith("trtdocs.")]
    raise AssertionError(f"{ROOT / 'conf.py'}: no `extensions = [...]` list")


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def copy_root(name: str, dest: Path) -> Path:
    """A copy of ``tests/roots/test-<name>`` in ``dest``, to edit and build."""
    site = dest / name
    shutil.copytree(ROOTS / f"test-{name}", site)
    return site


@dataclasses.dataclass
class Built:
    """What one build left: its exit status as sphinx-build's, its log, its output."""

    returncode: int  # 0, 1 (warnings or errors under -W) or 2 (Sphinx stopped)
    log: str  # status and warnings, as the terminal shows them (no colour)
    warnings: str
    outdir: Path
    app: SphinxTestApp | None  # the environment (doctrees) of a build that ran

    def html(self, docname: str) -> BeautifulSoup:
        return BeautifulSoup(
            (self.outdir / f"{docname}.html").read_text(encoding="utf-8"), "html.parser"
        )

    def errors(self, needle: str) -> list[str]:
        """The log's ERROR lines that hold ``needle``."""
        return [ln for ln in self.log.splitlines() if needle in ln and "ERROR" in ln]


@contextlib.contextmanager
def environment(env: Mapping[str, str]) -> Iterator[None]:
    """The build's environment: none of :data:`ENV_SETTINGS` but those in ``env``."""
    saved = {k: os.environ.get(k) for k in ENV_SETTINGS | set(env)}
    for name in ENV_SETTINGS:
        os.environ.pop(name, None)
    # a fixture site resolves no install command (pip on the network) unless its test asks
    os.environ.update({"TRTDOCS_RESOLVE": "0", **env})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def build(
    src: Path,
    builddir: Path | None = None,
    *,
    strict: bool = True,
    fresh: bool = False,
    features: Path | None = REAL_TABLE,
    env: Mapping[str, str] | None = None,
    parallel: int = 0,
    **overrides: Any,
) -> Built:
    """Build ``src`` into ``builddir`` (default ``<src>/../_build``): HTML in
    ``html/``, doctrees in ``doctrees/``. ``features``: the table the site reads
    (None: the one its conf.py names); ``overrides``: conf.py values."""
    builddir = builddir or src.parent / "_build"
    # source_suffix: Sphinx's default is one dict shared by every app of a process, and its
    # merge_source_suffix (config-inited) writes the extensions' suffixes into it, so a site built
    # with myst_parser (.md: markdown) would leave that to the next site built with myst_nb.
    confoverrides = {"nitpicky": True, "source_suffix": {".rst": "restructuredtext"}, **overrides}
    if features is not None:
        confoverrides.setdefault("trtdocs_features_file", str(features))
    status, warning = StringIO(), StringIO()
    app = None
    with environment(env or {}):
        try:
            app = SphinxTestApp(
                "html",
                srcdir=src,
                builddir=builddir,
                freshenv=fresh,
                confoverrides=confoverrides,
                status=status,
                warning=warning,
                warningiserror=strict,
                parallel=parallel,
            )
            app.build()
            code = app.statuscode
        except SphinxError:  # what sphinx-build prints and exits 2 on
            warning.write(traceback.format_exc())
            code = 2
        finally:
            if app is not None:
                app.cleanup()
    text = _ANSI.sub("", warning.getvalue())
    return Built(code, _ANSI.sub("", status.getvalue()) + text, text, builddir / "html", app)

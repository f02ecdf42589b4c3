"""The drift guards in the build: each violation is a Sphinx warning with the
page and line, reported when the build finishes (``-W`` turns it into a
failure); notes go to the log. The guards run in a child process while the
pages are read.

The guards read every page and load the packages with griffe (a few seconds),
so the report is cached in ``<outdir>/../trtdocs/drift.json`` under a key of
the pages' text, the features table (and the documented release), the
installed versions, the toolchain and the package's own source
(:func:`.memo.site_key`); an unchanged tree re-emits the cached report without
running them. When a page changed, the child process reruns the page guards
on the changed pages only, taking the others' findings from
``drift-pages.json`` beside it (:class:`.memo.PageMemo`). When the build
resolves the install commands (``trtdocs_resolve_installs``, :mod:`.resolved`),
the key holds the UTC day: the first build of a day resolves them anew, and
the day's later builds reuse its report, an unreachable index's marks
included; at ``env-updated`` each page's resolutions go to its banner. The guards read the
features table trtdocs.features validated (``trtdocs_features_file``); the
API guard's child process loads the API model from its disk cache
(:mod:`trtdocs.api.cache`) when the installed sources have not changed.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.util import logging

from .. import config, state
from ..features.sphinx import table
from . import evidence, headers, installs, memo, raises, resolve, resolved
from .child import GuardRun, cached
from .run import SAVE_OPTIONS

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

    from ..features.model import FeaturesTable

logger = logging.getLogger(__name__)
# Violations the gating (the trtdocs extension) reports for the page itself:
# with it loaded, the build shows one error per cause.
GATING_RULES = frozenset({"requires", "front-matter"})
MEMO = "drift-pages.json"  # beside drift.json: each page's findings (drift/memo.py)


def _cache_key(root: Path, features: FeaturesTable, settings: config.TrtdocsConfig) -> str:
    """Everything the guards read: pages, table, registers, their own code, packages,
    toolchain, and the C++ headers this build names; and, when they resolve the install
    commands, the UTC day (a day's resolutions hold for that day)."""
    key = memo.site_key(
        root,
        Path(features.path),
        features.documented,
        [
            root / SAVE_OPTIONS,
            *raises.files_read(root),
            *sorted((root / evidence.EVIDENCE_DIR).glob("*.toml")),
        ],
        _folders(settings.cxx_include),
        settings.cxx_stubs,
    )
    return f"{key} resolved {resolve.today()}" if settings.resolve_installs else key


def _folders(text: str) -> list[Path]:
    return [Path(p) for p in text.split(os.pathsep) if p]


def resolve_cache(app: Sphinx) -> Path:
    """Where the day's resolutions of the install commands are kept."""
    where = config.of(app.config).resolve_cache
    return Path(app.confdir, where) if where else Path(app.outdir).parent / "trtdocs" / "resolve"


def _start(app: Sphinx) -> None:
    """At builder-inited: reuse the cached report, or start the guards in a child
    process. Loading the packages with griffe takes seconds, which overlap with
    reading the pages; a process, because CPython 3.11's ast module is not safe
    to use from two threads at once."""
    settings = config.of(app.config)
    if not settings.drift:
        return
    root = Path(app.srcdir)
    features = table(app)
    run = GuardRun(
        Path(app.outdir).parent / "trtdocs" / "drift.json", _cache_key(root, features, settings)
    )
    run.report = cached(run.cache, run.key)
    if run.report is None:
        package_root = Path(__file__).resolve().parents[2]  # docs/_ext
        env = dict(
            os.environ,
            PYTHONPATH=os.pathsep.join(
                filter(None, [str(package_root), os.environ.get("PYTHONPATH")])
            ),
        )
        # the C++ guard's headers, as this build's settings name them (conf.py, -D or the
        # environment)
        env[headers.EXTRA_INCLUDE_ENV] = settings.cxx_include
        env[headers.STUBS_ENV] = "1" if settings.cxx_stubs else "0"
        run.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "trtdocs.drift",
                "--json",
                "--root",
                str(root),
                "--memo",
                str(run.cache.with_name(MEMO)),
                "--table",
                str(features.path),
                "--documented",
                features.documented,
                *(["--resolve", str(resolve_cache(app))] if settings.resolve_installs else []),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
    state.of(app.env).drift_run = run


def _report(app: Sphinx, exc: Exception | None) -> None:
    """At build-finished: every violation is a warning with its page and line."""
    build = state.of(app.env)
    run, build.drift_run = build.drift_run, None
    if run is None or exc is not None:
        return
    root = Path(app.srcdir)
    features = table(app)
    report = run.result()
    # The commands {install-command} prints (every installer and platform), by the same rules.
    installed = installs.Installed.from_metadata()
    generated: list[installs.Violation] = []
    for release in features.releases.values():
        for variant, text in features.install_commands(release.key).items():
            generated += installs.check_generated(
                {release.key: text},
                features,
                installed,
                path=f"{os.path.relpath(features.path, root)} ({variant})",
            )
    report = dataclasses.replace(report, violations=report.violations + tuple(generated))
    for note in report.notes:
        logger.info("drift: %s", note)
    gated = "trtdocs.notebooks" in app.extensions
    for v in report.violations:
        if gated and v.rule in GATING_RULES:
            continue
        where = f"cell {v.cell}: " if v.cell is not None else ""
        # a page by its docname; the features table (generated commands) by its path
        location = (
            (str(Path(v.path).with_suffix("")), v.line)
            if v.path.endswith(".md")
            else f"{v.path}:{v.line}"
        )
        logger.warning(
            "%s[%s] %s",
            where,
            v.rule,
            v.message,
            location=location,
            type="trtdocs",
            subtype="drift",
        )


def _claims_updated(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """At env-updated: keep each page's install resolutions for its banner; return the
    pages whose resolutions changed, so that Sphinx writes them again."""
    run = state.of(env).drift_run
    report = run.result() if run is not None else None
    by_page: dict[str, list[resolved.Claim]] = {}
    for claim in report.resolved if report is not None else ():
        docname = env.path2doc(str(Path(app.srcdir) / claim.path))
        if docname is not None:
            by_page.setdefault(docname, []).append(claim)
    new = {
        doc: (lead, tuple(items))
        for doc, claims in by_page.items()
        for lead, items in [resolved.banner_text(claims)]
    }
    build = state.of(env)
    old, build.install_claims = build.install_claims, new
    return sorted(
        {doc for doc in set(old) | set(new) if old.get(doc) != new.get(doc)} & env.all_docs.keys()
    )


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("trtdocs.config")
    app.setup_extension("trtdocs.features")  # the guards check against its table
    app.connect("builder-inited", _start)
    app.connect("build-finished", _report)
    app.connect("env-updated", _claims_updated)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

"""Notebook execution and gating in a Sphinx build: the reader and parser
myst-nb uses, the gating's inputs made at ``builder-inited``, the marks and
banners, the build report, records and the strict checks, the downloads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.errors import ConfigError

from .. import config, state
from ..features.sphinx import table
from . import (
    banner,
    buildlog,
    downloads,
    includes,
    jobs,
    pageneeds,
    provenance,
    recorded,
    textmarks,
)
from .environment import cached_probe
from .handoffs import Upstream
from .marks import status_placeholder
from .parser import Parser
from .plan import BuildContext, in_subset, subset_names
from .reader import READER

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata


def _register_reader(app: Sphinx, conf: Config) -> None:
    # myst-nb reads .md notebooks through our reader, which gates cells.
    conf.nb_custom_formats = {".md": [READER, {}, False]}


def _set_up(app: Sphinx) -> None:
    """At builder-inited: what the gating decides from (the probe, the features
    table, this build's settings)."""
    settings = config.of(app.config)
    srcdir = Path(app.srcdir)
    features = table(app)
    release = features.documented_release
    state.of(app.env).context = BuildContext(
        environment=cached_probe(Path(app.outdir).parent / "trtdocs" / "environment.json"),
        disabled=frozenset(filter(None, (s.strip() for s in settings.disable.split(",")))),
        features=features.requirement,
        record_dir=srcdir / settings.record_dir,
        import_roots=tuple(srcdir / r for r in settings.import_roots),
        srcdir=srcdir,
        subset=subset_names(settings.notebooks),
        cache_path=Path(
            app.config.nb_execution_cache_path or Path(app.outdir).parent / ".jupyter_cache"
        ),
        run_dir=jobs.run_dir(app),
        freshness=recorded.Freshness.of_release(
            release.version, release.pins, settings.record_max_age_days
        ),
        recording=settings.record,
        upstream=Upstream(srcdir, _code_digest),
    )


def _code_digest(path: Path) -> str:
    """What a record of the page must match: its code cells and requirements."""
    from myst_nb.core.read import read_myst_markdown_notebook

    return recorded.source_hash(read_myst_markdown_notebook(path.read_text(encoding="utf-8")))


def _check_subset(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Stop the build on a NOTEBOOKS name that matches no page, naming it."""
    context = state.of(env).context
    names = context.subset if context else None
    unknown = [n for n in names or () if not any(in_subset(d, (n,)) for d in env.found_docs)]
    if unknown:
        raise ConfigError(f"NOTEBOOKS names no page of this site: {', '.join(unknown)}")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("myst_nb")
    app.setup_extension("trtdocs.config")
    app.setup_extension("trtdocs.state")
    app.setup_extension(
        "trtdocs.failures"
    )  # an error logged here fails the build (its exit status)
    app.setup_extension("trtdocs.features")  # feature:<id> requirements; every page's references
    app.setup_extension("trtdocs.output.folding")  # the marks and the banner fold
    app.setup_extension("trtdocs.notebooks.pagefoot")  # the page's status, in its footer
    app.add_source_parser(Parser, override=True)
    buildlog.quiet_config_dumps()  # before myst's and myst-nb's builder-inited handlers log them
    # before myst-nb's own config-inited handler (priority 500), which reads nb_custom_formats
    app.connect("config-inited", _register_reader, priority=400)
    app.connect("builder-inited", _set_up)
    app.connect("env-before-read-docs", _check_subset)
    # after the subset check: the notebooks the pages to read need start running
    app.connect("env-before-read-docs", jobs.start, priority=600)
    app.connect("env-updated", jobs.finish)
    app.connect("build-finished", jobs.abandon, priority=100)
    app.connect("env-get-outdated", provenance.outdated)
    # the banner and the report are made once every page's execution data exist
    app.add_node(status_placeholder)
    app.connect("doctree-resolved", banner.resolve)
    app.connect("doctree-resolved", includes.resolve)  # where an {include-cell} cell ran
    # blocks shown as text take the cells' :requires: and carry their not-run mark
    app.add_directive("code-block", textmarks.CodeBlock, override=True)
    app.connect("doctree-resolved", textmarks.resolve)
    app.add_node(provenance.report_placeholder)
    app.add_directive("build-report", provenance.BuildReport)
    app.connect("doctree-resolved", provenance.resolve_report)
    app.add_node(pageneeds.needs_placeholder)
    app.add_directive("page-needs", pageneeds.PageNeeds)
    app.connect("doctree-resolved", pageneeds.resolve)
    app.connect("html-page-context", downloads.write)
    app.connect("build-finished", provenance.check_problems)
    app.connect("build-finished", provenance.write_outputs)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

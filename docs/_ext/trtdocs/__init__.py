"""Sphinx extension of the Torch-TensorRT on ExecuTorch deployment guide.

One module per concern:

* :mod:`.environment`: probe the build machine (cached by fingerprint);
* :mod:`.cxxsdk`: ExecuTorch's C++ package and the C++ toolchain;
* :mod:`.requirements`: what a notebook or cell needs, and whether it is met;
* :mod:`.features`: the features table: version notes, support matrix, ``feature:<id>``;
* :mod:`.dataflow`: names each cell defines and reads;
* :mod:`.gating`: the notebook reader that skips and marks cells;
* :mod:`.cachekey`: the environment-keyed execution cache key;
* :mod:`.recorded`: outputs recorded on a machine that could run them;
* :mod:`.status`: the page banner, the cell marks and the running time;
* :mod:`.folding`: folded blocks and download links (HTML details, a download);
* :mod:`.streams`: stream outputs joined as Jupyter joins them;
* :mod:`.lognoise`: ExecuTorch's C++ start-up log left out;
* :mod:`.tracebacks`: intended errors with the reader's frames only;
* :mod:`.buildpaths`: no path of the build machine on the site;
* :mod:`.cellmagic`: ``%%writefile`` cells highlighted in the language they write;
* :mod:`.cellinclude`: ``{include-cell}``, a tagged cell of another notebook shown on a page;
* :mod:`.provenance`: provenance.json, the build report, records, strict mode;
* :mod:`.downloads`: each notebook page's .ipynb and .md downloads;
* :mod:`.releases`: the sidebar's release switcher, from docs/features.toml;
* :mod:`.benchresults`: the build-speed table from benchmarks/results;
* :mod:`.execerrors`: a notebook that fails to execute reads as this project's error;
* :mod:`.failures`: errors hold on every build until their cause is gone;
* :mod:`.apimodel`: the installed packages' API, loaded with griffe (no import);
* :mod:`.apiref`: the API reference generated from that model;
* :mod:`.apixref`: code literals naming the packages' objects become cross-references;
* :mod:`.codelinks`: names in code cells link to their API entries, in the highlighted code;
* :mod:`.datatables`: the tables of docs/data/*.toml (``{data-table}``);
* :mod:`.pageneeds`: what each notebook needs, from the gating plans (``{page-needs}``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.environment.collectors import EnvironmentCollector
from sphinx.errors import ConfigError

from . import (apiref, apixref, benchresults, buildpaths, cellinclude, cellmagic, codelinks, cxxsdk, datatables, downloads,
               execerrors, failures, features, lognoise, pageneeds, provenance, recorded, releases, status,
               streams, tracebacks)
from .environment import cached_probe
from .gating import BuildContext, in_subset, read_notebook, subset_names

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

READER = "trtdocs.gating.read_notebook"
ENV_VERSION = 7


class PageCollector(EnvironmentCollector):
    """Keeps ``env.trtdocs_pages`` (one PagePlan per notebook) across
    incremental and parallel builds."""

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        env.trtdocs_pages.pop(docname, None)
        env.trtdocs_report_docs.discard(docname)

    def merge_other(self, app: Sphinx, env: BuildEnvironment, docnames: set[str],
                    other: BuildEnvironment) -> None:
        for doc in docnames:
            if doc in other.trtdocs_pages:
                env.trtdocs_pages[doc] = other.trtdocs_pages[doc]
            if doc in other.trtdocs_report_docs:
                env.trtdocs_report_docs.add(doc)

    def process_doc(self, app: Sphinx, doctree) -> None:
        pass


def _register_reader(app: Sphinx, config: Config) -> None:
    # myst-nb reads .md notebooks through our reader, which gates cells.
    config.nb_custom_formats = {".md": [READER, {}, False]}


def _init_build(app: Sphinx) -> None:
    env = app.env
    for attr, empty in (("trtdocs_pages", dict), ("trtdocs_report_docs", set)):
        if not hasattr(env, attr):
            setattr(env, attr, empty())
    srcdir = Path(app.srcdir)
    env.trtdocs_environment = cached_probe(Path(app.outdir).parent / "trtdocs" / "environment.json")
    config = app.config
    read_notebook.app = app
    read_notebook.context = BuildContext(
        environment=env.trtdocs_environment,
        disabled=frozenset(filter(None, (s.strip() for s in config.trtdocs_disable.split(",")))),
        features=features.resolver(app),
        record_dir=srcdir / config.trtdocs_record_dir,
        import_roots=tuple(srcdir / r for r in config.trtdocs_import_roots),
        srcdir=srcdir,
        subset=subset_names(config.trtdocs_notebooks),
        cache_path=Path(config.nb_execution_cache_path or Path(app.outdir).parent / ".jupyter_cache"),
        freshness=_freshness(app),
        recording=config.trtdocs_record,
    )


def _freshness(app: Sphinx) -> recorded.Freshness:
    release = app.trtdocs_features.documented_release
    return recorded.Freshness.of_release(release.version, release.pins, app.config.trtdocs_record_max_age_days)


def _check_subset(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Stop the build on a NOTEBOOKS name that matches no page, naming it."""
    names = read_notebook.context.subset if read_notebook.context else None
    unknown = [n for n in names or () if not any(in_subset(d, (n,)) for d in env.found_docs)]
    if unknown:
        raise ConfigError(f"NOTEBOOKS names no page of this site: {', '.join(unknown)}")


def _env_days(name: str, default: float) -> float:
    value = os.environ.get(name, "")
    try:
        return float(value) if value else default
    except ValueError:
        raise ConfigError(f"{name} must be a number of days, not {value!r}") from None


def setup(app: Sphinx) -> ExtensionMetadata:
    env_flag = lambda name: os.environ.get(name, "") not in ("", "0")  # noqa: E731
    app.add_config_value("trtdocs_require_all", env_flag("REQUIRE_ALL"), "", types=(bool,))
    app.add_config_value("trtdocs_require_outputs", env_flag("REQUIRE_OUTPUTS"), "", types=(bool,))
    app.add_config_value("trtdocs_record", env_flag("TRTDOCS_RECORD"), "", types=(bool,))
    app.add_config_value("trtdocs_disable", os.environ.get("TRTDOCS_DISABLE", ""), "env", types=(str,))
    app.add_config_value("trtdocs_record_dir", "notebooks/_recorded", "env", types=(str,))
    # days after which a record expires (TRTDOCS_RECORD_MAX_AGE_DAYS); 0 = never
    app.add_config_value("trtdocs_record_max_age_days", _env_days("TRTDOCS_RECORD_MAX_AGE_DAYS", 90.0), "env",
                         types=(int, float))
    # where `make record` writes records (RECORD_OUT); "" = trtdocs_record_dir
    app.add_config_value("trtdocs_record_out", os.environ.get("TRTDOCS_RECORD_OUT", ""), "", types=(str,))
    # the notebooks this build executes (NOTEBOOKS); "" = every notebook
    app.add_config_value("trtdocs_notebooks", os.environ.get("TRTDOCS_NOTEBOOKS", ""), "env", types=(str,))
    app.add_config_value("trtdocs_import_roots", ["docs/_ext", "notebooks"], "env", types=(list,))
    # The notebooks' kernels inherit this process's environment: they find the C++ package through it.
    cxxsdk.export_prefix()
    app.connect("config-inited", _register_reader, priority=400)
    app.connect("builder-inited", _init_build, priority=400)
    app.connect("env-before-read-docs", _check_subset)
    app.add_env_collector(PageCollector)
    features.setup(app)
    status.setup(app)
    provenance.setup(app)
    downloads.setup(app)
    releases.setup(app)
    benchresults.setup(app)
    datatables.setup(app)
    pageneeds.setup(app)
    streams.setup(app)
    execerrors.setup(app)
    failures.setup(app)
    lognoise.setup(app)
    tracebacks.setup(app)
    buildpaths.setup(app)
    apiref.setup(app)
    apixref.setup(app)
    codelinks.setup(app)
    cellmagic.setup(app)
    cellinclude.setup(app)
    # env_version: bump when what the env keeps changes shape (PagePlan and
    # friends), so Sphinx discards an environment pickled by older code.
    return {"version": "1.0", "env_version": ENV_VERSION,
            "parallel_read_safe": True, "parallel_write_safe": True}

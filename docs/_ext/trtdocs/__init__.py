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
* :mod:`.status`: the page banner and the cell marks;
* :mod:`.streams`: stream outputs joined as Jupyter joins them;
* :mod:`.cellmagic`: ``%%writefile`` cells highlighted in the language they write;
* :mod:`.provenance`: provenance.json, the build report, records, strict mode;
* :mod:`.downloads`: each notebook page's .ipynb and .md downloads;
* :mod:`.releases`: the sidebar's release switcher, from docs/features.toml.
* :mod:`.benchresults`: the build-speed table from benchmarks/results.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.environment.collectors import EnvironmentCollector

from . import benchresults, cellmagic, cxxsdk, downloads, features, provenance, releases, status, streams
from .environment import cached_probe
from .gating import BuildContext, read_notebook

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.util.typing import ExtensionMetadata

READER = "trtdocs.gating.read_notebook"
ENV_VERSION = 4


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
    )


def setup(app: Sphinx) -> ExtensionMetadata:
    env_flag = lambda name: os.environ.get(name, "") not in ("", "0")  # noqa: E731
    app.add_config_value("trtdocs_require_all", env_flag("REQUIRE_ALL"), "", types=(bool,))
    app.add_config_value("trtdocs_record", env_flag("TRTDOCS_RECORD"), "", types=(bool,))
    app.add_config_value("trtdocs_disable", os.environ.get("TRTDOCS_DISABLE", ""), "env", types=(str,))
    app.add_config_value("trtdocs_record_dir", "notebooks/_recorded", "env", types=(str,))
    app.add_config_value("trtdocs_import_roots", ["docs/_ext", "notebooks"], "env", types=(list,))
    # The notebooks' kernels inherit this process's environment: they find the C++ package through it.
    cxxsdk.export_prefix()
    app.connect("config-inited", _register_reader, priority=400)
    app.connect("builder-inited", _init_build, priority=400)
    app.add_env_collector(PageCollector)
    features.setup(app)
    status.setup(app)
    provenance.setup(app)
    downloads.setup(app)
    releases.setup(app)
    benchresults.setup(app)
    streams.setup(app)
    cellmagic.setup(app)
    # env_version: bump when what the env keeps changes shape (PagePlan and
    # friends), so Sphinx discards an environment pickled by older code.
    return {"version": "1.0", "env_version": ENV_VERSION,
            "parallel_read_safe": True, "parallel_write_safe": True}

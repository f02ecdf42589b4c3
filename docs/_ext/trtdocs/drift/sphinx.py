"""The drift guards in the build: each violation is a Sphinx warning with the
page and line, reported when the build finishes (``-W`` turns it into a
failure); notes go to the log. The guards run in a thread while the pages are
read.

The guards read every page and load the packages with griffe (a few seconds),
so the report is cached in ``<outdir>/../trtdocs/drift.json`` under a key of
the pages' text, the features table (and the documented release), the
installed versions, the toolchain and the guards' own source; an unchanged
tree re-emits the cached report without running them. The guards read the
features table trtdocs.features validated (``trtdocs_features_file``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.util import logging

from . import Violation, installs
from .blocks import page_paths
from .run import GUARDS, Report, run_guards
from .table import table_from_features

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

    from ..features import FeaturesTable

logger = logging.getLogger(__name__)
_DISTS = ("torch-tensorrt", "torch-tensorrt-executorch-runtime", "executorch", "torch")


def _cache_key(root: Path, features: FeaturesTable) -> str:
    """Everything the guards read: pages, table, their own code, packages, toolchain."""
    h = hashlib.sha256()
    files = [*page_paths(root), Path(features.path), *sorted(Path(__file__).parent.glob("*.py"))]
    for f in files:
        h.update(str(f).encode())
        h.update(f.read_bytes() if f.is_file() else b"-")
    for dist in _DISTS:
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=none".encode())
    h.update(f"documented={features.documented}".encode())
    h.update(os.environ.get("TRTDOCS_CXX_INCLUDE", "").encode())
    h.update(f"{shutil.which('g++')} {shutil.which('cmake')}".encode())
    return h.hexdigest()


def _cached(cache: Path, key: str) -> Report | None:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return Report(tuple(Violation(**v) for v in data["violations"]), tuple(data["notes"]))
    except (OSError, ValueError, TypeError, KeyError):
        pass  # missing or unreadable: run the guards again
    return None


# Guards running while the build reads (and executes) the pages, by app; a
# Future cannot live in the pickled environment.
_RUNNING: dict[int, Future[Report]] = {}


def _start(app: Sphinx) -> None:
    """At builder-inited: reuse the cached report, or start the guards in a
    thread; loading the packages with griffe takes seconds, which overlap with
    notebook execution (the kernels run in other processes)."""
    if not app.config.trtdocs_drift:
        return
    root = Path(app.srcdir)
    features: FeaturesTable = app.trtdocs_features  # validated at config-inited
    cache = Path(app.outdir).parent / "trtdocs" / "drift.json"
    key = _cache_key(root, features)
    future: Future[Report] = Future()
    if (report := _cached(cache, key)) is not None:
        future.set_result(report)
    else:
        future = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trtdocs-drift").submit(
            _run_and_cache, root, features, cache, key)
    _RUNNING[id(app)] = future


def _run_and_cache(root: Path, features: FeaturesTable, cache: Path, key: str) -> Report:
    report = run_guards(root, features=features, guards=GUARDS)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"key": key, "notes": list(report.notes), "violations": [
        {f: getattr(v, f) for f in ("path", "line", "rule", "message", "cell")} for v in report.violations
    ]}, indent=1), encoding="utf-8")
    return report


def _report(app: Sphinx, exc: Exception | None) -> None:
    """At build-finished: every violation is a warning with its page and line."""
    future = _RUNNING.pop(id(app), None)
    if future is None or exc is not None:
        return
    root = Path(app.srcdir)
    features: FeaturesTable = app.trtdocs_features
    report = future.result()
    # The commands {install-command} prints, by the same rules.
    commands = {r.key: features.install_command(r.key) for r in features.releases}
    report = Report(report.violations + tuple(installs.check_generated(
        commands, table_from_features(features), installs.Installed.from_metadata(),
        path=os.path.relpath(features.path, root))), report.notes)
    for note in report.notes:
        logger.info("drift: %s", note)
    for v in report.violations:
        where = f"cell {v.cell}: " if v.cell is not None else ""
        # a page by its docname; the features table (generated commands) by its path
        location = ((str(Path(v.path).with_suffix("")), v.line) if v.path.endswith(".md")
                    else f"{v.path}:{v.line}")
        logger.warning("%s[%s] %s", where, v.rule, v.message, location=location,
                       type="trtdocs", subtype="drift")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.add_config_value("trtdocs_drift", True, "", types=(bool,))
    app.connect("builder-inited", _start, priority=900)
    app.connect("build-finished", _report)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

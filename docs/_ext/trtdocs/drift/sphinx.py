"""The drift guards in the build: each violation is a Sphinx warning with the
page and line (``-W`` turns it into a failure); notes go to the log.

The guards read every page and load the packages with griffe (a few seconds),
so the report is cached in ``<outdir>/../trtdocs/drift.json`` under a key of
the pages' text, the installed versions and the guards' own source; an
unchanged tree re-emits the cached report without running them.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.util import logging

from . import Violation
from .blocks import page_paths
from .run import DEFAULT_TABLE, GUARDS, Report, run_guards

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

logger = logging.getLogger(__name__)
_DISTS = ("torch-tensorrt", "torch-tensorrt-executorch-runtime", "executorch", "torch")


def _cache_key(root: Path, table: Path) -> str:
    h = hashlib.sha256()
    files = [*page_paths(root), table, *sorted(Path(__file__).parent.glob("*.py"))]
    for f in files:
        h.update(str(f).encode())
        h.update(f.read_bytes() if f.is_file() else b"-")
    for dist in _DISTS:
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{dist}=none".encode())
    return h.hexdigest()


def _run(app: Sphinx) -> None:
    if not app.config.trtdocs_drift:
        return
    root = Path(app.srcdir)
    table = root / app.config.trtdocs_drift_table
    cache = Path(app.outdir).parent / "trtdocs" / "drift.json"
    key = _cache_key(root, table)
    report: Report | None = None
    if cache.is_file():
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data.get("key") == key:
            report = Report(tuple(Violation(**v) for v in data["violations"]), tuple(data["notes"]))
    if report is None:
        report = run_guards(root, table_path=table, guards=GUARDS)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"key": key, "notes": list(report.notes), "violations": [
            {f: getattr(v, f) for f in ("path", "line", "rule", "message", "cell")} for v in report.violations
        ]}, indent=1), encoding="utf-8")
    features = getattr(app, "trtdocs_features", None)
    if features is not None:  # the commands {install-command} prints, by the same rules
        from .installs import Installed, check_generated
        from .table import load_table

        commands = {r.key: features.install_command(r.key) for r in features.releases}
        report = Report(report.violations + tuple(check_generated(
            commands, load_table(features.path), Installed.from_metadata(),
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
    app.add_config_value("trtdocs_drift_table", DEFAULT_TABLE, "", types=(str,))
    app.connect("builder-inited", _run, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

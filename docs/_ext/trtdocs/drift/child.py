"""The drift guards of one build: a report cached under the build's key, or a
child process (``python -m trtdocs.drift --json``) running them while the pages
are read. :mod:`.sphinx` starts it at ``builder-inited`` and keeps it on the
build's state (``BuildState.drift_run``); whoever needs the report waits for it
there. A process handle cannot live in the pickled environment, so the slot is
per build."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

from sphinx.errors import ExtensionError

from .run import Report, report_from_json


def cached(cache: Path, key: str) -> Report | None:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return report_from_json(data)
    except (OSError, ValueError, TypeError, KeyError):
        pass  # missing or unreadable: run the guards again
    return None


@dataclasses.dataclass(slots=True)
class GuardRun:
    """The guards of one build: a cached report, or a child process running them."""

    cache: Path  # <outdir>/../trtdocs/drift.json
    key: str  # _cache_key of this build
    report: Report | None = None  # from the cache
    process: subprocess.Popen[str] | None = None  # python -m trtdocs.drift --json

    def result(self) -> Report:
        """The report: from the cache, or from the child process (waited for once)."""
        if self.report is not None:
            return self.report
        assert self.process is not None
        out, err = self.process.communicate()
        if self.process.returncode not in (0, 1) or not out.strip():
            raise ExtensionError(
                f"the drift guards failed (exit {self.process.returncode}):\n{err}"
            )
        data = json.loads(out.strip().splitlines()[-1])
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        self.cache.write_text(json.dumps({"key": self.key, **data}, indent=1), encoding="utf-8")
        self.report = report_from_json(data)
        return self.report

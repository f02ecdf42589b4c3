"""How long each notebook took when it last ran: the executor's expected times,
from which it starts the longest chain of pages first (:mod:`.execute`).

Two places keep them: the jupyter-cache (each execution's
``execution_seconds``; the newest one of a page counts) and the last site's
``provenance.json`` (``duration_s``: a run on this machine, or a record's run
on another), which outlives a deleted cache. The cache wins where both know a
page. Both are caches: a missing or unreadable one knows nothing, and a page
that neither knows gets the default. Pure: no Sphinx.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol


class CacheRecord(Protocol):
    """What this module reads of a jupyter-cache record."""

    uri: str
    data: dict[str, Any] | None
    created: Any


def from_cache(records: Iterable[CacheRecord], docnames: Mapping[str, str]) -> dict[str, float]:
    """docname -> seconds, from the cache's records; ``docnames``: source path -> docname."""
    found: dict[str, float] = {}
    for record in sorted(records, key=lambda r: r.created):
        seconds = (record.data or {}).get("execution_seconds")
        if seconds is not None and record.uri in docnames:
            found[docnames[record.uri]] = float(seconds)
    return found


def from_provenance(path: Path) -> dict[str, float]:
    """docname -> seconds, from a site's provenance.json (trtdocs.notebooks.provenance)."""
    try:
        notebooks = json.loads(path.read_text(encoding="utf-8"))["notebooks"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    found: dict[str, float] = {}
    for doc, entry in notebooks.items() if isinstance(notebooks, dict) else ():
        seconds = entry.get("duration_s") if isinstance(entry, dict) else None
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
            found[doc] = float(seconds)
    return found


def last_runs(
    records: Iterable[CacheRecord], docnames: Mapping[str, str], provenance: Path
) -> dict[str, float]:
    """docname -> its last run's seconds, for each page either place knows."""
    return {**from_provenance(provenance), **from_cache(records, docnames)}

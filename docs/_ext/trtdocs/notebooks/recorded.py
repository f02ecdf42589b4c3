"""Recorded outputs: an execution on a machine that met a notebook's
requirements, kept in the repository for builds that cannot execute it.

A record is the source notebook with the outputs of that execution, plus
``metadata.trtdocs_record``: the source hash it was made from, the
provenance of the execution, and the digest of both with the outputs
(:mod:`.integrity`), which a build checks before it shows the record. Only a
real execution writes a record (``make record`` on a machine that meets the
requirements). The cells it did not run, because they need a newer release
than that machine's, are listed in the provenance's ``cells_not_executed``
with their requirements and reason; a build that shows the record marks
them. A record also says ``keep_output: true``, which nbstripout honours
wherever it runs (a git filter, a pre-commit hook, by hand).

A record also expires: :func:`expiry` names why one made with package
versions outside the documented release's pins, or older than the configured
age, no longer stands for the documented release.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import hashlib
import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import nbformat
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ..vocab import PINS
from . import integrity

RECORD_KEY = "trtdocs_record"
# What a release's pins are keyed by (vocab.Pin.name) -> the probe's versions key it
# constrains (vocab.Pin.probed); a pin the probe does not report (CUDA) is not compared.
_PROBED: Mapping[str, str] = {pin.name(key): pin.probed for key, pin in PINS.items() if pin.probed}


@dataclasses.dataclass(frozen=True, slots=True)
class Freshness:
    """What a record must have been made with, and how old it may be."""

    # probe versions key -> PEP 440 specifier (torch_tensorrt: the release itself)
    pins: Mapping[str, str]
    # days after its execution that a record expires; None = never
    max_age_days: float | None

    @classmethod
    def of_release(
        cls, version: str, pins: Mapping[str, str], max_age_days: float | None
    ) -> Freshness:
        """From a features-table release: its version and its pins."""
        specs = {_PROBED[k]: v for k, v in pins.items() if k in _PROBED}
        if version:
            specs["torch_tensorrt"] = f"=={version}"
        return cls(specs, max_age_days if max_age_days and max_age_days > 0 else None)


class RecordError(ValueError):
    """A record file that cannot be read as a record: its path and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    path: Path
    # hash of the code cells (and requirements) of the source it was made from
    source_hash: str
    # Environment.to_json() of the machine, execution date and duration
    provenance: dict[str, Any]
    notebook: nbformat.NotebookNode
    # the code cells that did not run where it was made, because that machine's
    # release is older than they need: (number, unmet requirements, reason)
    skipped: tuple[tuple[int, tuple[str, ...], str], ...] = ()

    def refusal(self) -> integrity.Refusal | None:
        """Why a build must not show it (outputs or provenance changed since
        `make record` wrote it, outputs stripped); None when it verifies."""
        return integrity.check(self.notebook, self.notebook.metadata[RECORD_KEY])


def source_hash(nb: nbformat.NotebookNode) -> str:
    """What a record must match: every code cell's source and requirements,
    and the notebook's requirements. Markdown may change freely."""
    payload = {
        "requires": nb.metadata.get("requires"),
        "cells": [
            [cell.source, cell.metadata.get("requires"), sorted(cell.metadata.get("tags", []))]
            for cell in nb.cells
            if cell.cell_type == "code"
        ],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def executed_at(provenance: Mapping[str, Any]) -> dt.datetime | None:
    """When the record's notebook executed (timezone-aware), or None."""
    try:
        when = dt.datetime.fromisoformat(str(provenance.get("executed_at")))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def expiry(provenance: Mapping[str, Any], freshness: Freshness, now: dt.datetime) -> list[str]:
    """Why a record with this provenance is stale; [] when it is fresh.

    A package the record's machine did not have is not compared: a record is
    made only where the notebook's requirements were met."""
    reasons: list[str] = []
    versions = (provenance.get("environment") or {}).get("versions") or {}
    for key, spec in freshness.pins.items():
        found = versions.get(key)
        if found is None:
            continue
        try:
            ok = SpecifierSet(spec if spec[:1] in tuple("<>=!~") else f"=={spec}").contains(
                Version(found), prereleases=True
            )
        except (InvalidSpecifier, InvalidVersion):
            ok = False
        if not ok:
            reasons.append(f"made with {key} {found}, outside the documented release's {spec}")
    if freshness.max_age_days is not None:
        when = executed_at(provenance)
        if when is None:
            reasons.append("it has no execution date")
        elif (now - when).total_seconds() > freshness.max_age_days * 86400:
            reasons.append(
                f"made {age_words(when, now)}, over the {freshness.max_age_days:g}-day limit"
            )
    return reasons


def age_words(when: dt.datetime, now: dt.datetime) -> str:
    """'today', '1 day ago', 'N days ago'."""
    days = int((now - when).total_seconds() // 86400)
    return "today" if days < 1 else "1 day ago" if days == 1 else f"{days} days ago"


def record_path(record_dir: Path, docname: str) -> Path:
    return record_dir / (docname.replace("/", "__") + ".ipynb")


def docname_of(path: Path) -> str:
    """The page a record file stands for (:func:`record_path` read backwards)."""
    return path.stem.replace("__", "/")


def orphans(record_dir: Path, docnames: Collection[str]) -> list[Path]:
    """The record files of ``record_dir`` whose page is none of ``docnames``."""
    return [p for p in sorted(record_dir.glob("*.ipynb")) if docname_of(p) not in docnames]


def load(path: Path) -> Record | None:
    if not path.is_file():
        return None
    try:
        nb = nbformat.read(path, as_version=4)
    except ValueError as exc:  # nbformat's NotJSONError and NBFormatError
        raise RecordError(path, f"it is not a notebook ({exc})") from None
    meta = nb.metadata.get(RECORD_KEY)
    if not isinstance(meta, dict) or "source_hash" not in meta:
        raise RecordError(path, f"not a record (metadata.{RECORD_KEY}.source_hash missing)")
    provenance = dict(meta.get("provenance", {}))
    return Record(path, meta["source_hash"], provenance, nb, _skipped(path, provenance, nb))


def _skipped(
    path: Path, provenance: Mapping[str, Any], nb: nbformat.NotebookNode
) -> tuple[tuple[int, tuple[str, ...], str], ...]:
    """The provenance's ``cells_not_executed``, checked: each names a code cell
    of the record, which has no output, its unmet requirements and its reason."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    found = []
    for entry in provenance.get("cells_not_executed") or ():
        number = entry.get("cell") if isinstance(entry, dict) else None
        needs, reason = (
            (entry.get("needs"), entry.get("reason")) if isinstance(entry, dict) else (None, None)
        )
        if (
            not isinstance(number, int)
            or not 1 <= number <= len(code)
            or not isinstance(reason, str)
            or not isinstance(needs, list)
            or not all(isinstance(n, str) for n in needs)
        ):
            raise RecordError(
                path,
                f"provenance.cells_not_executed: {entry!r} is not "
                f"{{cell: 1..{len(code)}, needs: [requirements], reason: text}}",
            )
        if code[number - 1].get("outputs"):
            raise RecordError(path, f"code cell {number} is listed as not executed but has outputs")
        found.append((number, tuple(needs), reason))
    return tuple(found)


def write(
    path: Path,
    source: nbformat.NotebookNode,
    executed: nbformat.NotebookNode,
    provenance: dict[str, Any],
) -> None:
    """Write ``source`` with the code-cell outputs of ``executed``, sealed with
    their digest; raise :class:`RecordError`, writing nothing, for a record a
    build would refuse (no outputs where cells ran)."""
    out = copy.deepcopy(source)
    out.metadata.pop("source_map", None)
    _copy_outputs(executed, out)
    out.metadata[integrity.KEEP_OUTPUT] = True
    out.metadata[RECORD_KEY] = {"source_hash": source_hash(source), "provenance": provenance}
    out = integrity.normalized(out)
    meta = out.metadata[RECORD_KEY]
    meta["digest"] = integrity.seal(out, meta["source_hash"], meta["provenance"])
    refused = integrity.check(out, meta)
    if refused is not None:
        raise RecordError(path, f"not written: {refused.words()}")
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(out, path)


def merge_outputs(record: Record, nb: nbformat.NotebookNode) -> None:
    """Give ``nb``'s code cells the outputs of the record, in order."""
    _copy_outputs(record.notebook, nb)


def _copy_outputs(src: nbformat.NotebookNode, dst: nbformat.NotebookNode) -> None:
    src_cells = [c for c in src.cells if c.cell_type == "code"]
    dst_cells = [c for c in dst.cells if c.cell_type == "code"]
    if len(src_cells) != len(dst_cells):
        raise ValueError(
            f"code cells differ: {len(src_cells)} executed, {len(dst_cells)} in the source"
        )
    for s, d in zip(src_cells, dst_cells, strict=True):
        d.outputs = copy.deepcopy(s.get("outputs", []))
        d.execution_count = s.get("execution_count")

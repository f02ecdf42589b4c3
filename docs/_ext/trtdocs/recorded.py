"""Recorded outputs: an execution on a machine that met a notebook's
requirements, kept in the repository for builds that cannot execute it.

A record is the source notebook with the outputs of that execution, plus
``metadata.trtdocs_record``: the source hash it was made from and the
provenance of the execution. Only a real execution writes a record
(``make record`` on a machine that meets the requirements).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import nbformat

RECORD_KEY = "trtdocs_record"


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    path: Path
    # hash of the code cells (and requirements) of the source it was made from
    source_hash: str
    # Environment.to_json() of the machine, execution date and duration
    provenance: dict[str, Any]
    notebook: nbformat.NotebookNode


def source_hash(nb: nbformat.NotebookNode) -> str:
    """What a record must match: every code cell's source and requirements,
    and the notebook's requirements. Markdown may change freely."""
    payload = {
        "requires": nb.metadata.get("requires"),
        "cells": [
            [cell.source, cell.metadata.get("requires"), sorted(cell.metadata.get("tags", []))]
            for cell in nb.cells if cell.cell_type == "code"
        ],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def record_path(record_dir: Path, docname: str) -> Path:
    return record_dir / (docname.replace("/", "__") + ".ipynb")


def load(path: Path) -> Record | None:
    if not path.is_file():
        return None
    nb = nbformat.read(path, as_version=4)
    meta = nb.metadata.get(RECORD_KEY)
    if not isinstance(meta, dict) or "source_hash" not in meta:
        raise ValueError(f"{path}: not a record (metadata.{RECORD_KEY}.source_hash missing)")
    return Record(path, meta["source_hash"], dict(meta.get("provenance", {})), nb)


def write(path: Path, source: nbformat.NotebookNode, executed: nbformat.NotebookNode,
          provenance: dict[str, Any]) -> None:
    """Write ``source`` with the code-cell outputs of ``executed``."""
    out = copy.deepcopy(source)
    out.metadata.pop("source_map", None)
    _copy_outputs(executed, out)
    out.metadata[RECORD_KEY] = {"source_hash": source_hash(source), "provenance": provenance}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(out, path)


def merge_outputs(record: Record, nb: nbformat.NotebookNode) -> None:
    """Give ``nb``'s code cells the outputs of the record, in order."""
    _copy_outputs(record.notebook, nb)


def _copy_outputs(src: nbformat.NotebookNode, dst: nbformat.NotebookNode) -> None:
    src_cells = [c for c in src.cells if c.cell_type == "code"]
    dst_cells = [c for c in dst.cells if c.cell_type == "code"]
    if len(src_cells) != len(dst_cells):
        raise ValueError(f"code cells differ: {len(src_cells)} executed, {len(dst_cells)} in the source")
    for s, d in zip(src_cells, dst_cells):
        d.outputs = copy.deepcopy(s.get("outputs", []))
        d.execution_count = s.get("execution_count")

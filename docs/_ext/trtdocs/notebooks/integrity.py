"""A record's digest: what `make record` writes over a record's outputs and
provenance (:func:`seal`), and what a build checks before it shows a record
(:func:`check`). Pure: no Sphinx.

The digest is SHA-256 over canonical JSON (keys sorted, no spaces, UTF-8): one
digest per code cell's outputs, one of the provenance, and one over both with
the source hash. Outputs are taken as nbformat reads them (a multi-line text
is one string), without execution counts: those number the run and show
nothing on the page, and nbstripout clears them even where it keeps outputs.

The digest catches a record changed after it was written: an output edited by
hand, outputs stripped, a provenance edited, a merge that mixed two runs. It
is not a signature: whoever edits a record can compute a new digest. The
artifact attestation of the GPU workflow proves where a record came from
(docs/building.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import nbformat

ALGORITHM = "sha256"
# notebook metadata that nbstripout reads: it keeps the outputs of a notebook that sets it
KEEP_OUTPUT = "keep_output"


def canonical(value: Any) -> bytes:
    """One byte string per JSON value, whatever the order of its keys."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _sha256(value: Any) -> str:
    return hashlib.sha256(canonical(value)).hexdigest()


def normalized(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` as a build reads it back from its file: what the digest is taken of."""
    return nbformat.reads(nbformat.writes(nb), as_version=4)


def code_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in nb.cells if c.cell_type == "code"]


def cell_digest(cell: Mapping[str, Any]) -> str:
    outputs = [
        {k: v for k, v in out.items() if k != "execution_count"} for out in cell.get("outputs", [])
    ]
    return _sha256(outputs)


def _record_digest(source_hash: str, provenance: str, cells: Sequence[str]) -> str:
    return _sha256({"source_hash": source_hash, "provenance": provenance, "cells": list(cells)})


def seal(
    nb: nbformat.NotebookNode, source_hash: str, provenance: Mapping[str, Any]
) -> dict[str, Any]:
    """The digest of a normalized record notebook and its provenance."""
    cells = [cell_digest(c) for c in code_cells(nb)]
    prov = _sha256(provenance)
    return {
        "algorithm": ALGORITHM,
        "cells": cells,
        "provenance": prov,
        "record": _record_digest(source_hash, prov, cells),
    }


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    """Why a build does not show a record."""

    reason: str  # in words; ``{cell}`` stands for the code cell it concerns
    cell: int | None = None  # that code cell, 1-based among code cells

    def words(self, line: int | None = None) -> str:
        where = f"code cell {self.cell}" + (f" (line {line})" if line else "")
        return self.reason.format(cell=where)


def ran(nb: nbformat.NotebookNode, provenance: Mapping[str, Any]) -> list[int]:
    """The code cells (1-based) that ran, as the provenance says: all but its
    ``cells_not_executed``; an empty cell runs nothing (nbclient skips it)."""
    skipped = {
        c.get("cell") for c in provenance.get("cells_not_executed") or () if isinstance(c, Mapping)
    }
    return [
        n
        for n, cell in enumerate(code_cells(nb), start=1)
        if n not in skipped and str(cell.get("source", "")).strip()
    ]


def check(nb: nbformat.NotebookNode, meta: Mapping[str, Any]) -> Refusal | None:
    """Why the record ``nb``, with its ``metadata.trtdocs_record`` ``meta``, is
    refused; None when its outputs and provenance are the ones it was sealed with."""
    provenance = meta.get("provenance")
    if not isinstance(provenance, Mapping):
        return Refusal("it has no provenance (metadata.trtdocs_record.provenance)")
    cells = code_cells(nb)
    executed = ran(nb, provenance)
    if executed and not any(cells[n - 1].get("outputs") for n in executed):
        count = len(executed)
        return Refusal(
            f"its {count} code cell{'s' if count > 1 else ''} that ran "
            f"hold{'' if count > 1 else 's'} no outputs (an output stripper "
            f"such as nbstripout removes them)",
            executed[0],
        )
    digest = meta.get("digest")
    if not isinstance(digest, Mapping) or digest.get("algorithm") != ALGORITHM:
        return Refusal(f"it has no {ALGORITHM} digest (metadata.trtdocs_record.digest)")
    sealed = digest.get("cells")
    if not isinstance(sealed, list) or len(sealed) != len(cells):
        return Refusal(
            f"its digest covers {len(sealed) if isinstance(sealed, list) else 'no'} code "
            f"cells, and it has {len(cells)}"
        )
    for number, (cell, expected) in enumerate(zip(cells, sealed, strict=True), start=1):
        if cell_digest(cell) != expected:
            return Refusal("the outputs of {cell} differ from those `make record` wrote", number)
    if _sha256(provenance) != digest.get("provenance"):
        return Refusal(
            "its provenance (metadata.trtdocs_record.provenance) differs from what "
            "`make record` wrote"
        )
    if _record_digest(str(meta.get("source_hash")), _sha256(provenance), sealed) != digest.get(
        "record"
    ):
        return Refusal(
            "its source hash or its digest (metadata.trtdocs_record) differs from what "
            "`make record` wrote"
        )
    return None

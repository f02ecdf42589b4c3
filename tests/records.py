"""The planted bad records of issue #32, said once: what a hand edit, an output
stripper, an edited provenance and a cut-short download do to a record that
`make record` wrote; and a record `make record` made on another machine."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from trtdocs.notebooks import integrity, recorded


def edit_output_line(path: Path, old: str, new: str) -> None:
    """One output line changed in an editor: the file's text, not its JSON model."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path}: {old!r} is not one output line of the record"
    path.write_text(text.replace(old, new), encoding="utf-8")


def strip_outputs(path: Path) -> int:
    """What nbstripout does to a notebook without `keep_output`: every code cell
    loses its outputs and its execution count. Returns the outputs removed."""
    nb = nbformat.read(path, as_version=4)
    removed = 0
    for cell in nb.cells:
        if cell.cell_type == "code":
            removed += len(cell.outputs)
            cell.outputs = []
            cell.execution_count = None
    nbformat.write(nb, path)
    return removed


def claim_a_gpu(path: Path, gpu: str = "NVIDIA H100 80GB HBM3") -> None:
    """The provenance edited to say the run had a GPU it did not have (nothing
    the expiry compares changes: the record stays fresh)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    environment = data["metadata"]["trtdocs_record"]["provenance"]["environment"]
    assert environment["gpu_name"] != gpu
    environment.update(cuda_available=True, gpu_name=gpu)
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def cut_short(path: Path) -> None:
    """A download or a copy that stopped halfway: not JSON any more."""
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")


def made_with(path: Path, **versions: str) -> None:
    """The record as `make record` would have written it on a machine with these
    package versions: the provenance changed and the digest taken again."""
    nb = nbformat.read(path, as_version=4)
    meta = nb.metadata[recorded.RECORD_KEY]
    meta["provenance"]["environment"]["versions"].update(versions)
    meta["digest"] = integrity.seal(nb, meta["source_hash"], meta["provenance"])
    nbformat.write(nb, path)

"""A record's digest (trtdocs.notebooks.integrity) and what keeps output
strippers away from records (notebooks/_recorded/.gitattributes, the records'
``keep_output``), without Sphinx. The builds that refuse a bad record are in
tests/build/test_records_refused_in_build.py; the planted records are tests/records.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

import records
from paths import ROOT
from trtdocs.notebooks import integrity, recorded

PROVENANCE = {
    "status": "executed",
    "code_cells": 3,
    "cells_not_executed": [],
    "duration_s": 1.25,
    "executed_at": "2026-12-01T10:00:00+00:00",
    "environment": {"gpu_name": None, "cuda_available": False, "versions": {"torch": "2.14.1"}},
}


def _nb(*sources: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# T")] + [
        nbformat.v4.new_code_cell(s) for s in sources
    ]
    return nb


def _recorded(path: Path) -> Path:
    """What `make record` writes for a page of three cells, the second printing nothing."""
    source = _nb("print('first line')\nprint('second line')", "x = 2", "x * 21")
    executed = _nb("print('first line')\nprint('second line')", "x = 2", "x * 21")
    executed.cells[1].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="first line\n"),
        nbformat.v4.new_output("stream", name="stdout", text="second line\n"),
    ]
    executed.cells[3].outputs = [
        nbformat.v4.new_output("execute_result", data={"text/plain": "42"}, execution_count=3)
    ]
    for count, cell in enumerate(executed.cells[1:], start=1):
        cell.execution_count = count
    recorded.write(path, source, executed, PROVENANCE)
    return path


def _refusal(path: Path) -> str | None:
    record = recorded.load(path)
    assert record is not None
    refusal = record.refusal()
    return None if refusal is None else refusal.words()


def test_a_record_verifies_as_written(tmp_path: Path) -> None:
    path = _recorded(tmp_path / "r.ipynb")
    meta = nbformat.read(path, as_version=4).metadata
    assert meta["keep_output"] is True
    digest = meta["trtdocs_record"]["digest"]
    assert (
        digest["algorithm"] == "sha256"
        and len(digest["cells"]) == 3
        and len(digest["record"]) == 64
    )
    assert _refusal(path) is None


def test_canonical_json_ignores_key_order_and_layout() -> None:
    assert integrity.canonical({"b": [1, "é"], "a": None}) == integrity.canonical(
        {"a": None, "b": [1, "é"]}
    )
    assert integrity.canonical({"a": 1}) == b'{"a":1}'
    with pytest.raises(ValueError):
        integrity.canonical({"a": float("nan")})


def test_each_planted_record_is_refused(tmp_path: Path) -> None:
    """Each planted case verifies before it is planted, and is refused after, naming the cell."""
    cases = {
        # the output line as the file writes it (the source's line has no newline)
        "edited": (
            lambda p: records.edit_output_line(p, r"second line\n", r"second line, by hand\n"),
            "the outputs of code cell 1 differ from those `make record` wrote",
        ),
        "stripped": (
            records.strip_outputs,
            "its 3 code cells that ran hold no outputs (an output stripper such as nbstripout",
        ),
        "provenance": (
            records.claim_a_gpu,
            "its provenance (metadata.trtdocs_record.provenance) differs from what",
        ),
    }
    for name, (plant, why) in cases.items():
        path = _recorded(tmp_path / f"{name}.ipynb")
        assert _refusal(path) is None
        plant(path)
        refused = _refusal(path)
        assert refused is not None and refused.startswith(why), (name, refused)
    path = _recorded(tmp_path / "cut.ipynb")
    records.cut_short(path)
    with pytest.raises(recorded.RecordError, match="it is not a notebook"):
        recorded.load(path)


def test_the_source_hash_and_the_digest_itself_are_covered(tmp_path: Path) -> None:
    path = _recorded(tmp_path / "r.ipynb")
    nb = nbformat.read(path, as_version=4)
    nb.metadata["trtdocs_record"]["source_hash"] = "0" * 16  # a stale record made to look current
    nbformat.write(nb, path)
    assert _refusal(path) == (
        "its source hash or its digest (metadata.trtdocs_record) differs "
        "from what `make record` wrote"
    )
    nb.metadata["trtdocs_record"].pop("digest")
    nbformat.write(nb, path)
    assert _refusal(path) == "it has no sha256 digest (metadata.trtdocs_record.digest)"


def test_a_record_resealed_as_made_elsewhere_verifies(tmp_path: Path) -> None:
    path = _recorded(tmp_path / "r.ipynb")
    records.made_with(path, torch="2.13.0")
    assert _refusal(path) is None


def test_make_record_writes_no_record_without_outputs(tmp_path: Path) -> None:
    """An executed notebook whose cells hold no outputs (a lost cache) is not recorded."""
    source = _nb("print(1)")
    with pytest.raises(
        recorded.RecordError, match="not written: its 1 code cell that ran holds no outputs"
    ):
        recorded.write(
            tmp_path / "r.ipynb", source, _nb("print(1)"), {**PROVENANCE, "code_cells": 1}
        )
    assert not (tmp_path / "r.ipynb").exists()
    # a page whose cells print nothing and were not run here is another matter: nothing ran
    skipped = {
        **PROVENANCE,
        "code_cells": 1,
        "cells_not_executed": [
            {
                "cell": 1,
                "line": 1,
                "needs": ["feature:multi-profile"],
                "reason": "needs a newer release",
            }
        ],
    }
    recorded.write(tmp_path / "s.ipynb", source, _nb("print(1)"), skipped)
    assert _refusal(tmp_path / "s.ipynb") is None


def test_nbstripout_keeps_a_records_outputs(tmp_path: Path) -> None:
    """nbstripout honours the record's keep_output: it clears the execution counts
    only, which the digest leaves out; the record still verifies."""
    nbstripout = pytest.importorskip("nbstripout", reason="nbstripout is not installed")
    path = _recorded(tmp_path / "r.ipynb")
    nb = nbformat.read(path, as_version=4)
    stripped = nbstripout.strip_output(nb, keep_output=None, keep_count=False, keep_id=False)
    assert [c.execution_count for c in stripped.cells if c.cell_type == "code"] == [None] * 3
    nbformat.write(stripped, path)
    assert _refusal(path) is None
    nb.metadata.pop("keep_output")  # without it, nbstripout empties the record: refused
    nbformat.write(
        nbstripout.strip_output(nb, keep_output=None, keep_count=False, keep_id=False), path
    )
    assert _refusal(path) is not None


def _filter(repo: Path, path: str, *config: str) -> str:
    result = subprocess.run(
        ["git", *config, "check-attr", "filter", "--", path],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip().rsplit(": ", 1)[-1]


def test_no_clean_filter_reaches_the_records(tmp_path: Path) -> None:
    """notebooks/_recorded/.gitattributes unsets `filter` for records: nbstripout's
    filter (`nbstripout --install --attributes .gitattributes`, or a user's global
    attributes) stays on other notebooks. Planted: without the file, it reaches them."""
    assert _filter(ROOT, "notebooks/_recorded/notebooks__kv-cache.ipynb") == "unset"
    repo = tmp_path / "clone"
    (repo / "notebooks" / "_recorded").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitattributes").write_text("*.ipynb filter=nbstripout\n")
    user = tmp_path / "user-attributes"
    user.write_text("*.ipynb filter=nbstripout\n")
    ours = repo / "notebooks" / "_recorded" / ".gitattributes"
    shutil.copy(ROOT / "notebooks" / "_recorded" / ".gitattributes", ours)
    record, page = "notebooks/_recorded/notebooks__x.ipynb", "notebooks/x.ipynb"
    for config in ((), ("-c", f"core.attributesFile={user}")):
        assert _filter(repo, record, *config) == "unset"
        assert _filter(repo, page, *config) == "nbstripout"
    ours.unlink()
    assert _filter(repo, record) == "nbstripout"
